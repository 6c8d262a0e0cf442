import Foundation
import PaysheetModel
import Testing
import UnionPay

@testable import PaysheetServer

/// Finding 13, agreements: the shopper's agreement view (the first order's
/// client secret) shows `startedAt` (the first charge's creation, to the second: its txnTime) and
/// each merchant-initiated charge's order id, whose time prefix is that charge's creation (its
/// txnTime, to the millisecond). It failed until the shopper's view gave dates to the day and no
/// charge order ids.
extension ShopperViewAttackTests {
    @Test func theShoppersAgreementViewTellsNoTransactionTime() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder(["plan": "tea-monthly"])
        let orderId = try #require(order["id"]?.stringValue)
        let agreementId = try #require(order["agreementId"]?.stringValue)
        let secret = try #require(server.secret(orderId))
        server.advanceClock(by: 10)
        #expect(try await server.pay(order, factory: factory).paid)
        server.advanceClock(by: 40 * 86_400)
        let (charged, _) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(charged == 201 || charged == 200)
        let (status, shopper) = try await server.send("GET", "/v1/agreements/\(agreementId)", nil, auth: secret)
        #expect(status == 200)
        let seen = Self.strings(shopper) + Self.strings(order)
        var txnTimes: [String] = []
        // The charges' orders, as the merchant sees them (the shopper's view names none).
        let (_, merchantView) = try await server.send("GET", "/v1/agreements/\(agreementId)", nil)
        #expect(shopper["charges"]?.arrayValue?.allSatisfy { $0["orderId"] == nil } == true)
        for id in [orderId] + (merchantView["charges"]?.arrayValue?.compactMap { $0["orderId"]?.stringValue } ?? []) {
            let (_, merchant) = try await server.send("GET", "/v1/orders/\(id)", nil)
            txnTimes += merchant["payments"]?.arrayValue?.compactMap { $0["acquirerTxnTime"]?.stringValue } ?? []
        }
        #expect(txnTimes.count >= 2)
        for txnTime in txnTimes {
            #expect(!Self.txnTimes(from: seen).contains(txnTime), "txnTime \(txnTime) in the shopper's agreement view")
        }
    }
}
