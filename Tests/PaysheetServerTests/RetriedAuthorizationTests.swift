import Foundation
import PaysheetModel
import PaysheetSheet
import Testing
@testable import PaysheetServer

/// An authorization presented again with a token that already made a charge of its order — a
/// client retrying after the answer was lost, without an idempotency key or after a server error
/// — is answered with that charge's outcome, as the first answer would have been; nothing is
/// charged twice, and a token that made no charge of this order still meets the order's refusal.
@Suite struct RetriedAuthorizationTests {
    static func body(_ token: ApplePayPaymentToken) throws -> String {
        let payment = ApplePayPayment(token: token, shippingContact: Wallet.default.shippingContacts[0])
        return try JSONValue.object(["payment": JSONValueEncoder().encode(payment)]).compactText
    }

    static func message(_ answer: JSONValue) -> JSONValue? {
        answer["result"]?["errors"]?.arrayValue?.first?["message"]
    }

    @Test(arguments: TestDatabases.kinds) func eachTokenAgainIsAnsweredWithTheOutcomeOfItsOwnCharge(
        kind: String
    ) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder()
            let other = try await server.createOrder()
            let id = try #require(order["id"]?.stringValue)
            // The first card is declined by its issuer (insufficient funds), the second pays.
            let wallet = Wallet.withTestCards(["0064"])
            let declined = try await server.pay(order, wallet: wallet, card: 1, factory: factory)
            #expect(await !declined.paid)
            let declinedToken = try #require(factory.tokens.last)
            let paid = try await server.pay(order, wallet: wallet, card: 0, factory: factory)
            #expect(await paid.paid)
            let paidToken = try #require(factory.tokens.last)
            let charges = try #require(try await server.order(id)["payments"]?.arrayValue)
            #expect(charges.count == 2)
            let paidCharge = try #require(charges.first { $0["state"] == "succeeded" })
            let otherSheet = try await server.pay(other, factory: factory)
            #expect(await otherSheet.paid)
            let otherToken = try #require(factory.tokens.last)
            let consumes = try await server.ledger().filter { $0["txnType"] == "01" }.count

            // The paying token again: its success, with the charge that made it.
            let (status, again) = try await server.send("POST", "/v1/orders/\(id)/authorize", Self.body(paidToken))
            #expect(status == 200)
            #expect(again["result"]?["status"] == 0)
            #expect(again["order"]?["status"] == "paid")
            let answered = again["order"]?["payments"]?.arrayValue ?? []
            #expect(answered.contains { $0["id"] == paidCharge["id"] && $0["state"] == "succeeded" })
            // The declined token again: its decline, not a refusal of the order.
            let (declinedStatus, declinedAgain) = try await server.send(
                "POST",
                "/v1/orders/\(id)/authorize",
                Self.body(declinedToken)
            )
            #expect(declinedStatus == 200)
            #expect(declinedAgain["result"]?["status"] == 1)
            #expect(Self.message(declinedAgain) == "Insufficient funds")

            // A token made for another order (which it paid): the paid order's refusal stands.
            let (refusedStatus, refused) = try await server.send(
                "POST",
                "/v1/orders/\(id)/authorize",
                Self.body(otherToken)
            )
            #expect(refusedStatus == 409)
            #expect(refused["error"]?["code"] == "conflict")

