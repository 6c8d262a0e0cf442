import Foundation
import PaysheetModel
import Testing

@testable import PaysheetServer

/// Findings 2, 7 and 8 of the audit: a shopper's client secret stored in clear in the idempotency
/// table and replayed to anyone with the same key and body; a refused request storing its key;
/// one namespace of keys for every caller.
@Suite struct IdempotencyAttackTests {
    /// Every stored key, fingerprint and answer, as text.
    func storedKeys(_ server: TestServer) async throws -> [String] {
        try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) { keys in
            try await keys.store.database.read("SELECT key, fingerprint, response FROM idempotency_keys", []).map {
                [try $0.text("key") ?? "", try $0.text("fingerprint") ?? "", try $0.text("response") ?? ""]
                    .joined(separator: "|")
            }
        }
    }

    func secondMerchantKey(_ server: TestServer) async throws -> String {
        try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) {
            try await $0.create(name: "another back end").key
        }
    }

    static let catalogOrder = #"{"currencyCode":"CNY","lineItems":[{"sku":"green-tea","quantity":2}]}"#

    @Test(arguments: TestDatabases.kinds) func noSecretIsStoredAndOnlyItsCallerHasItReplayed(kind: String) async throws
    {
        try await TestServer.inProcess(database: kind) { server in
            let key = "order-\(UUID().uuidString)"
            // A shopper's page (no credential) and the merchant's back end, each with the same key.
            let (created, first) = try await server.send("POST", "/v1/orders", Self.catalogOrder, key: key, auth: "")
            #expect(created == 201)
            let secret = try #require(first["clientSecret"]?.stringValue)
            // Stored: neither the secret nor the key in clear.
            let storedFirst = try await storedKeys(server).joined(separator: "\n")
            #expect(!storedFirst.isEmpty)
            #expect(
                !storedFirst.contains(secret) && !storedFirst.contains(key) && !storedFirst.contains("clientSecret")
            )
            let (merchantCreated, merchantOrder) = try await server.send(
                "POST",
                "/v1/orders",
                Self.catalogOrder,
                key: key
            )
            #expect(merchantCreated == 201)
            let merchantSecret = try #require(merchantOrder["clientSecret"]?.stringValue)
            #expect(merchantOrder["id"] != first["id"])  // another caller: another order, not a replay

            let stored = try await storedKeys(server).joined(separator: "\n")
            #expect(stored.count > 0)
            for secret in [secret, merchantSecret, key] {
                #expect(!stored.contains(secret), "\(secret) stored in clear")
            }
            #expect(!stored.contains("clientSecret"))

            // The caller that made it, again: the same answer, its secret included.
            let (again, replayed) = try await server.send("POST", "/v1/orders", Self.catalogOrder, key: key, auth: "")
            #expect(again == 201)
            #expect(replayed["id"] == first["id"])
            #expect(replayed["clientSecret"]?.stringValue == secret)
            // Another merchant key with the same key and body: its own order, never the first's secret.
            let other = try await secondMerchantKey(server)
            let (otherStatus, otherOrder) = try await server.send(
                "POST",
                "/v1/orders",
                Self.catalogOrder,
                key: key,
                auth: other
            )
            #expect(otherStatus == 201)
            #expect(otherOrder["id"] != merchantOrder["id"])
            #expect(otherOrder["clientSecret"]?.stringValue != merchantSecret)
        }
    }

    @Test(arguments: TestDatabases.kinds) func aRefusedRequestKeepsNothingNotEvenItsKey(kind: String) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let key = "refused-\(UUID().uuidString)"
            let refused = #"{"currencyCode":"CNY","lineItems":[{"label":"Tea","amount":"-1.00"}]}"#
            let (status, _) = try await server.send("POST", "/v1/orders", refused, key: key)
            #expect(status == 400)
            #expect(try await storedKeys(server).isEmpty)
            // The same key with a request that is carried out: not "used with a different request".
            let (created, _) = try await server.send("POST", "/v1/orders", Self.catalogOrder, key: key)
            #expect(created == 201)
            #expect(try await storedKeys(server).count == 1)
        }
    }

    @Test(arguments: TestDatabases.kinds) func oneCallersKeyNeitherBlocksNorRevealsAnothers(kind: String) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let key = "shared-\(UUID().uuidString)"
            let other = try await secondMerchantKey(server)
            let (first, _) = try await server.send("POST", "/v1/orders", Self.catalogOrder, key: key)
            #expect(first == 201)
            // Another merchant key, the same Idempotency-Key, another body: its own request.
            let tea = #"{"currencyCode":"CNY","lineItems":[{"sku":"green-tea","quantity":1}]}"#
            let (second, _) = try await server.send("POST", "/v1/orders", tea, key: key, auth: other)
            #expect(second == 201)
            // Shoppers of two orders, each with the same key on its own order.
            var statuses: [Int] = []
            for _ in 0..<2 {
                let order = try await server.createOrder()
                let id = try #require(order["id"]?.stringValue)
                let secret = try #require(order["clientSecret"]?.stringValue)
                let (status, _) = try await server.send(
                    "POST",
                    "/v1/orders/\(id)/shipping-method",
                    #"{"shippingMethod":{"identifier":"standard"}}"#,
                    key: key,
                    auth: secret
                )
                statuses.append(status)
            }
            #expect(statuses[0] == statuses[1])
            #expect(!statuses.contains(422))
        }
    }
}
