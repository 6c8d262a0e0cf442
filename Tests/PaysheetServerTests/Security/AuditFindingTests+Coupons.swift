import Foundation
import PaysheetModel
import Testing
import UnionPay
@testable import PaysheetServer

/// Audit finding 11: a coupon cannot take an order to 0.00 (or below), no update can, and no
/// consume of zero reaches the acquirer by any path.
@Suite(.serialized) struct AuditCouponTests {
    @Test(arguments: TestDatabases.kinds) func aCouponThatWouldMakeTheOrderFreeIsRefusedWithTheSheetsCouponError(
        kind: String
    ) async throws {
        try await TestServer.inProcess(database: kind) { server in
            // Half of 0.01 rounds (halves away from zero) to 0.01: HALF would make it 0.00.
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea sample", "amount": "0.01"]],
            ])
            let id = try #require(order["id"]?.stringValue)
            let secret = try #require(server.secret(id))
            let (status, update) = try await server.send(
                "POST",
                "/v1/orders/\(id)/coupon-code",
                #"{"couponCode":"HALF"}"#,
                auth: secret
            )
            #expect(status == 200)
            #expect(update["newTotal"]?["amount"] == "0.01", "\(update.compactText)")
            let error = update["errors"]?.arrayValue?.first
            #expect(error?["code"] == "couponCodeInvalid", "\(update.compactText)")
            // The amount as the sheet shows amounts (not Swift's description of an optional).
            #expect(
                error?["message"]?.stringValue
                    == "Coupon HALF would bring the total to 0.00 CNY; it cannot be used on this order",
                "\(update.compactText)"
            )
            #expect(update["newLineItems"]?.arrayValue?.contains { $0["label"] == "Coupon HALF" } != true)
            let stored = try await server.order(id)
            #expect(stored["amount"] == "0.01")
            // The shopper approves the 0.00 the sheet would have shown: nothing is charged, nothing sent.
            let approved = try await MoneyAttackTests().token(server, order: order, amount: "0.00")
            let (_, answer) = try await server.send("POST", "/v1/orders/\(id)/authorize", approved, auth: secret)
            #expect(answer["result"]?["status"] == 1, "\(answer.compactText)")
            let payments = try await server.order(id)["payments"]?.arrayValue ?? []
            #expect(!payments.contains { $0["amount"] == "0.00" }, "a charge of 0.00: \(payments)")
            #expect(try await server.ledger().isEmpty)
            // A coupon that leaves something to pay still applies.
            let (_, ten) = try await server.send(
                "POST",
                "/v1/orders/\(id)/coupon-code",
                #"{"couponCode":"WELCOME10"}"#,
                auth: secret
            )
            #expect(ten["errors"] == nil && ten["newTotal"]?["amount"] == "0.01", "\(ten.compactText)")
        }
    }

    @Test func noUpdateTakesTheTotalToZeroOrBelow() async throws {
        try await TestServer.inProcess(configure: { $0.merchant.coupons["FREE"] = Rate(wholePercent: 100) }) {
            server in
            let methods: JSONValue = [
                [
                    "label": "Express", "detail": "Next day", "amount": "12.00", "identifier": "express",
                    "selected": true,
                ],
                ["label": "Standard", "detail": "3-5 days", "amount": "0.00", "identifier": "standard"],
            ]
            // The goods free and Express paid: 12.00. Standard would make it 0.00: the coupon goes.
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "10.00"]], "shippingMethods": methods,
            ])
            let id = try #require(order["id"]?.stringValue)
            let secret = try #require(server.secret(id))
            let (_, free) = try await server.send(
                "POST",
                "/v1/orders/\(id)/coupon-code",
                #"{"couponCode":"FREE"}"#,
                auth: secret
            )
            #expect(free["newTotal"]?["amount"] == "12.00" && free["errors"] == nil, "\(free.compactText)")
            let (status, standard) = try await server.send(
                "POST",
                "/v1/orders/\(id)/shipping-method",
                #"{"shippingMethod":{"identifier":"standard"}}"#,
                auth: secret
            )
            #expect(status == 200)
            #expect(standard["newTotal"]?["amount"] == "10.00", "\(standard.compactText)")
            #expect(standard["errors"]?.arrayValue?.first?["code"] == "couponCodeInvalid", "\(standard.compactText)")
            #expect(try await server.order(id)["amount"] == "10.00")

            // A merchant's discount line larger than the goods, paid for by Express: Standard would
            // make it -5.00. Refused; the order keeps Express.
            let discounted = try await server.createOrder([
                "currencyCode": "CNY",
                "lineItems": [["label": "Tea", "amount": "10.00"], ["label": "Voucher", "amount": "-15.00"]],
                "shippingMethods": [
                    [
                        "label": "Express", "detail": "Next day", "amount": "20.00", "identifier": "express",
                        "selected": true,
                    ],
                    ["label": "Standard", "detail": "3-5 days", "amount": "0.00", "identifier": "standard"],
                ],
            ])
            let other = try #require(discounted["id"]?.stringValue)
            let otherSecret = try #require(server.secret(other))
            #expect(discounted["amount"] == "15.00")
            let (refused, body) = try await server.send(
                "POST",
                "/v1/orders/\(other)/shipping-method",
                #"{"shippingMethod":{"identifier":"standard"}}"#,
                auth: otherSecret
            )
            #expect(refused == 422, "\(body.compactText)")
            #expect(body["error"]?["code"] == "total_not_positive")
            #expect(
                body["error"]?["message"]?.stringValue?.contains("the total would be -5.00 CNY;") == true,
                "\(body.compactText)"
            )
            #expect(try await server.order(other)["amount"] == "15.00")
        }
    }

    @Test func theAcquirerRefusesAConsumeOfZeroBeforeSendingIt() async throws {
        try await TestServer.inProcess { server in
            _ = try await server.createOrder()  // the server has made its sandbox PKI by now
            let credentials = try ACPCredentials(
                keyFile: server.data + "/unionpay-sandbox/merchant-777290058110048/key.pem",
                certificateFile: server.data + "/unionpay-sandbox/merchant-777290058110048/certificate.pem"
            )
            let acquirer = UnionPayAcquirer(
                client: UnionPayClient(
                    configuration: UnionPayConfiguration(
                        gatewayURL: server.gatewayURL,
                        notificationURL: "http://127.0.0.1:9/v1/notifications/unionpay"
                    ),
                    http: server.http,
                    signer: try credentials.signer(),
                    verifier: ACPVerifier(roots: [], intermediates: [], owners: [])
                )
            )
            for amount in [0, -100] {
                let identity = acquirer.newIdentity(paymentId: "pay_zero\(-amount)", now: Date())
                let charge = await acquirer.charge(
                    ChargeRequest(
                        identity: identity,
                        amount: Money(amount, currencyCode: "156")!,
                        instrument: .card(
                            CardData(
                                accountNumber: "6200000000000000",
                                expiration: "3012",
                                authentication: .threeDSecure(cryptogram: "AgAAAAAAAIaqGQuS8xjzvM0AAAAAAAA=", eci: "07")
                            )
                        ),
                        reference: "o"
                    )
                )
                guard case .declined(let code, let message) = charge else {
                    Issue.record("a consume of \(amount) was sent: \(charge)")
                    continue
                }
                #expect(code == "NS" && message.contains("not sent"), "\(message)")
                let token = await acquirer.charge(
                    ChargeRequest(
                        identity: identity,
                        amount: Money(amount, currencyCode: "156")!,
                        instrument: .merchantToken(token: "6200000000000000", expiration: "301231"),
                        reference: "o"
                    )
                )
                #expect(token == .declined(code: "NS", message: message), "\(token)")
                for reversal in [
                    await acquirer.refund(
                        identity,
                        amount: Money(amount, currencyCode: "156")!,
                        originalReference: "Q"
                    ),
                    await acquirer.void(identity, amount: Money(amount, currencyCode: "156")!, originalReference: "Q"),
                ] {
                    guard case .declined("NS", _) = reversal else {
                        Issue.record("a reversal of \(amount) was sent: \(reversal)")
                        continue
                    }
                }
            }
            #expect(try await server.ledger().isEmpty)
        }
    }
}
