import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel
import PaysheetToken
import Testing
@testable import PaysheetServer

/// Who may call what: every route × every kind of caller, on SQLite and PostgreSQL, and the
/// attacks that worked before credentials existed.
@Suite(.serialized) struct AccessTests {
    /// One route: method, path (`{id}` is the order), a body that an allowed caller may send, and
    /// who owns it.
    struct Route: Sendable {
        enum Owner: Sendable { case anyone, order, merchant }
        var method: String
        var path: String
        var body: String?
        var owner: Owner
    }

    static let routes: [Route] = [
        Route(method: "GET", path: "/health", body: nil, owner: .anyone),
        Route(method: "GET", path: "/v1/catalog", body: nil, owner: .anyone),
        Route(method: "GET", path: "/metrics", body: nil, owner: .merchant),
        Route(method: "GET", path: "/v1/orders", body: nil, owner: .merchant),
        Route(method: "GET", path: "/v1/orders/{id}", body: nil, owner: .order),
        Route(
            method: "POST",
            path: "/v1/orders/{id}/merchant-session",
            body: #"{"validationURL":"https://apple-pay-gateway-cert.apple.com/paymentservices/startSession"}"#,
            owner: .order
        ),
        Route(
            method: "POST",
            path: "/v1/orders/{id}/shipping-contact",
            body:
                #"{"shippingContact":{"countryCode":"US","administrativeArea":"CA","locality":"Cupertino","postalCode":"95014"}}"#,
            owner: .order
        ),
        Route(
            method: "POST",
            path: "/v1/orders/{id}/shipping-method",
            body: #"{"shippingMethod":{"identifier":"express"}}"#,
            owner: .order
        ),
        Route(
            method: "POST",
            path: "/v1/orders/{id}/payment-method",
            body: #"{"paymentMethod":{"type":"credit"}}"#,
            owner: .order
        ),
        Route(method: "POST", path: "/v1/orders/{id}/coupon-code", body: #"{"couponCode":"WELCOME10"}"#, owner: .order),
        Route(method: "POST", path: "/v1/orders/{id}/authorize", body: #"{}"#, owner: .order),
        Route(method: "POST", path: "/v1/orders/{id}/refunds", body: #"{"amount":"1.00"}"#, owner: .merchant),
        Route(method: "POST", path: "/v1/orders/{id}/void", body: #"{}"#, owner: .merchant),
        Route(method: "POST", path: "/v1/orders/{id}/wallet-order", body: #"{}"#, owner: .merchant),
        Route(method: "POST", path: "/v1/orders/{id}/cancel", body: nil, owner: .order),
        Route(method: "POST", path: "/v1/reconciliations", body: #"{"day":"20260101"}"#, owner: .merchant),
        Route(method: "GET", path: "/v1/reconciliations/20260101", body: nil, owner: .merchant),
    ]

    enum Caller: String, CaseIterable, Sendable {
        case none, merchantKey, revokedKey, thisOrdersSecret, anotherOrdersSecret
    }

    /// The status a refused caller gets, or nil when the call is allowed.
    static func refusal(_ route: Route, _ caller: Caller) -> Int? {
        switch (route.owner, caller) {
        case (.anyone, _), (_, .merchantKey): return nil
        case (.order, .thisOrdersSecret): return nil
        case (.order, .anotherOrdersSecret): return 404
        default: return 401
        }
    }

    @Test(arguments: TestDatabases.kinds) func everyRouteRefusesEveryoneButItsOwner(kind: String) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let revoked = try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) { keys in
                let (record, key) = try await keys.create(name: "to be revoked")
                #expect(try await keys.revoke(record.id))
                return key
            }
            let order = try await server.createOrder()
            let id = try #require(order["id"]?.stringValue)
            let secret = try #require(order["clientSecret"]?.stringValue)
            let other = try await server.createOrder()
            let otherSecret = try #require(other["clientSecret"]?.stringValue)
            #expect(secret.hasPrefix("pcs_") && secret.count >= 4 + 22 && secret != otherSecret)

            func credential(_ caller: Caller) -> String {
                switch caller {
                case .none: return ""
                case .merchantKey: return server.merchantKey
                case .revokedKey: return revoked
                case .thisOrdersSecret: return secret
                case .anotherOrdersSecret: return otherSecret
                }
            }
            /// What a refused call could have changed: the order as the merchant sees it, the list of orders, the acquirer's ledger.
            func state() async throws -> String {
                let (_, o) = try await server.send("GET", "/v1/orders/\(id)", nil)
                let (_, list) = try await server.send("GET", "/v1/orders?limit=100", nil)
                return o.compactText + "|" + String(list["orders"]?.arrayValue?.count ?? -1) + "|"
                    + String(try await server.ledger().count)
            }

            for route in Self.routes {
                let path = route.path.replacingOccurrences(of: "{id}", with: id)
                for caller in Caller.allCases {
                    guard let expected = Self.refusal(route, caller) else { continue }
                    let before = try await state()
                    let idempotencyKey = "matrix-\(UUID().uuidString)"
                    let (status, body) = try await server.send(
                        route.method,
                        path,
                        route.body,
                        key: route.method == "POST" ? idempotencyKey : nil,
                        auth: credential(caller)
                    )
                    #expect(
                        status == expected,
                        "\(route.method) \(route.path) as \(caller): \(status) \(body.compactText)"
                    )
                    #expect(
                        body["error"]?["code"]?.stringValue == (expected == 401 ? "unauthorized" : "not_found"),
                        "\(route.path) as \(caller)"
                    )
                    #expect(try await state() == before, "\(route.method) \(route.path) as \(caller) changed something")
                    // A refused call did not claim its idempotency key: the owner may use it for another body.
                    if route.method == "POST", route.owner != .anyone {
                        let (ownerStatus, _) = try await server.send(
                            route.method,
                            path,
                            route.body.map { $0 + " " } ?? "{}",
                            key: idempotencyKey
                        )
                        #expect(
                            ownerStatus != 422 && ownerStatus != 401,
                            "\(route.path): the refused call's key was kept (\(ownerStatus))"
                        )
                    }
                }
            }
            // The allowed callers are served (not 401 or 404; a body the route cannot use is a 400 or 409 after the credential was accepted).
            let fresh = try await server.createOrder()
            let freshId = try #require(fresh["id"]?.stringValue)
            let freshSecret = try #require(fresh["clientSecret"]?.stringValue)
            for route in Self.routes where route.owner != .merchant {
                let path = route.path.replacingOccurrences(of: "{id}", with: freshId)
                let (status, body) = try await server.send(
                    route.method,
                    path,
                    route.body,
                    auth: route.owner == .order ? freshSecret : ""
                )
                #expect(
                    ![401, 403, 404].contains(status) && status < 500,
                    "\(route.path) with the order's secret: \(status) \(body.compactText)"
                )
            }
            for route in Self.routes {
                let path = route.path.replacingOccurrences(of: "{id}", with: freshId)
                let (status, body) = try await server.send(route.method, path, route.body)
                #expect(
                    ![401, 403, 404].contains(status) && status < 500,
                    "\(route.path) with the merchant key: \(status) \(body.compactText)"
                )
            }
        }
    }

    @Test func theShopperSeesItsOrderWithoutTheAcquirersIdentifiersOrHistory() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder()
        let id = try #require(order["id"]?.stringValue)
        let secret = try #require(server.secret(id))
        // 96 random bits after the time prefix: ord_ + 12 + 24 hexadecimal digits.
        #expect(id.count == 4 + 12 + 24)
        #expect(try await server.pay(order, factory: factory).paid)
        let (status, shopper) = try await server.send("GET", "/v1/orders/\(id)", nil, auth: secret)
        #expect(status == 200)
        #expect(shopper["status"] == "paid")
        let charge = try #require(shopper["payments"]?.arrayValue?.first)
        #expect(charge["card"]?["suffix"] == "4321")
        for hidden in ["acquirerOrderId", "acquirerTxnTime", "acquirerReference", "resultCode", "history"] {
            #expect(charge[hidden] == nil, "\(hidden) shown to the shopper")
        }
        #expect(shopper["clientSecret"] == nil)
        let (_, merchant) = try await server.send("GET", "/v1/orders/\(id)", nil)
        #expect(merchant["payments"]?.arrayValue?.first?["acquirerOrderId"]?.stringValue != nil)
        #expect(merchant["payments"]?.arrayValue?.first?["history"]?.arrayValue?.isEmpty == false)
        // Every answer says the mode.
        var r = HTTPClientRequest(url: server.url + "/v1/orders/\(id)")
        r.headers.add(name: "Authorization", value: "Bearer " + secret)
        #expect(
            try await server.http.execute(r, timeout: .seconds(5)).headers.first(name: "Paysheet-Mode") == "sandbox"
        )
        let unauthorized = try await server.http.execute(
            HTTPClientRequest(url: server.url + "/v1/orders/\(id)"),
            timeout: .seconds(5)
        )
        #expect(unauthorized.status.code == 401)
        #expect(unauthorized.headers.first(name: "Paysheet-Mode") == "sandbox")
    }

    @Test func aShopperCannotPriceAnythingAndIsGivenTheMerchantsPrices() async throws {
        try await TestServer.inProcess { server in
            func orderCount() async throws -> Int {
                try await server.send("GET", "/v1/orders?limit=100", nil).1["orders"]?.arrayValue?.count ?? -1
            }
            let before = try await orderCount()
            // The attack: a tea set for 0.01 CNY, written by the shopper.
            let (cheap, cheapBody) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","countryCode":"CN","lineItems":[{"label":"Porcelain tea set","amount":"0.01"}]}"#,
                auth: ""
            )
            #expect(cheap == 401)
            #expect(cheapBody["error"]?["message"]?.stringValue?.contains("merchant API key") == true)
            // Client-priced express shipping.
            let (shipping, _) = try await server.send(
                "POST",
                "/v1/orders",
                """
                {"currencyCode":"CNY","lineItems":[{"sku":"tea-set"}],
                 "shippingMethods":[{"label":"Express","detail":"Next day","amount":"0.00","identifier":"express"}]}
                """,
                auth: ""
            )
            #expect(shipping == 401)
            // A mixed cart (a catalog line and a priced one) is refused whole.
            let (mixed, _) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","lineItems":[{"sku":"tea-set"},{"sku":"green-tea","label":"Green tea","amount":"0.01"}]}"#,
                auth: ""
            )
            #expect(mixed == 401)
            #expect(try await orderCount() == before)
            // What a shopper may send: catalog lines and a delivery choice, priced by the merchant's settings.
            let (created, order) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","lineItems":[{"sku":"tea-set","quantity":2}],"delivery":"ship"}"#,
                auth: ""
            )
            #expect(created == 201)
            #expect(order["amount"] == "256.00")
            #expect(
                order["paymentRequest"]?["shippingMethods"]?.arrayValue?.map { $0["amount"]?.stringValue ?? "" } == [
                    "0.00", "20.00",
                ]
            )
            #expect(order["clientSecret"]?.stringValue?.hasPrefix("pcs_") == true)
            let id = try #require(order["id"]?.stringValue)
            let secret = try #require(order["clientSecret"]?.stringValue)
            let (_, express) = try await server.send(
                "POST",
                "/v1/orders/\(id)/shipping-method",
                #"{"shippingMethod":{"identifier":"express"}}"#,
                auth: secret
            )
            #expect(express["newTotal"]?["amount"] == "276.00")
            // A shopper's order is from the merchant's country.
            let (elsewhere, _) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","countryCode":"US","lineItems":[{"sku":"tea-set"}]}"#,
                auth: ""
            )
            #expect(elsewhere == 400)
        }
    }

    @Test func noOneButTheMerchantRefundsOrVoidsAPaidOrder() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder([
                "currencyCode": "CNY", "countryCode": "CN", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            let id = try #require(order["id"]?.stringValue)
            let secret = try #require(server.secret(id))
            #expect(try await server.pay(order, factory: factory).paid)
            let ledger = try await server.ledger().count
            for auth in ["", secret, "psk_0000000000000000_" + String(repeating: "A", count: 43), "Basic abc"] {
                #expect(
                    try await server.send("POST", "/v1/orders/\(id)/refunds", #"{"amount":"30.00"}"#, auth: auth).0
                        == 401
                )
                #expect(try await server.send("POST", "/v1/orders/\(id)/void", nil, auth: auth).0 == 401)
            }
            #expect(try await server.ledger().count == ledger)
            #expect(try await server.order(id)["status"] == "paid")
            let (refunded, _) = try await server.send("POST", "/v1/orders/\(id)/refunds", #"{"amount":"30.00"}"#)
            #expect(refunded == 201)
        }
    }

    @Test func aRevokedKeyIsRefusedEverywhereAtOnce() async throws {
        try await TestServer.inProcess { server in
            let (record, key) = try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) {
                try await $0.create(name: "rotating")
            }
            #expect(key.hasPrefix("psk_"))
            #expect(try await server.send("GET", "/v1/orders", nil, auth: key).0 == 200)
            let listed = try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) {
                try await $0.list()
            }
            #expect(listed.contains { $0.id == record.id && $0.revokedAt == nil })
            _ = try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) {
                try await $0.revoke(record.id)
            }
            #expect(try await server.send("GET", "/v1/orders", nil, auth: key).0 == 401)
            // A key is stored only as a hash.
            let dump = try String(contentsOfFile: server.data + "/paysheet.sqlite", encoding: .isoLatin1)
            let wal = (try? String(contentsOfFile: server.data + "/paysheet.sqlite-wal", encoding: .isoLatin1)) ?? ""
            #expect(!(dump + wal).contains(String(key.suffix(43))))
            #expect((dump + wal).contains(Secrets.hash(key)))
        }
    }

    @Test func theDatabaseFileIsReadableByItsOwnerOnly() async throws {
        try await TestServer.inProcess { server in
            _ = try await server.createOrder()
            for file in ["paysheet.sqlite", "paysheet.sqlite-wal"] {
                let attributes = try FileManager.default.attributesOfItem(atPath: server.data + "/" + file)
                #expect(
                    (attributes[.posixPermissions] as? Int) == 0o600,
                    "\(file): \(String(describing: attributes[.posixPermissions]))"
                )
            }
        }
    }

    @Test func secretsCompareByteForByte() {
        #expect(constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        let secret = AccessPolicy.newClientSecret()
        #expect(Secrets.matches(secret, storedHash: Secrets.hash(secret)))
        #expect(!Secrets.matches(secret + "x", storedHash: Secrets.hash(secret)))
        // 256 random bits: no two alike in a thousand.
        #expect(Set((0..<1000).map { _ in AccessPolicy.newClientSecret() }).count == 1000)
    }

    /// The `Authorization` header read in place agrees with Foundation's `lowercased()` and
    /// `trimmingCharacters(in: .whitespaces)`, which it calls only when the text needs them.
    @Test func theCredentialIsReadAsFoundationWouldReadIt() {
        let schemes = [
            "Bearer", "bearer", "BEARER", "bEaReR", "Bearer2", "Beare", "Basic", "B\u{e9}arer", "BEARE\u{212A}",
            "bearerr",
        ]
        for scheme in schemes {
            #expect(Credential.isBearer(Substring(scheme)) == (scheme.lowercased() == "bearer"), "\(scheme)")
        }
        let values = [
            "psk_abc", " psk_abc", "psk_abc ", "\tpcs_x\t", "pcs_x\u{a0}", "\u{3000}psk_a", "p\u{e9}k", "a", " ",
            "\t \t",
            "psk_a b",
        ]
        for value in values {
            #expect(Credential.trimmed(Substring(value)) == value.trimmingCharacters(in: .whitespaces), "\(value)")
        }
    }
}
