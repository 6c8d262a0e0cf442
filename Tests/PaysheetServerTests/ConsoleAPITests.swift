import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel
import PaysheetSheetTokens
import PaysheetToken
import Testing
import UnionPay
@testable import PaysheetServer

/// The merchant console (`/console`) and the listings it reads: who may call them, what their
/// filters do, and that nothing they answer shows a card number, a token or a secret.
@Suite(.serialized) struct ConsoleAPITests {
    /// The listings the console reads, each the merchant key's only.
    static let listings = [
        "/v1/orders?status=paid&createdFrom=2026-01-01T00:00:00Z", "/v1/agreements", "/v1/agreements?limit=1",
        "/v1/reconciliations", "/v1/reconciliations?before=20990101",
    ]

    @Test(arguments: TestDatabases.kinds) func theListingsRefuseEveryoneButTheMerchant(kind: String) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let revoked = try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) { keys in
                let (record, key) = try await keys.create(name: "to be revoked")
                #expect(try await keys.revoke(record.id))
                return key
            }
            let order = try await server.createOrder(["plan": "tea-monthly"])
            let secret = try #require(order["clientSecret"]?.stringValue)
            for path in Self.listings {
                for credential in ["", revoked, secret, "psk_" + String(repeating: "0", count: 43), "garbage"] {
                    let (status, body) = try await server.send("GET", path, nil, auth: credential)
                    #expect(status == 401, "\(path) with \(credential.prefix(4))…: \(status)")
                    #expect(body["error"]?["code"] == "unauthorized", "\(path)")
                    #expect(!body.compactText.contains("agr_") && !body.compactText.contains("ord_"), "\(path)")
                }
                let (status, _) = try await server.send("GET", path, nil)
                #expect(status == 200, "\(path) with the merchant key")
            }
        }
    }

    @Test func theConsolePageIsPublicHoldsNothingAndCannotBeFramed() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        for path in ["/console", "/console/console.js", "/console/console.css"] {
            let response = try await server.http.execute(
                HTTPClientRequest(url: server.url + path),
                timeout: .seconds(10)
            )
            #expect(response.status == .ok, "\(path)")
            let policy = response.headers.first(name: "Content-Security-Policy") ?? ""
            #expect(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'"), "\(path)")
            #expect(response.headers.first(name: "X-Content-Type-Options") == "nosniff")
            #expect(response.headers.first(name: "Referrer-Policy") == "no-referrer")
            let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(!text.contains("psk_0") && !text.contains("pcs_"), "\(path)")
        }
        let page = String(
            buffer: try await server.http.execute(
                HTTPClientRequest(url: server.url + "/console"),
                timeout: .seconds(10)
            )
            .body.collect(upTo: 1 << 20)
        )
        #expect(page.contains("Merchant API key") && page.contains("<dialog"))
        // No inline script: the policy allows the page's own files only.
        #expect(!page.contains("<script>"))
    }

    @Test(arguments: TestDatabases.kinds) func listingsAreFilteredAndPagedAndBadFiltersAreRefused(
        kind: String
    )
        async throws
    {
        try await TestServer.inProcess(database: kind) { server in
            let factory = try await server.tokenFactory()
            let paid = try await server.createOrder()
            #expect(try await server.pay(paid, factory: factory).paid)
            let open = try await server.createOrder()
            let paidId = try #require(paid["id"]?.stringValue)
            let openId = try #require(open["id"]?.stringValue)
            func ids(_ query: String) async throws -> [String] {
                let (status, body) = try await server.send("GET", "/v1/orders?" + query, nil)
                #expect(status == 200, "\(query): \(body.compactText)")
                return body["orders"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            }
            #expect(try await ids("status=paid") == [paidId])
            #expect(try await ids("status=created") == [openId])
            let now = server.clockNow
            let hourAgo = Timestamp.text(now.addingTimeInterval(-3600))
            let inAnHour = Timestamp.text(now.addingTimeInterval(3600))
            #expect(try await ids("createdFrom=\(hourAgo)&createdTo=\(inAnHour)") == [openId, paidId])
            #expect(try await ids("createdFrom=\(inAnHour)").isEmpty)
            #expect(try await ids("createdTo=\(hourAgo)").isEmpty)
            // The console's own form: fractional seconds.
            #expect(try await ids("status=paid&createdFrom=2020-01-01T00:00:00.000Z") == [paidId])
            #expect(try await ids("limit=1&before=\(openId)") == [paidId])
            for (query, field) in [
                ("createdFrom=yesterday", "createdFrom"), ("createdTo=2026-13-01T00:00:00Z", "createdTo"),
                ("createdFrom=\(inAnHour)&createdTo=\(hourAgo)", "createdTo"), ("status=lost", "status"),
                ("limit=0", "limit"),
            ] {
                let (status, body) = try await server.send("GET", "/v1/orders?" + query, nil)
                #expect(status == 400, "\(query)")
                #expect(body["error"]?["field"]?.stringValue == field, "\(query): \(body.compactText)")
            }
            let (status, body) = try await server.send("GET", "/v1/reconciliations?before=2026-11-22", nil)
            #expect(status == 400 && body["error"]?["field"] == "before")

            // Agreements, newest first, a page at a time.
            var agreements: [String] = []
            for _ in 0..<2 {
                let plan = try await server.createOrder(["plan": "tea-monthly"])
                #expect(try await server.pay(plan, factory: factory).paid)
                agreements.insert(try #require(plan["agreementId"]?.stringValue), at: 0)
            }
            let (_, first) = try await server.send("GET", "/v1/agreements?limit=1", nil)
            #expect(first["agreements"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [agreements[0]])
            let next = try #require(first["next"]?.stringValue)
            let (_, second) = try await server.send("GET", "/v1/agreements?limit=1&before=\(next)", nil)
            #expect(second["agreements"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [agreements[1]])
            #expect(second["next"] == nil)
            #expect(second["agreements"]?.arrayValue?.first?["status"] == "active")
        }
    }

    /// Every answer the console reads for a paid and refunded order, an agreement and a day's
    /// reconciliation: no card number (device, merchant token or funding), no cryptogram, no
    /// token data, no client secret or key; a card only by its network and last four digits.
    @Test func noConsoleAnswerShowsACardNumberATokenOrASecret() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder()
        #expect(try await server.pay(order, factory: factory).paid)
        let id = try #require(order["id"]?.stringValue)
        #expect(try await server.send("POST", "/v1/orders/\(id)/refunds", #"{"amount":"12.00"}"#, key: "c1").0 == 201)
        #expect(
            try await waitUntil(every: .milliseconds(100)) {
                try await server.order(id)["payments"]?.arrayValue?.last?["state"] == "succeeded"
            }
        )
        let plan = try await server.createOrder(["plan": "tea-monthly"])
        #expect(try await server.pay(plan, factory: factory).paid)
        let agreement = try #require(plan["agreementId"]?.stringValue)
        let day = String(TransactionTime.format(Date()).prefix(8))
        var clock = HTTPClientRequest(url: server.gatewayURL + "/sandbox/clock")
        clock.method = .PUT
        clock.body = .bytes(ByteBuffer(string: #"{"fileOffsetSeconds": 86400}"#))
        #expect(try await server.http.execute(clock, timeout: .seconds(5)).status == .ok)
        #expect(try await server.send("POST", "/v1/reconciliations", #"{"day":"\#(day)"}"#, key: "c2").0 == 201)

        var answers: [String: JSONValue] = [:]
        for path in [
            "/v1/orders", "/v1/orders?status=partially_refunded", "/v1/orders/\(id)",
            "/v1/orders/\(try #require(plan["id"]?.stringValue))", "/v1/agreements", "/v1/agreements/\(agreement)",
            "/v1/reconciliations", "/v1/reconciliations/\(day)",
        ] {
            let (status, body) = try await server.send("GET", path, nil)
            #expect(status == 200, "\(path)")
            answers[path] = body
        }
        // The answers are real: the refund's history, the card's last digits, the day's report.
        let shown = try #require(answers["/v1/orders/\(id)"])
        #expect(shown["refunded"] == "12.00")
        #expect(shown["payments"]?.arrayValue?.last?["history"]?.arrayValue?.isEmpty == false)
        #expect(shown["payments"]?.arrayValue?.first?["card"]?["suffix"]?.stringValue?.count == 4)
        #expect(answers["/v1/reconciliations/\(day)"]?["matched"]?.compactText.isEmpty == false)
        #expect(answers["/v1/agreements"]?["agreements"]?.arrayValue?.count == 1)
        let days = answers["/v1/reconciliations"]?["reconciliations"]?.arrayValue?.map { $0["day"]?.stringValue }
        #expect(days == [day])
        #expect(answers["/v1/reconciliations"]?["reconciliations"]?.arrayValue?.first?["differenceCount"] == 0)
        let (_, earlier) = try await server.send("GET", "/v1/reconciliations?before=\(day)", nil)
        #expect(earlier["reconciliations"]?.arrayValue?.isEmpty == true)

        let secrets =
            try await Self.secrets(of: factory, server: server)
            + [
                try #require(server.secret(id)), try #require(server.secret(plan["id"]?.stringValue ?? "")),
                server.merchantKey,
            ]
        #expect(secrets.count >= 9)
        for (path, body) in answers {
            let text = body.compactText
            for secret in secrets { #expect(!text.contains(secret), "\(path) shows a secret: \(secret.prefix(6))…") }
            #expect(!text.contains("pcs_") && !text.contains("psk_"), "\(path)")
            for value in Self.shownText(body) { #expect(Self.cardLikeRun(in: value) == nil, "\(path): \(value)") }
        }
    }

    /// The detector the test above relies on finds card numbers as people write them.
    @Test func theCardNumberDetectorFindsCardNumbersAndNotIdsOrTimes() {
        for card in ["4111111111111111", "paid with 4111 1111 1111 1111.", "5555-5555-5555-4444", "6212345678901"] {
            #expect(Self.cardLikeRun(in: card) != nil, "\(card)")
        }
        for other in [
            "ord_0193aa4411223344556677889900aabb", "2026-11-22T10:00:00Z", "notification: success for 17350",
            "173.50", "Visa ••••1234", "123456789012", "12345678901234567890",
        ] {
            #expect(Self.cardLikeRun(in: other) == nil, "\(other)")
        }
    }

    /// What the tokens `factory` made hold that must never be shown: each card number (DPAN or
    /// merchant token), cryptogram, encrypted data, signature and transaction identifier.
    static func secrets(of factory: RecordingTokenFactory, server: TestServer) async throws -> [String] {
        let merchant = try SandboxMerchant.loadOrCreate(
            dataFolder: server.data,
            merchantIdentifier: "merchant.dev.paysheet.sandbox"
        )
        let decryptor = PaymentTokenDecryptor(
            keys: MerchantKeyring([merchant]),
            verifier: PaymentTokenVerifier(trust: try SandboxMerchant.pki(dataFolder: server.data).trustAnchors),
            replayGuard: nil
        )
        var secrets: [String] = []
        for token in factory.tokens {
            let decrypted = try await decryptor.decrypt(json: Array(token.paymentData.compactText.utf8)).paymentData
            secrets.append(decrypted.applicationPrimaryAccountNumber)
            if case .threeDSecure(let cryptogram, _) = decrypted.details { secrets.append(cryptogram) }
            secrets += [token.paymentData["data"]?.stringValue, token.paymentData["signature"]?.stringValue]
                .compactMap { $0 }
            if let transaction = token.transactionIdentifier { secrets.append(transaction) }
        }
        return secrets
    }

    /// Members whose values are identifiers or times, not card data: ids (hexadecimal), the
    /// acquirer's transaction identity and reference, the settlement file's name (the merchant id).
    static let identifiers: Set<String> = [
        "id", "orderId", "paymentId", "originalPaymentId", "agreementId", "acquirerOrderId", "acquirerTxnTime",
        "txnTime", "acquirerReference", "reference", "fileName", "next",
    ]

    /// Every string and number of `value` a person reads, identifiers left out.
    static func shownText(_ value: JSONValue, key: String? = nil) -> [String] {
        if let key, identifiers.contains(key) { return [] }
        switch value {
        case .string(let text): return [text]
        case .number(let text): return [text]
        case .array(let elements): return elements.flatMap { shownText($0) }
        case .object(let members): return members.flatMap { shownText($0.value, key: $0.key) }
        case .null, .bool: return []
        }
    }

    /// The first run of 13 to 19 digits in `text` (single spaces or dashes between them count as
    /// one run, as a card number is written), ids such as `ord_0193…` (hexadecimal) left out.
    static func cardLikeRun(in text: String) -> String? {
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map { $0.contains("_") ? "" : $0 }
        let characters = Array(words.joined(separator: " "))
        func isDigit(_ index: Int) -> Bool { index < characters.count && characters[index].isASCIIDigit }
        var run = ""
        for index in 0...characters.count {
            if isDigit(index) {
                run.append(characters[index])
            } else if index < characters.count, characters[index] == " " || characters[index] == "-", !run.isEmpty,
                isDigit(index + 1)
            {
                continue
            } else {
                if (13...19).contains(run.count) { return run }
                run = ""
            }
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
