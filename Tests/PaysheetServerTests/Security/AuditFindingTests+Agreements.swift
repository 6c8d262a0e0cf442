import Foundation
import PaysheetModel
import Testing
@testable import PaysheetServer

/// Audit finding 3: an agreement must not outlive its first payment. Voiding, fully refunding or
/// canceling the payment that created the agreement (with its merchant token) ends the agreement,
/// and no merchant-initiated charge follows; a partial refund leaves it active until the refunds
/// reach the whole payment. On SQLite and (in CI) PostgreSQL.
@Suite(.serialized) struct AuditAgreementTests {
    static let month: Double = 31 * 86_400

    /// A paid `tea-monthly` order: its id and its agreement's.
    func subscribe(
        _ server: TestServer,
        _ factory: RecordingTokenFactory
    ) async throws -> (order: String, agreement: String) {
        let order = try await server.createOrder(["plan": "tea-monthly"])
        let sheet = try await server.pay(order, factory: factory)
        #expect(await sheet.paid)
        let id = try #require(order["id"]?.stringValue)
        let agreement = try #require(order["agreementId"]?.stringValue)
        #expect(try await server.api.get("/v1/agreements/\(agreement)")["status"] == "active")
        return (id, agreement)
    }

    /// The consumes of 29.00 (merchant-initiated charges) the sandbox gateway received.
    func monthlyConsumes(_ server: TestServer) async throws -> Int {
        try await server.ledger().filter { $0["txnType"] == "01" && $0["amount"]?.compactText == "2900" }.count
    }

    @Test(arguments: TestDatabases.kinds) func voidingRefundingOrCancelingTheFirstPaymentEndsTheAgreement(
        kind: String
    ) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let factory = try await server.tokenFactory()
            let ways = ["void", "refund", "cancel"]
            var agreements: [String: String] = [:]
            for way in ways {
                let (orderId, agreementId) = try await subscribe(server, factory)
                agreements[way] = agreementId
                // The merchant gives the first payment back (or cancels its order: a void, the same day).
                let (status, order): (Int, JSONValue)
                switch way {
                case "void": (status, order) = try await server.send("POST", "/v1/orders/\(orderId)/void", nil)
                case "refund": (status, order) = try await server.send("POST", "/v1/orders/\(orderId)/refunds", "{}")
                default: (status, order) = try await server.send("POST", "/v1/orders/\(orderId)/cancel", nil)
                }
                #expect((200...201).contains(status), "\(way): \(status) \(order.compactText)")
                let agreement = try await server.api.get("/v1/agreements/\(agreementId)")
                #expect(agreement["status"] == "canceled", "\(way): the agreement is \(agreement["status"] ?? .null)")
                #expect(agreement["nextChargeDue"] == nil, "\(way)")
                #expect(
                    agreement["canceledBecause"]?.stringValue?.contains("first payment") == true,
                    "\(way): \(agreement.compactText)"
                )
            }
            // A month later the merchant's back end tries to charge them: refused, nothing sent.
            server.advanceClock(by: Self.month)
            let before = try await monthlyConsumes(server)
            for way in ways {
                let agreementId = try #require(agreements[way])
                let (charged, refused) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
                #expect(charged == 409, "\(way): the charge was answered \(charged) \(refused.compactText)")
                #expect(refused["error"]?["code"] == "agreement_canceled", "\(way)")
                #expect(refused["error"]?["message"]?.stringValue?.contains("first payment") == true, "\(way)")
            }
            #expect(try await monthlyConsumes(server) == before, "a merchant-initiated consume was sent")
        }
    }

    @Test(arguments: TestDatabases.kinds) func aPartialRefundKeepsTheAgreementUntilTheRefundsReachTheWholePayment(
        kind: String
    ) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let factory = try await server.tokenFactory()
            let (orderId, agreementId) = try await subscribe(server, factory)
            // Half of the first month back: the purchase stands, so does the agreement.
            let (partial, _) = try await server.send("POST", "/v1/orders/\(orderId)/refunds", #"{"amount":"0.50"}"#)
            #expect(partial == 201)
            #expect(try await server.api.get("/v1/agreements/\(agreementId)")["status"] == "active")
            server.advanceClock(by: Self.month)
            let (charged, charge) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
            #expect(charged == 201 && charge["charge"]?["status"] == "paid", "\(charge.compactText)")
            // A merchant-initiated charge refunded in full does not end it either: it is not the first payment.
            let chargeOrder = try #require(charge["charge"]?["id"]?.stringValue)
            #expect(try await server.send("POST", "/v1/orders/\(chargeOrder)/refunds", "{}").0 == 201)
            #expect(try await server.api.get("/v1/agreements/\(agreementId)")["status"] == "active")
            // The rest of the first payment back: now it was refunded whole, and the agreement ends.
            let (rest, _) = try await server.send("POST", "/v1/orders/\(orderId)/refunds", #"{"amount":"0.50"}"#)
            #expect(rest == 201)
            #expect(try await server.api.get("/v1/agreements/\(agreementId)")["status"] == "canceled")
            server.advanceClock(by: Self.month)
            let before = try await monthlyConsumes(server)
            let (again, refused) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
            #expect(again == 409 && refused["error"]?["code"] == "agreement_canceled", "\(refused.compactText)")
            #expect(try await monthlyConsumes(server) == before)
        }
    }

    @Test func anAgreementWhoseFirstPaymentWasGivenBackIsRefusedEvenIfNeverMarkedEnded() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let (orderId, agreementId) = try await subscribe(server, factory)
            #expect(try await server.send("POST", "/v1/orders/\(orderId)/refunds", "{}").0 == 201)
            // As a row written before agreements ended with their first payment (or a crash between
            // the refund and the mark): the agreement still says nothing.
            try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) { keys in
                var agreement = try #require(try await keys.store.agreement(agreementId))
                agreement.canceledAt = nil
                agreement.canceledBecause = nil
                #expect(try await keys.store.update(agreement) != nil)
            }
            let view = try await server.api.get("/v1/agreements/\(agreementId)")
            #expect(view["status"] == "canceled" && view["canceledBecause"] == "its first payment was refunded in full")
            server.advanceClock(by: Self.month)
            let (charged, refused) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
            #expect(charged == 409 && refused["error"]?["code"] == "agreement_canceled", "\(refused.compactText)")
            #expect(try await monthlyConsumes(server) == 0)
        }
    }
}