            // Nothing charged again: two charges still, one paid; the sandbox saw no new consume.
            let after = try await server.order(id)
            #expect(after["payments"]?.arrayValue?.count == 2)
            #expect(after["status"] == "paid")
            #expect(try await server.ledger().filter { $0["txnType"] == "01" }.count == consumes)
        }
    }

    @Test func aTokenWhoseSignatureDoesNotVerifyIsNotAnsweredForThePaidOrder() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder()
            let id = try #require(order["id"]?.stringValue)
            #expect(try await server.pay(order, factory: factory).paid)
            var token = try #require(factory.tokens.last)
            // The same header (its transactionId) with another signature: not Apple's, not answered.
            guard case .object(var data) = token.paymentData, let signature = data["signature"]?.stringValue else {
                Issue.record("the sandbox token has no signature")
                return
            }
            data["signature"] = .string(String(signature.reversed()))
            token.paymentData = .object(data)
            let (status, answer) = try await server.send("POST", "/v1/orders/\(id)/authorize", Self.body(token))
            #expect(status == 409)
            #expect(answer["result"] == nil)
        }
    }

    /// The same token twice at once — a client that sent its authorization again before the first
    /// answer came back — charges once, and both requests are answered with that charge's
    /// outcome. The interleaving is driven, not timed: the second request acts on the order as it
    /// was read before the first one's charge committed (handed to the service as its first look),
    /// and the sandbox holds the charge in processing until both requests wait for it. On SQLite
    /// the second meets the token's first use at its own commit (the retried-authorization path
    /// and its re-read); on PostgreSQL the order's change first (a look again, then the order's
    /// in-flight gate). Either way: one charge, one consume, the same answer twice.
    @Test(arguments: TestDatabases.kinds) func oneTokenTwiceAtOnceChargesOnceAndBothAreAnsweredWithIt(
        kind: String
    ) async throws {
        try await TestServer.inProcess(database: kind, configure: { $0.authorizeWait = 120 }) { server in
            let service = try #require(server.payments)
            try await server.setFaults(#"{"seed":3,"holdCharges":1}"#)
            let factory = try await server.tokenFactory()
            let (id, _, body) = try await server.orderWithAuthorizeBody(factory)
            let payment = try decodeJSONValue(
                ApplePayPayment.self,
                from: try #require(try JSONParser.parse(Array(body.utf8))["payment"])
            )
            let before = try #require(try await service.store.orderAndPayments(id))
            #expect(before.1.isEmpty)

            let first = Task { try await service.authorize(orderId: id, payment: payment) }
            try await server.waitForHeldCharges()
            let charge = try #require(try await service.store.orderAndPayments(id)?.1.first)
            let second = Task { try await service.authorize(orderId: id, payment: payment, preloaded: before) }
            // Both wait for the charge in flight before the acquirer settles it.
            let bothWaiting = try await waitUntil { await service.waiters.watching(charge.id) >= 2 }
            #expect(bothWaiting, "the second authorization never waited for the first one's charge")
            #expect(try await server.releaseCharges() == 1)

            let answers = [try await first.value, try await second.value]
            for answer in answers {
                #expect(answer.result.status == ApplePayStatus.success.rawValue)
                #expect(answer.order.status == .paid)
                #expect(answer.payment?.id == charge.id)
            }
            let after = try await server.order(id)
            #expect(after["status"] == "paid")
            #expect(after["payments"]?.arrayValue?.count == 1)
            #expect(try await server.ledger().filter { $0["txnType"] == "01" }.count == 1)
        }
    }

    /// A use recorded before uses were kept with their charge (migration 7) names no charge: the
    /// token presented again is refused as a replay, as it always was.
    @Test func aUseRecordedBeforeItsChargeWasKeptIsStillAReplay() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let (id, secret, body) = try await server.orderWithAuthorizeBody(factory)
            let token = try #require(factory.tokens.last)
            let transactionId = try #require(token.paymentData["header"]?["transactionId"]?.stringValue)
            let db = try await SQLiteDatabase.open(path: server.data + "/paysheet.sqlite")
            _ = try await db.write(
                "INSERT INTO token_uses (transaction_id, order_id, used_ms) VALUES ($1, $2, $3)",
                [.text(transactionId.lowercased()), .text(id), .int(0)]
            )
            await db.close()
            let (status, answer) = try await server.send("POST", "/v1/orders/\(id)/authorize", body, auth: secret)
            #expect(status == 200)
            #expect(Self.message(answer) == "Payment was already used")
            #expect(try await server.order(id)["payments"]?.arrayValue?.isEmpty == true)
        }
    }

    /// A charge that succeeded is answered again only while its order stands paid: once the
    /// merchant voided it or refunded some of it, the token again meets the order's refusal (409),
    /// never a success the page would show the shopper.
    @Test func aPaidOrderVoidedOrRefundedSinceIsNotAnsweredWithASuccess() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            for (path, body, status) in [
                ("void", nil, "voided"), ("refunds", #"{"amount":"1.00"}"#, "partially_refunded"),
            ] {
                let order = try await server.createOrder()
                let id = try #require(order["id"]?.stringValue)
                #expect(try await server.pay(order, factory: factory).paid)
                let token = try #require(factory.tokens.last)
                let (before, _) = try await server.send("POST", "/v1/orders/\(id)/authorize", Self.body(token))
                #expect(before == 200)
                let (changed, view) = try await server.send("POST", "/v1/orders/\(id)/\(path)", body)
                #expect(changed == 200 || changed == 201)
                #expect(view["status"]?.stringValue == status)
                let (again, answer) = try await server.send("POST", "/v1/orders/\(id)/authorize", Self.body(token))
                #expect(again == 409, "\(path): \(answer)")
                #expect(answer["result"] == nil)
                #expect(answer["error"]?["message"]?.stringValue?.contains(status) == true, "\(answer)")
            }
        }
    }
}
