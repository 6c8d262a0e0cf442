import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PaysheetModel
import PaysheetSheet
import PaysheetToken
import Testing
import UnionPay
@testable import PaysheetBrowserBridge
@testable import PaysheetServer

/// Orders in Wallet: the order details a paid order's authorization carries, Apple's order web
/// service under `/wallet-orders` (the signed package, If-Modified-Since, registrations, changes
/// since, the log) with its owners, stale and expired tokens, and the simulated wallet's check of
/// packages (forged and altered ones refused), on SQLite and PostgreSQL.
@Suite(.serialized) struct WalletOrderTests {
    static let type = "order.dev.paysheet.sandbox"

    /// A paid order of `server` and the order details its authorization gave the page.
    static func paidOrder(_ server: TestServer) async throws -> (id: String, details: ApplePayPaymentOrderDetails) {
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder()
        let id = try #require(order["id"]?.stringValue)
        let sheet = try await server.pay(order, factory: factory)
        #expect(await sheet.paid)
        let details = try #require(await sheet.machine.walletOrder, "the authorization's result had no orderDetails")
        return (id, details)
    }

    /// The sandbox's trust (the data folder's CA), as the simulated sheet has it.
    static func check(_ server: TestServer) throws -> WalletOrderPackageCheck {
        WalletOrderPackageCheck(trust: try SandboxPKI.loadOrCreate(folder: server.data + "/sandbox-ca").trustAnchors)
    }

