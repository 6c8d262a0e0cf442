import Crypto
import Foundation
import PaysheetModel
import PaysheetScenario
import PaysheetSheetTokens
import PaysheetToken
import PaysheetTokenFormat
import Testing

@Suite("The sheet's authorized payments carry real sandbox tokens")
struct SandboxTokenTests {
    @Test(
        "the happy path's token decrypts with the merchant's key, for the total the user saw, bound to applicationData"
    )
    func happyPathToken() async throws {
        let now = Date()
        let pki = try SandboxPKI.generate(now: now)
        let merchant = try MerchantCredentials.create(
            merchantIdentifier: "merchant.dev.paysheet.test",
            pki: pki,
            now: now
        )
        let factory = SandboxTokenFactory(pki: pki, recipient: TokenRecipient(merchant.merchantKey), now: { now })
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Conformance/flow/happy-path.json")
        var scenario = try JSONParser.parse(String(contentsOf: url, encoding: .utf8)).objectValue!
        var request = scenario["request"]!.objectValue!
        request["applicationData"] = .string(Base64.encode(Array("order-7".utf8)))
        scenario["request"] = .object(request)
        let outcome = ScenarioRunner(recordTranscript: true, tokenFactory: factory)
            .run(text: JSONValue.object(scenario).compactText, file: "happy-path+applicationData")
        #expect(outcome.passed, "\(outcome.failure ?? "")")
        let authorized = try #require(
            outcome.transcript.flatMap(\.events).first { $0["type"]?.stringValue == "paymentauthorized" }
        )
        let paymentData = try #require(authorized["payment"]?["token"]?["paymentData"])
        let decryptor = PaymentTokenDecryptor(
            keys: MerchantKeyring([merchant.merchantKey]),
            verifier: PaymentTokenVerifier(trust: pki.trustAnchors)
        )
        let result = try await decryptor.decrypt(PaymentTokenData(jsonValue: paymentData), at: now)
        let entry = try #require(
            outcome.transcript.first { $0.events.contains { $0["type"]?.stringValue == "paymentauthorized" } }
        )
        let total = try #require(entry.sheet["modules"]?["summary"]?["total"]?["amount"]?.stringValue)
        #expect(result.paymentData.transactionAmount == Int((Double(total)! * 100).rounded()))
        #expect(result.paymentData.currencyCode == "840")
        #expect(result.verified.token.header.applicationData == Array(SHA256.hash(data: Array("order-7".utf8))))
        // Apple's token refuses it: only the sandbox root vouches for it.
        await #expect(throws: PaymentTokenError.self) {
            _ = try await PaymentTokenVerifier().verify(PaymentTokenData(jsonValue: paymentData), at: now)
        }
    }
}
