import Foundation
import PaysheetModel
import PaysheetSheetTokens
import PaysheetToken
import PaysheetTokenFormat
import Testing
import X509

@testable import PaysheetServer

/// Issue 37: a token the server refuses because the sandbox's parts do not match (another data
/// folder's sandbox CA, another merchant's payment processing key) is answered with a stable code
/// and a message that names the cause and what to pass; the sheet keeps the shopper's words.
@Suite struct TokenRefusalTests {
    /// The authorize body for a token `issuer` makes for `order`, encrypted to `recipient`.
    static func authorizeBody(
        _ issuer: SandboxTokenIssuer,
        to recipient: TokenRecipient,
        order: JSONValue,
        amount: String
    ) throws -> String {
        let token = try issuer.issue(
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

    @Test func aTokenFromAnotherDataFolderIsRefusedWithWhatToPass() async throws {
        try await TestServer.inProcess { server in
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "12.00"]],
            ])
            let id = try #require(order["id"]?.stringValue)
            let secret = try #require(server.secret(id))
            let merchant = try await server.api.get("/v1/sandbox/merchant")
            let serverRecipient = try TokenRecipient(
                certificate: Certificate(pemEncoded: merchant["paymentProcessingCertificate"]?.stringValue ?? "")
            )
            let elsewhere = NSTemporaryDirectory() + "paysheet-elsewhere-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: elsewhere) }

            // Signed by another data folder's sandbox CA, encrypted to this server's key.
            let otherCA = SandboxTokenIssuer(pki: try SandboxMerchant.pki(dataFolder: elsewhere))
            let body = try Self.authorizeBody(otherCA, to: serverRecipient, order: order, amount: "12.00")
            let (status, answer) = try await server.send("POST", "/v1/orders/\(id)/authorize", body, auth: secret)
            #expect(status == 200)
            #expect(answer["result"]?["status"] == 1)
            #expect(answer["result"]?["errors"]?.arrayValue?.first?["message"] == "Payment could not be verified")
            #expect(answer["refusal"]?["code"] == "token_chain")
            let message = answer["refusal"]?["message"]?.stringValue ?? ""
            #expect(message.contains("run `paysheet pay` with --data \(server.data) "), "\(message)")
            #expect(message.contains("the sandbox CA of the data folder \(server.data)"), "\(message)")

            // Signed by this server's sandbox CA, encrypted to another data folder's merchant key.
            let serverCA = SandboxTokenIssuer(pki: try SandboxMerchant.pki(dataFolder: server.data))
            let otherKey = try SandboxMerchant.loadOrCreate(
                dataFolder: elsewhere,
                merchantIdentifier: "merchant.dev.paysheet.sandbox"
            )
            let misaddressed = try Self.authorizeBody(
                serverCA,
                to: TokenRecipient(otherKey),
                order: order,
                amount: "12.00"
            )
            let (_, second) = try await server.send("POST", "/v1/orders/\(id)/authorize", misaddressed, auth: secret)
            #expect(second["refusal"]?["code"] == "token_key_mismatch")
            let keyMessage = second["refusal"]?["message"]?.stringValue ?? ""
            #expect(keyMessage.contains("another payment processing key than this server's"), "\(keyMessage)")
            #expect(keyMessage.contains("`paysheet token issue` needs --data \(server.data)"), "\(keyMessage)")
            #expect(try await server.ledger().isEmpty, "something was sent to the acquirer")

            // The server's own parts: paid, and no refusal in the answer.
            let good = try Self.authorizeBody(serverCA, to: serverRecipient, order: order, amount: "12.00")
            let (_, paid) = try await server.send("POST", "/v1/orders/\(id)/authorize", good, auth: secret)
            #expect(paid["result"]?["status"] == 0)
            #expect(paid["refusal"] == nil)
        }
    }

    @Test func everyTokenErrorHasAStableCodeAndProductionNamesNoFolder() {
        let sandbox = TokenTrustDescription(
            sandboxDataFolder: "/srv/shop/.paysheet",
            trustsApple: true,
            paymentCertificateFile: "/srv/shop/.paysheet/merchants/m/certificate.pem"
        )
        let production = TokenTrustDescription(trustsApple: true, paymentCertificateFile: "/etc/paysheet/payment.pem")
        var codes: Set<String> = []
        for code in PaymentTokenError.Code.allCases {
            let error = PaymentTokenError(code, "detail of \(code.rawValue)")
            let refusal = sandbox.refusal(for: error)
            codes.insert(refusal.code)
            #expect(refusal.code.hasPrefix("token_") && refusal.code == refusal.code.lowercased())
            #expect(!production.refusal(for: error).message.contains(".paysheet"))
        }
        #expect(codes.count == PaymentTokenError.Code.allCases.count)
        #expect(sandbox.refusal(for: PaymentTokenError(.keyMismatch, "x")).code == "token_key_mismatch")
        #expect(sandbox.refusal(for: PaymentTokenError(.signingTime, "x")).code == "token_signing_time")
        // What a malformed or undecryptable token held is not repeated (it may be card data).
        for code in [PaymentTokenError.Code.malformed, .decryption, .replayed, .invalidKey] {
            #expect(!sandbox.refusal(for: PaymentTokenError(code, "4111111111111111")).message.contains("4111"))
        }
        #expect(production.refusal(for: PaymentTokenError(.chain, "x")).message.contains("trusts Apple's roots."))
    }
}