    @Test(arguments: TestDatabases.kinds) func aPaidOrdersDetailsFetchASignedPackageThatWouldAppearInWallet(
        kind: String
    ) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let (id, details) = try await Self.paidOrder(server)
            #expect(details.orderTypeIdentifier == Self.type)
            #expect(details.orderIdentifier == id)
            #expect(details.webServiceURL == server.url + "/wallet-orders")
            #expect(details.authenticationToken.hasPrefix("pwo_") && details.authenticationToken.count >= 16)
            // The sheet kept them and says it has not fetched the order yet.
            let path = "/wallet-orders/v1/orders/\(Self.type)/\(id)"
            let fetched = try await server.raw(
                .get,
                path,
                headers: ["Authorization": "AppleOrder " + details.authenticationToken]
            )
            #expect(fetched.status == 200)
            #expect(fetched.headers[.contentType] == "application/vnd.apple.order")
            let lastModified = try #require(fetched.headers[.lastModified])
            #expect(HTTPDate.date(lastModified) != nil)
            let verdict = try await Self.check(server).verdict(Data(fetched.body), details: details, at: Date())
            #expect(verdict == .appears, "\(verdict.message)")
            // order.json: the order as paid.
            let files = try ZipArchive(reading: Data(fetched.body)).files
            #expect(files.map(\.name) == ["order.json", "logo.png", "manifest.json", "signature"])
            let order = try JSONParser.parse(Array(files[0].contents))
            #expect(order["status"] == "open")
            #expect(order["payment"]?["status"] == "paid")
            #expect(order["payment"]?["total"]?["amount"] == .number("186.08"))
            #expect(order["authenticationToken"]?.stringValue == details.authenticationToken)
            #expect(order["orderManagementURL"]?.stringValue?.hasSuffix("/store/order?id=" + id) == true)
            // Nothing but the token's hash is stored.
            let stored = try await server.storedText("SELECT hash FROM wallet_order_tokens")
            #expect(
                !stored.contains(details.authenticationToken)
                    && stored.contains(Secrets.hash(details.authenticationToken))
            )
        }
    }

    /// The token an authorization hands out is stored with the idempotency key's answer (one
    /// commit) or, without a key, on its own: either way it opens the order, and a replay of the
    /// key gives the same token, which still does.
    @Test(arguments: TestDatabases.kinds) func theTokenOfAnAuthorizationWorksWithAndWithoutAnIdempotencyKey(
        kind: String
    ) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let factory = try await server.tokenFactory()
            for key in ["wallet-key-\(kind)", nil] {
                // An order that asks for no contact: the token alone pays it.
                let (id, secret, body) = try await server.orderWithAuthorizeBody(factory)
                let (status, answer) = try await server.send(
                    "POST",
                    "/v1/orders/\(id)/authorize",
                    body,
                    key: key,
                    auth: secret
                )
                #expect(status == 200, "\(answer)")
                let issued = try #require(
                    answer["result"]?["orderDetails"]?["authenticationToken"]?.stringValue,
                    "\(answer.compactText)"
                )
                func opens(_ token: String) async throws -> Int {
                    let path = "/wallet-orders/v1/orders/\(Self.type)/\(id)"
                    return try await server.raw(.get, path, headers: ["Authorization": "AppleOrder " + token]).status
                }
                #expect(try await opens(issued) == 200, "key \(key ?? "none")")
                if let key {
                    let (again, replay) = try await server.send(
                        "POST",
                        "/v1/orders/\(id)/authorize",
                        body,
                        key: key,
                        auth: secret
                    )
                    #expect(again == 200 && replay == answer)
                    #expect(try await opens(issued) == 200)
                }
            }
        }
    }

    @Test func theOrderRoutesRefuseEveryoneButTheOrdersToken() async throws {
        try await TestServer.inProcess { server in
            let (id, details) = try await Self.paidOrder(server)
            let (otherId, other) = try await Self.paidOrder(server)
            let routes: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/wallet-orders/v1/orders/\(Self.type)/\(id)", nil),
                (.post, "/wallet-orders/v1/devices/d1/registrations/\(Self.type)/\(id)", #"{"pushToken":"p1"}"#),
                (.delete, "/wallet-orders/v1/devices/d1/registrations/\(Self.type)/\(id)", nil),
            ]
            let refused: [(String, String?)] = [
                ("no credential", nil),
                ("another order's token", "AppleOrder " + other.authenticationToken),
                ("a forged token", "AppleOrder pwo_" + String(repeating: "A", count: 43)),
                ("the token as a bearer", "Bearer " + details.authenticationToken),
                ("the merchant's key", "Bearer " + server.merchantKey),
                ("the order's client secret", "Bearer " + (server.secret(id) ?? "")),
            ]
            for (method, path, body) in routes {
                for (who, header) in refused {
                    let answer = try await server.raw(
                        method,
                        path,
                        headers: header.map { ["Authorization": $0] } ?? [:],
                        body: body
                    )
                    #expect(answer.status == 401, "\(method) \(path) as \(who): \(answer.status)")
                    #expect(try JSONParser.parse(answer.body)["error"]?["code"] == "unauthorized", "\(who)")
                }
            }
            // Nothing was registered by the refused calls.
            #expect(try await server.raw(.get, "/wallet-orders/v1/devices/d1/registrations/\(Self.type)").status == 204)
            // An unknown order, or another type, is a token that matches nothing: 401 too.
            let unknown = try await server.raw(
                .get,
                "/wallet-orders/v1/orders/\(Self.type)/ord_0000",
                headers: ["Authorization": "AppleOrder " + details.authenticationToken]
            )
            #expect(unknown.status == 401)
            let otherType = try await server.raw(
                .get,
                "/wallet-orders/v1/orders/order.com.elsewhere/\(id)",
                headers: ["Authorization": "AppleOrder " + details.authenticationToken]
            )
            #expect(otherType.status == 401)
            #expect(otherId != id)
        }
    }

    @Test func ifModifiedSinceIsAnsweredNotModifiedUntilTheOrderChanges() async throws {
        try await TestServer.inProcess { server in
            let (id, details) = try await Self.paidOrder(server)
            let path = "/wallet-orders/v1/orders/\(Self.type)/\(id)"
            let auth = ["Authorization": "AppleOrder " + details.authenticationToken]
            let first = try await server.raw(.get, path, headers: auth)
            let lastModified = try #require(first.headers[.lastModified])
            let again = try await server.raw(
                .get,
                path,
                headers: auth.merging(["If-Modified-Since": lastModified]) { a, _ in a }
            )
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            #expect(again.headers[.lastModified] == lastModified)
            let earlier = HTTPDate.text(HTTPDate.date(lastModified)!.addingTimeInterval(-1))
            #expect(
                try await server.raw(.get, path, headers: auth.merging(["If-Modified-Since": earlier]) { a, _ in a })
                    .status == 200
            )
            // An unreadable date is ignored (RFC 9110): the package is sent.
            #expect(
                try await server.raw(
                    .get,
                    path,
                    headers: auth.merging(["If-Modified-Since": "yesterday"]) { a, _ in a }
                ).status == 200
            )
            // A refund changes the order: the old date now gets the package, marked cancelled.
            server.advanceClock(by: 60)
            #expect(try await server.send("POST", "/v1/orders/\(id)/refunds", "{}").0 == 201)
            #expect(try await waitUntil { try await server.order(id)["status"] == "refunded" })
            let changed = try await server.raw(
                .get,
                path,
                headers: auth.merging(["If-Modified-Since": lastModified]) { a, _ in a }
            )
            #expect(changed.status == 200)
            #expect(HTTPDate.date(changed.headers[.lastModified] ?? "")! > HTTPDate.date(lastModified)!)
            let order = try JSONParser.parse(Array(try ZipArchive(reading: Data(changed.body)).files[0].contents))
            #expect(order["status"] == "cancelled")
            #expect(order["payment"]?["status"] == "refunded")
        }
    }

    @Test(arguments: TestDatabases.kinds) func devicesRegisterAndAreToldWhichOrdersChanged(kind: String) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let (id, details) = try await Self.paidOrder(server)
            let auth = ["Authorization": "AppleOrder " + details.authenticationToken]
            let registration = "/wallet-orders/v1/devices/device-1/registrations/\(Self.type)/\(id)"
            let list = "/wallet-orders/v1/devices/device-1/registrations/\(Self.type)"
            #expect(try await server.raw(.get, list).status == 204)
            #expect(
                try await server.raw(.post, registration, headers: auth, body: #"{"pushToken":"push-1"}"#).status == 201
            )
            #expect(
                try await server.raw(.post, registration, headers: auth, body: #"{"pushToken":"push-2"}"#).status == 200
            )
            // Bad input: a clear error, nothing stored.
            let noToken = try await server.raw(.post, registration, headers: auth, body: #"{"push":"x"}"#)
            #expect(noToken.status == 400)
            #expect(try JSONParser.parse(noToken.body)["error"]?["field"] == "pushToken")
            let badDevice = "/wallet-orders/v1/devices/bad%20device/registrations/\(Self.type)/\(id)"
            #expect(try await server.raw(.post, badDevice, headers: auth, body: #"{"pushToken":"p"}"#).status == 400)
            let huge = #"{"pushToken":""# + String(repeating: "x", count: 5_000) + #""}"#
            #expect(try await server.raw(.post, registration, headers: auth, body: huge).status == 413)

            let all = try JSONParser.parse(try await server.raw(.get, list).body)
            #expect(all["orderIdentifiers"] == [.string(id)])
            let lastModified = try #require(all["lastModified"]?.stringValue)
            #expect(try await server.raw(.get, list + "?ordersModifiedSince=" + lastModified).status == 204)
            #expect(try await server.raw(.get, list + "?ordersModifiedSince=yesterday").status == 400)
            // A refund is a change since then.
            server.advanceClock(by: 60)
            #expect(try await server.send("POST", "/v1/orders/\(id)/refunds", "{}").0 == 201)
            #expect(try await waitUntil { try await server.order(id)["status"] == "refunded" })
            let since = try await server.raw(.get, list + "?ordersModifiedSince=" + lastModified)
            #expect(since.status == 200)
            let changed = try JSONParser.parse(since.body)
            #expect(changed["orderIdentifiers"] == [.string(id)])
            #expect(Int(changed["lastModified"]?.stringValue ?? "") ?? 0 > Int(lastModified)!)
            // Another device, another order type: nothing.
            #expect(
                try await server.raw(.get, "/wallet-orders/v1/devices/device-2/registrations/\(Self.type)").status
                    == 204
            )
            #expect(
                try await server.raw(.get, "/wallet-orders/v1/devices/device-1/registrations/order.other").status == 204
            )

            #expect(try await server.raw(.delete, registration, headers: auth).status == 200)
            let twice = try await server.raw(.delete, registration, headers: auth)
            #expect(twice.status == 404)
            #expect(try JSONParser.parse(twice.body)["error"]?["code"] == "not_registered")
            #expect(try await server.raw(.get, list).status == 204)
        }
    }

    @Test func aMerchantsNewTokenMakesTheOldOneStaleAndTokensExpire() async throws {
        try await TestServer.inProcess(configure: { $0.walletOrders.tokenLifetime = 3_600 }) { server in
            let (id, details) = try await Self.paidOrder(server)
            let path = "/wallet-orders/v1/orders/\(Self.type)/\(id)"
            // Only the merchant's key issues anew; the order's client secret may not.
            #expect(
                try await server.send("POST", "/v1/orders/\(id)/wallet-order", "{}", auth: server.secret(id) ?? "").0
                    == 401
            )
            let (status, body) = try await server.send("POST", "/v1/orders/\(id)/wallet-order", "{}")
            #expect(status == 201)
            let fresh = try #require(body["orderDetails"]?["authenticationToken"]?.stringValue)
            #expect(body["orderDetails"]?["orderIdentifier"] == .string(id))
            #expect(fresh != details.authenticationToken)
            let stale = try await server.raw(
                .get,
                path,
                headers: ["Authorization": "AppleOrder " + details.authenticationToken]
            )
            #expect(stale.status == 401)
            #expect(try JSONParser.parse(stale.body)["error"]?["code"] == "stale_token")
            #expect(try await server.raw(.get, path, headers: ["Authorization": "AppleOrder " + fresh]).status == 200)
            // An hour later the token has expired.
            server.advanceClock(by: 3_601)
            let expired = try await server.raw(.get, path, headers: ["Authorization": "AppleOrder " + fresh])
            #expect(expired.status == 401)
            #expect(try JSONParser.parse(expired.body)["error"]?["code"] == "token_expired")
            let registration = try await server.raw(
                .post,
                "/wallet-orders/v1/devices/d/registrations/\(Self.type)/\(id)",
                headers: ["Authorization": "AppleOrder " + fresh],
                body: #"{"pushToken":"p"}"#
            )
            #expect(registration.status == 401)
        }
    }

    @Test func onlyPaidOrdersAreIssuedAndUnpaidOnesCarryNoDetails() async throws {
        try await TestServer.inProcess { server in
            let order = try await server.createOrder()
            let id = try #require(order["id"]?.stringValue)
            let (status, body) = try await server.send("POST", "/v1/orders/\(id)/wallet-order", "{}")
            #expect(status == 409)
            #expect(body["error"]?["code"] == "order_not_paid")
            #expect(try await server.send("POST", "/v1/orders/ord_0000/wallet-order", "{}").0 == 404)
            // A declined payment's result carries no order details.
            let factory = try await server.tokenFactory()
            let declined = try await server.pay(order, wallet: .withTestCards(["0063"]), card: 1, factory: factory)
            #expect(await !declined.paid)
            #expect(await declined.machine.walletOrder == nil)
            #expect(try await server.storedText("SELECT order_id FROM wallet_order_tokens").isEmpty)
        }
    }

    @Test func theLogTakesAnyonesMessagesWithinItsLimits() async throws {
        try await TestServer.inProcess { (server: TestServer) async throws in
            let path = "/wallet-orders/v1/log"
            #expect(try await server.raw(.post, path, body: #"{"logs":["Could not\nfetch the order"]}"#).status == 200)
            #expect(server.logs.all.contains { $0.contains("a device reports: Could not fetch the order") })
            #expect(try await server.raw(.post, path, body: #"{"lines":[]}"#).status == 400)
            #expect(try await server.raw(.post, path, body: "not json").status == 400)
            let many = "{\"logs\":[" + Array(repeating: "\"x\"", count: 101).joined(separator: ",") + "]}"
            #expect(try await server.raw(.post, path, body: many).status == 400)
            let big = #"{"logs":[""# + String(repeating: "x", count: 20_000) + #""]}"#
            #expect(try await server.raw(.post, path, body: big).status == 413)
            // 60 a minute from one client: someone filling the logs is refused. The bucket refills
            // with real time (one a second), so a slow machine's refills are allowed for.
            var statuses: [Int] = []
            let started = ContinuousClock.now
            for _ in 0..<60 { statuses.append(try await server.raw(.post, path, body: #"{"logs":["x"]}"#).status) }
            let seconds = (ContinuousClock.now - started).components.seconds + 1
            #expect(statuses.contains(429))
            #expect(statuses.filter { $0 == 200 }.count <= 60 - 5 + Int(seconds))
        }
    }

    // MARK: The simulated wallet's checks

    /// The files of a package, altered by `change`, signed again by `signer` (or kept as signed).
    static func repackage(
        _ package: Data,
        change: (inout [(name: String, contents: Data)]) -> Void
    ) throws -> Data {
        var files = try ZipArchive(reading: package).files
        change(&files)
        return ZipArchive(files: files).encoded()
    }

    @Test func forgedAlteredAndMismatchedPackagesAreRefusedWithTheFirstFailedCheck() async throws {
        try await TestServer.inProcess { server in
            let (id, details) = try await Self.paidOrder(server)
            let fetched = try await server.raw(
                .get,
                "/wallet-orders/v1/orders/\(Self.type)/\(id)",
                headers: ["Authorization": "AppleOrder " + details.authenticationToken]
            )
            let package = Data(fetched.body)
            let check = try Self.check(server)
            #expect(await check.verdict(package, details: details, at: Date()) == .appears)

            // Not a ZIP; a file missing.
            #expect(await check.verdict(Data("PK?".utf8), details: details, at: Date()).failedCheck == .package)
            let noSignature = try Self.repackage(package) { $0.removeAll { $0.name == "signature" } }
            let missing = await check.verdict(noSignature, details: details, at: Date())
            #expect(missing == .refused(.package, "the package has no signature"))

            // order.json changed after signing: the manifest's hash no longer matches.
            let altered = try Self.repackage(package) { files in
                let index = files.firstIndex { $0.name == "order.json" }!
                files[index].contents = Data(
                    String(decoding: files[index].contents, as: UTF8.self)
                        .replacingOccurrences(of: "\"open\"", with: "\"completed\"").utf8
                )
            }
            let tampered = await check.verdict(altered, details: details, at: Date())
            #expect(tampered.failedCheck == .manifest)
            #expect(tampered.reason?.contains("SHA-256 of order.json does not match") == true, "\(tampered.message)")

            // A manifest rewritten to match: its signature no longer covers it.
            let rehashed = try Self.repackage(altered) { files in
                var manifest = JSONObject()
                for file in files where file.name != "manifest.json" && file.name != "signature" {
                    manifest[file.name] = .string(Hex.encode(SHA256.hash(data: file.contents)))
                }
                let index = files.firstIndex { $0.name == "manifest.json" }!
                files[index].contents = Data(JSONValue.object(manifest).compactText.utf8)
            }
            let unsigned = await check.verdict(rehashed, details: details, at: Date())
            #expect(unsigned.failedCheck == .signature)
            #expect(unsigned.reason?.contains("messageDigest") == true, "\(unsigned.message)")

            // Signed again by a certificate of another CA (a forger's): the chain is refused.
            let forger = try SandboxPKI.generate().orderPackageSigner(orderTypeIdentifier: Self.type)
            let forged = try Self.repackage(rehashed) { files in
                let manifest = files.first { $0.name == "manifest.json" }!.contents
                let index = files.firstIndex { $0.name == "signature" }!
                files[index].contents = Data(try! forger.signature(of: Array(manifest), at: Date()))
            }
            let chain = await check.verdict(forged, details: details, at: Date())
            #expect(chain.failedCheck == .signature)
            #expect(chain.reason?.contains("does not chain to a trusted root") == true, "\(chain.message)")

            // Details that name another order: the package is not that order's.
            var another = details
            another.orderIdentifier = "ord_other"
            let mismatch = await check.verdict(package, details: another, at: Date())
            #expect(mismatch.failedCheck == .order)
            #expect(mismatch.reason?.contains("orderIdentifier") == true)
            var otherType = details
            otherType.orderTypeIdentifier = "order.com.elsewhere"
            #expect(await check.verdict(package, details: otherType, at: Date()).failedCheck == .signature)
        }
    }

    @Test func theSheetsBridgeFetchesTheOrderAndRecordsTheVerdict() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder()
        let id = try #require(order["id"]?.stringValue)
        _ = try await server.pay(order, factory: factory)
        let (status, issued) = try await server.send("POST", "/v1/orders/\(id)/wallet-order", "{}")
        #expect(status == 201)
        let details = try #require(issued["orderDetails"])

        // A page of the browser bridge takes a payment completed with those details.
        let page = try await server.bridge("/paysheet/v1/pages", [:])
        let pageId = try #require(page["page"]?.stringValue)
        func op(_ body: JSONValue) async throws -> JSONValue {
            try await server.bridge("/paysheet/v1/pages/\(pageId)", body)
        }
        _ = try await op(["op": "construct", "version": 14, "request": BrowserBridgeTests.request, "userGesture": true])
        _ = try await op(["op": "call", "session": 1, "method": "begin", "args": []])
        _ = try await op(["op": "call", "session": 1, "method": "completeMerchantValidation", "args": [["s": 1]]])
        let total: JSONValue = ["newTotal": ["label": "Shop", "amount": "10.00"]]
        _ = try await op(["op": "call", "session": 1, "method": "completePaymentMethodSelection", "args": [total]])
        _ = try await op(["op": "user", "user": "authorize"])
        let completed = try await op([
            "op": "call", "session": 1, "method": "completePayment", "args": [["status": 0, "orderDetails": details]],
        ])
        #expect(completed["sheet"]?["order"]?["wallet"]?["status"] == "unchecked", "\(completed.compactText)")

        let checked = try await server.bridge("/paysheet/v1/pages/\(pageId)/wallet-order", [:])
        #expect(
            checked["sheet"]?["order"]?["wallet"]?["status"] == "appears",
            "\(checked["sheet"]?["order"]?.compactText ?? "")"
        )
        #expect(checked["sheet"]?["order"]?["wallet"]?["message"] == "This order would appear in Wallet")

        // Owners: an unknown page is 404; a page whose payment gave no order is 409.
        #expect(try await server.bridgeStatus("/paysheet/v1/pages/pg_unknown/wallet-order") == 404)
        let plain = try #require(try await server.bridge("/paysheet/v1/pages", [:])["page"]?.stringValue)
        #expect(try await server.bridgeStatus("/paysheet/v1/pages/\(plain)/wallet-order") == 409)
    }

    @Test func theSimulatedWalletSaysWhyAnOrderWouldNotAppear() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let checker = WalletOrderChecker(
            trust: try SandboxPKI.loadOrCreate(folder: server.data + "/sandbox-ca").trustAnchors,
            timeout: .seconds(2)
        )
        let (id, details) = try await Self.paidOrder(server)
        #expect(await checker.verdict(details) == .appears)
        var wrongToken = details
        wrongToken.authenticationToken = "pwo_" + String(repeating: "B", count: 43)
        let refused = await checker.verdict(wrongToken)
        #expect(refused.failedCheck == .fetch)
        #expect(refused.reason?.contains("answered 401") == true, "\(refused.message)")
        var plainHTTP = details
        plainHTTP.webServiceURL = "http://shop.example/wallet-orders"
        #expect(await checker.verdict(plainHTTP).failedCheck == .webServiceURL)
        var nowhere = details
        nowhere.webServiceURL = "http://127.0.0.1:9/wallet-orders"
        #expect(await checker.verdict(nowhere).failedCheck == .fetch)
        #expect(!id.isEmpty)
    }
}

