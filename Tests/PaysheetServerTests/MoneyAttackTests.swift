import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import PaysheetModel
import PaysheetSheet
import PaysheetToken
import Testing
import UnionPay
import X509
@testable import PaysheetServer

/// Money that cannot be fooled: the attacks that worked before, each as a test, and amounts
/// generated to break the arithmetic.
@Suite(.serialized) struct MoneyAttackTests {
    /// The server still answers (a trap would have killed it and its gateway).
    func alive(_ server: TestServer) async throws {
        #expect(try await server.send("GET", "/health", nil).0 == 200)
    }

    @Test func amountsThatUsedToCrashOrLieAreRefusedAndTheServerLives() async throws {
        try await TestServer.inProcess { server in
            let carts = [
                #"[{"label":"A","amount":"92233720368547758.07"},{"label":"B","amount":"1.00"}]"#,
                #"[{"label":"A","amount":"99999999999999999999"}]"#,
                #"[{"label":"A","amount":"184467440737095506.16"}]"#,
                #"[{"label":"A","amount":"1e3"}]"#,
                #"[{"label":"A","amount":"10.00abc"}]"#,
                #"[{"label":"A","amount":" 10.00"}]"#,
                #"[{"label":"A","amount":"100000000.01"}]"#,
                #"[{"label":"A","amount":"60000000.00"},{"label":"B","amount":"60000000.00"}]"#,
                #"[{"label":"A","amount":"10.00"},{"label":"Discount","amount":"-10.00"}]"#,
                #"[{"label":"A","amount":"10.00"},{"label":"Discount","amount":"-92233720368547758.08"}]"#,
            ]
            for cart in carts {
                let (status, body) = try await server.send(
                    "POST",
                    "/v1/orders",
                    #"{"currencyCode":"CNY","lineItems":\#(cart)}"#
                )
                #expect(status == 400, "\(cart): \(status) \(body.compactText)")
            }
            let (big, bigBody) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","lineItems":[{"label":"A","amount":"100000000.01"}]}"#
            )
            #expect(
                big == 400 && bigBody["error"]?["message"]?.stringValue?.contains("Total amount is too big") == true
            )
            // A shipping price in the same grammar.
            let (shipping, _) = try await server.send(
                "POST",
                "/v1/orders",
                """
                {"currencyCode":"CNY","lineItems":[{"label":"A","amount":"1.00"}],
                 "shippingMethods":[{"label":"X","detail":"","amount":"92233720368547758.07","identifier":"x"}]}
                """
            )
            #expect(shipping == 400)
            // A refund of an amount past 64 bits, or past what was paid.
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            let id = try #require(order["id"]?.stringValue)
            #expect(try await server.pay(order, factory: factory).paid)
            for amount in ["92233720368547758.07", "92233720368547758.08", "1e2", "-1.00", "0.00", "100.01"] {
                let (status, body) = try await server.send(
                    "POST",
                    "/v1/orders/\(id)/refunds",
                    #"{"amount":"\#(amount)"}"#
                )
                #expect([400, 422].contains(status), "refund \(amount): \(status) \(body.compactText)")
            }
            try await alive(server)
            #expect(try await server.ledger().filter { $0["txnType"] == "04" }.isEmpty)
        }
    }

    @Test(arguments: TestDatabases.kinds) func theSeedsDiscountOrderIsPaidEndToEnd(kind: String) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let factory = try await server.tokenFactory()
            // Seed 004's own example: a drone and its parts, less a student discount of 1800.00.
            let order = try await server.createOrder([
                "currencyCode": "CNY",
                "lineItems": [
                    ["label": "DJI精灵4无人机主机", "amount": "9888.00"], ["label": "DJI精灵4智能电池", "amount": "230.00"],
                    ["label": "DJI精灵4螺旋桨", "amount": "200.00"], ["label": "DJI精灵4旅行背包", "amount": "150.00"],
                    ["label": "DJI精灵4第二手柄", "amount": "233.00"], ["label": "DJI精灵4云台盖", "amount": "33.00"],
                    ["label": "大学生折扣价", "amount": "-1800.00"],
                ],
                "shippingMethods": [
                    ["label": "韵达快递", "detail": "", "amount": "0.00", "identifier": "yunda"],
                    ["label": "顺风快递", "detail": "", "amount": "18.00", "identifier": "sf"],
                ],
            ])
            let id = try #require(order["id"]?.stringValue)
            #expect(order["paymentRequest"]?["total"]?["amount"] == "8934.00")
            #expect(order["paymentRequest"]?["lineItems"]?.arrayValue?.contains { $0["amount"] == "-1800.00" } == true)
            let sheet = try await server.pay(order, factory: factory)
            #expect(await sheet.paid)
            // The wallet ships to California, so tax is added on the goods after the discount.
            let paid = try await server.order(id)
            #expect(paid["status"] == "paid")
            let charged = try await server.ledger().first { $0["txnType"] == "01" }?["amount"]
            #expect(charged == .number(String(try MinorUnits.parse(paid["amount"]?.stringValue ?? "", digits: 2))))
            // A coupon shows on the sheet as a negative line (Apple's guidelines: a discount as a negative line).
            let couponed = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            let secret = try #require(server.secret(couponed["id"]?.stringValue ?? ""))
            let (_, update) = try await server.send(
                "POST",
                "/v1/orders/\(couponed["id"]!.stringValue!)/coupon-code",
                #"{"couponCode":"WELCOME10"}"#,
                auth: secret
            )
            #expect(
                update["newLineItems"]?.arrayValue?.contains {
                    $0["label"] == "Coupon WELCOME10" && $0["amount"] == "-10.00"
                } == true
            )
            #expect(update["newTotal"]?["amount"] == "90.00")
        }
    }

    /// A token for `order` as the shopper's device would make it for `amount`.
    func token(_ server: TestServer, order: JSONValue, amount: String) async throws -> String {
        let merchant = try await server.api.get("/v1/sandbox/merchant")
        let recipient = try TokenRecipient(
            certificate: Certificate(pemEncoded: merchant["paymentProcessingCertificate"]?.stringValue ?? "")
        )
        let pki = try SandboxPKI.loadOrCreate(folder: server.data + "/sandbox-ca")
        let token = try SandboxTokenIssuer(pki: pki).issue(
            try SandboxPayment.sample(network: "visa", amount: amount, currency: "CNY"),
            to: recipient,
            applicationData: Array(
                Data(base64Encoded: order["paymentRequest"]?["applicationData"]?.stringValue ?? "") ?? Data()
            )
        )
        let payment: JSONValue = [
            "payment": [
                "token": [
                    "paymentMethod": ["displayName": "Visa 4321", "network": "Visa", "type": "credit"],
                    "transactionIdentifier": .string(token.header.transactionId.uppercased()),
                    "paymentData": token.jsonValue,
                ]
            ]
        ]
        return payment.compactText
    }

    @Test func theShopperPaysWhatTheShopperSawOrNothing() async throws {
        try await TestServer.inProcess { server in
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            let id = try #require(order["id"]?.stringValue)
            let secret = try #require(server.secret(id))
            // The shopper applies a coupon and approves 90.00 …
            _ = try await server.send(
                "POST",
                "/v1/orders/\(id)/coupon-code",
                #"{"couponCode":"WELCOME10"}"#,
                auth: secret
            )
            let approved = try await token(server, order: order, amount: "90.00")
            // … then another caller removes the coupon.
            let (_, removed) = try await server.send(
                "POST",
                "/v1/orders/\(id)/coupon-code",
                #"{"couponCode":""}"#,
                auth: secret
            )
            #expect(removed["newTotal"]?["amount"] == "100.00")
            let (status, answer) = try await server.send("POST", "/v1/orders/\(id)/authorize", approved, auth: secret)
            #expect(status == 200)
            #expect(answer["result"]?["status"] == 1)
            #expect(
                answer["result"]?["errors"]?.arrayValue?.first?["message"]?.stringValue?.contains(
                    "total changed to 100.00 CNY"
                ) == true
            )
            #expect(try await server.ledger().isEmpty, "something was sent to the acquirer")
            #expect(try await server.order(id)["status"] == "created")
            // With the coupon back, the same token pays the 90.00 the shopper saw.
            _ = try await server.send(
                "POST",
                "/v1/orders/\(id)/coupon-code",
                #"{"couponCode":"WELCOME10"}"#,
                auth: secret
            )
            let (_, paid) = try await server.send("POST", "/v1/orders/\(id)/authorize", approved, auth: secret)
            #expect(paid["result"]?["status"] == 0)
            #expect(try await server.ledger().first?["amount"] == .number("9000"))
        }
    }

    /// A notification signed with the merchant's own ACP key and certificate (issued under the
    /// sandbox's root, as the gateway's is), for the charge of `order`.
    func forgedNotification(_ server: TestServer, order id: String, respCode: String) async throws -> String {
        let (_, order) = try await server.send("GET", "/v1/orders/\(id)", nil)
        let charge = try #require(order["payments"]?.arrayValue?.first)
        let merchant = try ACPCredentials(
            keyFile: server.data + "/unionpay-sandbox/merchant-777290058110048/key.pem",
            certificateFile: server.data + "/unionpay-sandbox/merchant-777290058110048/certificate.pem"
        )
        var m = ACPMessage([
            "version": "5.1.0", "encoding": "UTF-8", "txnType": "01", "txnSubType": "01", "bizType": "000802",
            "accessType": "0",
            "merId": "777290058110048", "orderId": charge["acquirerOrderId"]?.stringValue ?? "",
            "txnTime": charge["acquirerTxnTime"]?.stringValue ?? "",
            "txnAmt": String(try MinorUnits.parse(charge["amount"]?.stringValue ?? "", digits: 2)),
            "currencyCode": "156",
            "respCode": respCode, "respMsg": respCode == "00" ? "Success" : "Insufficient funds",
            "queryId": "FORGED0000000001",
        ])
        try merchant.signer(includesCertificate: true).sign(&m)
        return m.formEncoded
    }

    func postNotification(_ server: TestServer, _ body: String) async throws -> (Int, JSONValue) {
        try await server.send("POST", "/v1/notifications/unionpay", body, auth: "")
    }

    @Test func aForgedSuccessNeverPaysADeclinedCharge() async throws {
        // The sheet waits for the held charge's outcome, however slow the machine.
        try await TestServer.inProcess(configure: { $0.authorizeWait = 120 }) { server in
            // The issuer declines (0064) once the forgery has been answered (the gateway holds the
            // charge in processing until then); its notification is lost, so queries settle it.
            try await server.setFaults(#"{"holdCharges": 1, "dropNotification": 1}"#)
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            let id = try #require(order["id"]?.stringValue)
            let paying = try await server.payInBackground(order, wallet: .withTestCards(["0064"]), card: 1)
            try await server.waitForHeldCharges()
            let (status, body) = try await postNotification(
                server,
                try await forgedNotification(server, order: id, respCode: "00")
            )
            #expect(status == 400)
            #expect(body["error"]?["message"] == "the notification was not accepted")
            #expect(server.logs.all.joined(separator: "\n").contains("middle certificate"))
            #expect(try await server.releaseCharges() == 1)
            #expect(try await !paying.value)
            let final = try await server.order(id)
            #expect(final["status"] == "failed")
            #expect(final["payments"]?.arrayValue?.first?["resultCode"] == "64")
        }
    }

    @Test func aForgedDeclineNeverLeadsToASecondCharge() async throws {
        try await TestServer.inProcess(configure: { $0.authorizeWait = 120 }) { server in
            // The charge succeeds once the forgery has been answered; queries settle it.
            try await server.setFaults(#"{"holdCharges": 1, "dropNotification": 1}"#)
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            let id = try #require(order["id"]?.stringValue)
            let paying = try await server.payInBackground(order, wallet: .default, card: 0)
            try await server.waitForHeldCharges()
            let (status, _) = try await postNotification(
                server,
                try await forgedNotification(server, order: id, respCode: "64")
            )
            #expect(status == 400)
            #expect(try await server.releaseCharges() == 1)
            #expect(try await paying.value)
            #expect(try await server.order(id)["status"] == "paid")
            // The shopper cannot pay again, and the acquirer holds one charge.
            let again = try await server.pay(try await server.order(id), factory: try await server.tokenFactory())
            #expect(await !again.paid)
            #expect(try await server.ledger().filter { $0["txnType"] == "01" && $0["respCode"] == "00" }.count == 1)
        }
    }

    @Test func everyResourceABodyCanAskForIsBounded() async throws {
        try await TestServer.inProcess { server in
            let (_, order) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","lineItems":[{"label":"A","amount":"1.00"}]}"#
            )
            let id = try #require(order["id"]?.stringValue)
            let big = #"{"x":""# + String(repeating: "a", count: 300 * 1024) + #""}"#
            for path in [
                "/v1/orders", "/v1/orders/\(id)/shipping-contact", "/v1/orders/\(id)/coupon-code",
                "/v1/orders/\(id)/authorize",
                "/v1/orders/\(id)/refunds", "/v1/orders/\(id)/cancel", "/v1/notifications/unionpay",
            ] {
                let (status, _) = try await server.send("POST", path, big)
                #expect(status == 413, "\(path): \(status)")
            }
            let (_, page) = try await server.send("POST", "/paysheet/v1/pages", "{}")
            let huge = #"{"op":"state","x":""# + String(repeating: "a", count: 1_100_000) + #""}"#
            #expect(
                try await server.send("POST", "/paysheet/v1/pages/\(page["page"]?.stringValue ?? "")", huge).0 == 413
            )
            // Shipping methods, labels (in bytes, not characters) and coupon codes.
            let methods = (0..<21).map { #"{"label":"M","detail":"","amount":"0.00","identifier":"m\#($0)"}"# }.joined(
                separator: ","
            )
            #expect(
                try await server.send(
                    "POST",
                    "/v1/orders",
                    #"{"currencyCode":"CNY","lineItems":[{"label":"A","amount":"1.00"}],"shippingMethods":[\#(methods)]}"#
                ).0 == 400
            )
            let wide = String(repeating: "茶", count: 50)  // 50 characters, 150 bytes
            #expect(
                try await server.send(
                    "POST",
                    "/v1/orders",
                    #"{"currencyCode":"CNY","lineItems":[{"label":"\#(wide)","amount":"1.00"}]}"#
                ).0 == 400
            )
            let (_, coupon) = try await server.send(
                "POST",
                "/v1/orders/\(id)/coupon-code",
                #"{"couponCode":"\#(String(repeating: "W", count: 100))"}"#
            )
            #expect(coupon["errors"]?.arrayValue?.first?["code"] == "couponCodeInvalid")
            try await alive(server)
        }
    }

    /// Generated carts with amounts meant to break the arithmetic: never a 5xx, and every order
    /// made has a total equal to the sum of its lines and no negative line nobody sent.
    @Test func generatedCartsNeverBreakTheArithmetic() async throws {
        try await TestServer.inProcess { server in
            let pool = [
                "0.01", "1.00", "128.00", "-2.00", "-1800.00", "99999999.99", "100000000.00", "92233720368547758.07",
                "-92233720368547758.08",
                "18446744073709551616", "1e3", "1E-2", "10.00abc", "0x10", "1.001", "-0", "00.10", "", " ", "NaN", "٣",
                "1_000",
            ]
            var random = SeededRandom(seed: 20_261_123)
            var made = 0
            for _ in 0..<150 {
                let count = Int.random(in: 1...4, using: &random)
                let amounts = (0..<count).map { _ in pool[Int.random(in: 0..<pool.count, using: &random)] }
                let lines = amounts.enumerated().map { #"{"label":"L\#($0.offset)","amount":"\#($0.element)"}"# }
                    .joined(
                        separator: ","
                    )
                let coupon = Bool.random(using: &random)
                let (status, order) = try await server.send(
                    "POST",
                    "/v1/orders",
                    #"{"currencyCode":"CNY","lineItems":[\#(lines)]}"#
                )
                #expect(status < 500, "\(lines): \(status)")
                guard status == 201, let id = order["id"]?.stringValue else { continue }
                made += 1
                var view = order
                if coupon {
                    let (s, _) = try await server.send(
                        "POST",
                        "/v1/orders/\(id)/coupon-code",
                        #"{"couponCode":"HALF"}"#
                    )
                    #expect(s < 500)
                    view = try await server.order(id)
                }
                let items = view["lineItems"]?.arrayValue ?? []
                let sum = try MinorUnits.sum(
                    items.map { try MinorUnits.parse($0["amount"]?.stringValue ?? "", digits: 2, allowNegative: true) }
                )
                #expect(String(sum) == String(try MinorUnits.parse(view["amount"]?.stringValue ?? "", digits: 2)))
                #expect(sum > 0)
                let negatives = items.filter { $0["amount"]?.stringValue?.hasPrefix("-") == true }.count
                #expect(negatives == amounts.filter { $0.hasPrefix("-") && $0 != "-0" }.count + (coupon ? 1 : 0))
            }
            #expect(made > 10)
            try await alive(server)
        }
    }
}
