import Foundation
import PaysheetModel
import Testing
@testable import PaysheetServer

/// The shopper's cancel (the sheet dismissed, or its 30 s deadline): no money is kept for an
/// order the shopper canceled, and a canceled order takes no payment.
@Suite(.serialized) struct CancelTests {
    func order(_ server: TestServer) async throws -> (id: String, secret: String, json: JSONValue) {
        let order = try await server.createOrder([
            "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
        ])
        let id = try #require(order["id"]?.stringValue)
        return (id, try #require(server.secret(id)), order)
    }

    /// Waits until the order's status is `status` (or 60 s pass); returns the merchant's view.
    func settle(_ server: TestServer, _ id: String, to status: String) async throws -> JSONValue {
        try await waitUntil(every: .milliseconds(100)) { try await server.order(id)["status"]?.stringValue == status }
        return try await server.order(id)
    }

    @Test(arguments: TestDatabases.kinds) func withNoChargeTheOrderEndsCanceledAndTakesNoPayment(
        kind: String
    ) async throws {
        let server = try await TestServer.start(database: kind)
        defer { Task { await server.stop() } }
        let (id, secret, json) = try await order(server)
        let (status, canceled) = try await server.send("POST", "/v1/orders/\(id)/cancel", nil, auth: secret)
        #expect(status == 200)
        #expect(canceled["status"] == "canceled")
        // Again: the same answer (a page may send its cancel twice).
        #expect(try await server.send("POST", "/v1/orders/\(id)/cancel", nil, auth: secret).1["status"] == "canceled")
        // No later authorization, no change to its summary.
        let sheet = try await server.pay(json, factory: try await server.tokenFactory())
        #expect(await !sheet.paid)
        #expect(
            try await server.send("POST", "/v1/orders/\(id)/coupon-code", #"{"couponCode":"WELCOME10"}"#, auth: secret)
                .0 == 409
        )
        #expect(try await server.ledger().isEmpty)
        // Another order's secret cannot cancel it, nor can anyone without one.
        let other = try await order(server)
        #expect(try await server.send("POST", "/v1/orders/\(other.id)/cancel", nil, auth: secret).0 == 404)
        #expect(try await server.send("POST", "/v1/orders/\(other.id)/cancel", nil, auth: "").0 == 401)
        #expect(try await server.order(other.id)["status"] == "created")
    }

    @Test(arguments: TestDatabases.kinds) func aChargeInFlightThatSucceedsIsVoidedAndTheOrderEndsCanceled(
        kind: String
    ) async throws {
        let server = try await TestServer.start(database: kind)
        defer { Task { await server.stop() } }
        // The charge is held in processing until the cancel has been answered, then succeeds, its
        // notification lost: the query schedule settles it.
        try await server.setFaults(#"{"holdCharges": 1, "dropNotification": 1}"#)
        let (id, secret, json) = try await order(server)
        let paying = try await server.payInBackground(json, wallet: .default, card: 0)
        try await server.waitForHeldCharges()
        let (status, answer) = try await server.send("POST", "/v1/orders/\(id)/cancel", nil, auth: secret)
        #expect(status == 200)
        #expect(answer["status"] == "canceling")
        #expect(try await server.releaseCharges() == 1)
        _ = try? await paying.value
        let final = try await settle(server, id, to: "canceled")
        #expect(final["status"] == "canceled")
        let payments = final["payments"]?.arrayValue ?? []
        #expect(payments.map { $0["kind"]?.stringValue ?? "" } == ["charge", "void"])
        #expect(payments.allSatisfy { $0["state"] == "succeeded" })
        #expect(
            payments.last?["history"]?.arrayValue?.first?["cause"]?.stringValue?.contains("the order was canceled")
                == true
        )
        // The acquirer agrees: one consume, voided in full.
        let ledger = try await server.ledger().filter { $0["respCode"] == "00" }
        #expect(ledger.map { $0["txnType"]?.stringValue ?? "" }.sorted() == ["01", "31"])
        #expect(Set(ledger.map { $0["amount"] }).count == 1)
    }

    @Test func aChargeInFlightThatIsDeclinedLeavesTheOrderCanceledWithNothingToReturn() async throws {
        try await TestServer.inProcess { server in
            // Declined by the issuer once the cancel has been answered (held in processing until then).
            try await server.setFaults(#"{"holdCharges": 1, "dropNotification": 1}"#)
            let (id, secret, json) = try await order(server)
            let paying = try await server.payInBackground(json, wallet: .withTestCards(["0064"]), card: 1)
            try await server.waitForHeldCharges()
            #expect(try await server.send("POST", "/v1/orders/\(id)/cancel", nil, auth: secret).0 == 200)
            #expect(try await server.releaseCharges() == 1)
            #expect(try await !paying.value)
            let final = try await settle(server, id, to: "canceled")
            #expect(final["status"] == "canceled")
            #expect(final["payments"]?.arrayValue?.map { $0["kind"]?.stringValue ?? "" } == ["charge"])
            #expect(try await server.ledger().filter { $0["respCode"] == "00" }.isEmpty)
        }
    }

    @Test func aPaidOrderIsCanceledByItsShopperOnlyRightAfterTheChargeAndByTheMerchantAnyTime() async throws {
        // The window is long (a loaded machine takes its time between a charge and the cancel);
        // its end is reached by moving the server's clock, not by waiting.
        let server = try await TestServer.start { $0.shopperCancelWindow = 60 }
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        // Right after the charge (the sheet timed out while the answer was on its way): voided.
        let (id, secret, json) = try await order(server)
        #expect(try await server.pay(json, factory: factory).paid)
        #expect(try await server.send("POST", "/v1/orders/\(id)/cancel", nil, auth: secret).0 == 200)
        #expect(try await settle(server, id, to: "canceled")["status"] == "canceled")
        // The merchant cancels a partly refunded order: the rest is refunded (a void is for whole charges).
        let second = try await order(server)
        #expect(try await server.pay(second.json, factory: factory).paid)
        #expect(try await server.send("POST", "/v1/orders/\(second.id)/refunds", #"{"amount":"30.00"}"#).0 == 201)
        #expect(try await server.send("POST", "/v1/orders/\(second.id)/cancel", nil).0 == 200)
        let final = try await settle(server, second.id, to: "canceled")
        #expect(final["status"] == "canceled")
        #expect(final["refunded"] == "100.00")
        #expect(final["payments"]?.arrayValue?.map { $0["kind"]?.stringValue ?? "" } == ["charge", "refund", "refund"])
        // Past the window, the shopper's cancel of a paid order is refused and nothing changes.
        let third = try await order(server)
        #expect(try await server.pay(third.json, factory: factory).paid)
        server.advanceClock(by: 61)
        let (late, body) = try await server.send("POST", "/v1/orders/\(third.id)/cancel", nil, auth: third.secret)
        #expect(late == 409)
        #expect(body["error"]?["message"]?.stringValue?.contains("ask the merchant") == true)
        #expect(try await server.order(third.id)["status"] == "paid")
    }
}