extension TestServer {
    /// A call with raw headers: its status, headers and body.
    func raw(
        _ method: HTTPRequest.Method,
        _ path: String,
        headers: [String: String] = [:],
        body: String? = nil
    ) async throws -> (status: Int, headers: HTTPFields, body: [UInt8]) {
        if let client {
            var fields = HTTPFields()
            for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
            let response = try await client.executeRequest(
                uri: path,
                method: method,
                headers: fields,
                body: body.map { ByteBuffer(string: $0) }
            )
            return (Int(response.status.code), response.headers, Array(buffer: response.body))
        }
        var request = HTTPClientRequest(url: url + path)
        request.method = .init(rawValue: method.rawValue)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await http.execute(request, timeout: .seconds(30))
        var fields = HTTPFields()
        for header in response.headers {
            fields.append(HTTPField(name: HTTPField.Name(header.name)!, value: header.value))
        }
        return (Int(response.status.code), fields, Array(buffer: try await response.body.collect(upTo: 1 << 22)))
    }

    /// A bridge operation over HTTP (the page's own calls), its answer.
    func bridge(_ path: String, _ body: JSONValue) async throws -> JSONValue {
        var request = HTTPClientRequest(url: url + path)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: body.compactText))
        let response = try await http.execute(request, timeout: .seconds(30))
        return try JSONParser.parse(Array(buffer: try await response.body.collect(upTo: 1 << 22)))
    }

    /// The status of a bridge operation over HTTP.
    func bridgeStatus(_ path: String) async throws -> Int {
        var request = HTTPClientRequest(url: url + path)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: "{}"))
        return Int(try await http.execute(request, timeout: .seconds(30)).status.code)
    }

    /// The text of every row of `sql` on the server's database, joined.
    func storedText(_ sql: String) async throws -> String {
        try await APIKeys.withDatabase(databaseURL, dataFolder: data) { keys in
            try await keys.store.database.read(sql, []).map { $0.values.compactMap { $0 }.joined(separator: " ") }
                .joined(separator: "\n")
        }
    }
}
