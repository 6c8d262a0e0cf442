import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel
import Testing

@testable import PaysheetServer

/// Findings 6 and 12 of the audit: anonymous callers grew the database without limit (orders
/// that never expire, 199 orders a second from one client, 24.5 KiB each), and coupon codes could
/// be guessed without limit.
@Suite struct AnonymousGrowthTests {
    static let catalogOrder = #"{"currencyCode":"CNY","lineItems":[{"sku":"green-tea","quantity":2}]}"#

    /// A POST with its status, `Retry-After` and body.
    func post(
        _ server: TestServer,
        _ path: String,
        _ body: String,
        auth: String = ""
    ) async throws
        -> (status: UInt, retryAfter: String?, body: JSONValue)
    {
        var request = HTTPClientRequest(url: server.url + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if !auth.isEmpty { request.headers.add(name: "Authorization", value: "Bearer " + auth) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await server.http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (
            response.status.code, response.headers.first(name: "Retry-After"),
            (try? JSONParser.parse(Array(buffer: bytes))) ?? .null
        )
    }

    @Test func oneClientsAnonymousOrdersAreRateLimitedAndAMerchantsAreNot() async throws {
        let server = try await TestServer.start { $0.limits.anonymousOrdersPerMinute = 5 }
        defer { Task { await server.stop() } }
        for _ in 0..<5 { #expect(try await post(server, "/v1/orders", Self.catalogOrder).status == 201) }
        let refused = try await post(server, "/v1/orders", Self.catalogOrder)
        #expect(refused.status == 429)
        #expect(refused.body["error"]?["code"] == "rate_limited")
        let retryAfter = try #require(refused.retryAfter.flatMap(Int.init))
        #expect((1...60).contains(retryAfter))
        // The merchant's back end (its key) is not limited.
        #expect(try await post(server, "/v1/orders", Self.catalogOrder, auth: server.merchantKey).status == 201)
        // After the minute, the client may create orders again.
        server.advanceClock(by: 61)
        #expect(try await post(server, "/v1/orders", Self.catalogOrder).status == 201)
    }

    @Test(arguments: TestDatabases.kinds) func anOrderThatTakesNoPaymentExpiresAndIsDeleted(kind: String) async throws {
        let server = try await TestServer.start(database: kind) {
            $0.limits.orderLifetime = 600
            $0.limits.purgeInterval = 0.1
        }
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        let unpaid = try await server.createOrder()
        let unpaidId = try #require(unpaid["id"]?.stringValue)
        let paid = try await server.createOrder()
        let paidId = try #require(paid["id"]?.stringValue)
        _ = try await server.pay(paid, factory: factory)
        #expect(try await server.order(paidId)["status"] == "paid")

        let secret = try #require(unpaid["clientSecret"]?.stringValue)
        server.advanceClock(by: 601)
        // Expired: it takes no payment and no sheet change.
        let (status, body) = try await server.send(
            "POST",
            "/v1/orders/\(unpaidId)/shipping-method",
            #"{"shippingMethod":{"identifier":"standard"}}"#,
            auth: secret
        )
        #expect(status == 410 || status == 404, "\(status) \(body)")
        // And it is deleted (the purge runs every 0.1 s; the bound is only a limit on waiting).
        #expect(try await waitUntil { try await server.send("GET", "/v1/orders/\(unpaidId)", nil).0 == 404 })
        #expect(try await server.order(paidId)["status"] == "paid")  // a paid order is kept
    }

    @Test func anOrdersStoredSizeIsBoundedAndARefusedOneLeavesNothing() async throws {
        try await TestServer.inProcess(configure: { $0.limits.maxOrderBytes = 8_192 }) { server in
            // A shopper's order names at most 20 lines.
            let many = (0..<21).map { _ in #"{"sku":"green-tea","quantity":1}"# }.joined(separator: ",")
            let (tooMany, manyBody) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","lineItems":[\#(many)]}"#,
                auth: ""
            )
            #expect(tooMany == 400, "\(manyBody)")
            // A merchant's order is bounded by its stored size.
            let label = String(repeating: "长", count: 40)  // 120 bytes
            let lines = (0..<100).map { #"{"label":"\#(label) \#($0)","amount":"1.00"}"# }.joined(separator: ",")
            let before = try await server.send("GET", "/v1/orders?limit=100", nil).1["orders"]?.arrayValue?.count
            let (status, body) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","countryCode":"CN","lineItems":[\#(lines)]}"#
            )
            #expect(status == 413 && body["error"]?["code"] == "order_too_large", "\(status) \(body)")
            let after = try await server.send("GET", "/v1/orders?limit=100", nil).1["orders"]?.arrayValue?.count
            #expect(before == after)
        }
    }

    @Test func couponCodesCannotBeGuessedThroughOneOrderOrFromOneClient() async throws {
        let server = try await TestServer.start {
            $0.limits.couponAttemptsPerOrder = 3
            $0.limits.couponAttemptsPerMinute = 6
        }
        defer { Task { await server.stop() } }
        let order = try await server.createOrder()
        let id = try #require(order["id"]?.stringValue)
        let secret = try #require(order["clientSecret"]?.stringValue)
        for guess in ["AAAA", "BBBB", "CCCC"] {
            let answer = try await post(
                server,
                "/v1/orders/\(id)/coupon-code",
                #"{"couponCode":"\#(guess)"}"#,
                auth: secret
            )
            #expect(answer.status == 200)
            #expect(answer.body.compactText.contains("couponCodeInvalid"))
        }
        // The fourth code, even a valid one, is not tried on this order.
        let fourth = try await post(server, "/v1/orders/\(id)/coupon-code", #"{"couponCode":"HALF"}"#, auth: secret)
        #expect(fourth.status == 429)
        #expect(fourth.body["error"]?["code"] == "coupon_attempts_exceeded")
        // Fresh orders do not reset the client's own rate: four attempts so far, two more allowed.
        var statuses: [UInt] = []
        for _ in 0..<3 {
            let next = try await server.createOrder()
            let nextId = try #require(next["id"]?.stringValue)
            let nextSecret = try #require(next["clientSecret"]?.stringValue)
            statuses.append(
                try await post(server, "/v1/orders/\(nextId)/coupon-code", #"{"couponCode":"DDDD"}"#, auth: nextSecret)
                    .status
            )
        }
        #expect(statuses == [200, 200, 429])
    }
}
