import AsyncHTTPClient
import Foundation
import PaysheetModel
import Testing
import UnionPay
import UnionPaySandbox
@testable import PaysheetServer

/// The UnionPay acquirer charges a ``PaymentInstrument``: card data that cannot be sent encrypted
/// to the configured certificate is never sent, and the payment fails with `NS` (not sent).
@Suite struct UnionPayAcquirerInstrumentTests {
    static let pki = try! UnionPaySandboxPKI.generate()

    /// An acquirer with an encryption certificate, whose gateway is a closed port: a consume that
    /// was sent would answer `unknown` (connection refused), not `NS`.
    static func acquirer() throws -> UnionPayAcquirer {
        let merchant = try pki.issueMerchant(merchantId: "777290058110048")
        return UnionPayAcquirer(
            client: UnionPayClient(
                configuration: UnionPayConfiguration(
                    gatewayURL: "http://127.0.0.1:9",
                    notificationURL: "http://127.0.0.1:9/v1/notifications/unionpay",
                    timeout: 2
                ),
                http: .shared,
                signer: try merchant.signer(),
                verifier: ACPVerifier(roots: [pki.root], intermediates: [pki.gatewayCA], owners: ["00040000:SIGN"]),
                encryptor: try SensitiveDataEncryptor(certificate: pki.gateway.certificate)
            )
        )
    }

    @Test func cardDataThatCannotBeSentEncryptedFailsThePaymentAsNotSent() async throws {
        let acquirer = try Self.acquirer()
        let request = ChargeRequest(
            identity: acquirer.newIdentity(paymentId: "pay_ns", now: Date()),
            amount: Money(100, currencyCode: "156")!,
            instrument: .card(
                CardData(
                    accountNumber: "6226388000000095",
                    expiration: "301231",
                    authentication: .threeDSecure(cryptogram: "AgAAAAAA&AIaqGQuS8xjz", eci: "07")
                )
            ),
            reference: "ord_ns"
        )
        let answer = await acquirer.charge(request)
        guard case .declined(let code, let message) = answer else {
            Issue.record("the consume was sent: \(answer)")
            return
        }
        #expect(code == "NS")
        #expect(message.hasPrefix("not sent: ") && message.contains("cryptogram"), "\(message)")
        #expect(!message.contains("6226388000000095") && !message.contains("AIaqGQuS8xjz"), "\(message)")
        // The lifecycle ends failed, with that code.
        let configuration = LifecycleConfiguration()
        var lifecycle = PaymentLifecycle(expectedAmount: 100, submittedAt: Date(), configuration: configuration)
        _ = lifecycle.receive(.answer(answer), now: Date(), configuration: configuration)
        #expect(lifecycle.state == .failed && lifecycle.resultCode == "NS")
        // The request's descriptions show no card data.
        for text in ["\(request)", String(reflecting: request)] {
            #expect(!text.contains("6226388000000095") && !text.contains("AIaqGQuS8xjz"), "\(text)")
        }
    }

    @Test func answersMapByResponseCode() throws {
        let acquirer = try Self.acquirer()
        func answer(_ fields: [String: String]) -> SubmitAnswer {
            acquirer.submitAnswer(.message(ACPMessage(fields)))
        }
        #expect(answer(["respCode": "00", "queryId": "Q1"]) == .accepted(reference: "Q1"))
        #expect(answer(["respCode": "12"]) == .duplicate)
        #expect(
            answer(["respCode": "03"]) == .unknown(reason: "respCode 03: Communication timeout; query the transaction")
        )
        #expect(answer(["respCode": "64"]) == .declined(code: "64", message: "Insufficient funds"))
        #expect(answer(["respCode": "64", "respMsg": "卡上的余额不足"]) == .declined(code: "64", message: "卡上的余额不足"))
        #expect(acquirer.submitAnswer(.notSent("why")) == .declined(code: "NS", message: "not sent: why"))
        #expect(acquirer.submitAnswer(.noAnswer("HTTP 502")) == .unknown(reason: "HTTP 502"))
        let paid = acquirer.status(code: .success, ACPMessage(["txnAmt": "100", "queryId": "Q"]), message: nil)
        #expect(paid == .succeeded(amount: .yuan(100), reference: "Q"))
        #expect(
            acquirer.status(code: "75", ACPMessage(), message: nil)
                == .moneyTaken(code: "75", message: "Debited, but the transaction is not clean (75)")
        )
        #expect(
            acquirer.status(code: .processing, ACPMessage(), message: nil)
                == .pending(reason: "origRespCode 05: Transaction accepted; query the result later")
        )
    }
}

extension UnionPayAcquirerInstrumentTests {
    /// `ResponseCode.shopperMessage` says what the sheet says for every code.
    @Test func shopperMessagesAreTheSheets() {
        for code in ["00", "03", "34", "60", "61", "63", "64", "65", "67", "73", "78", "NS", "ZZ"] {
            #expect(ResponseCode(code).shopperMessage == PaymentService.sheetMessage(forDecline: code), "\(code)")
        }
        #expect(PaymentService.sheetMessage(forDecline: nil) == "Payment was declined")
    }
}
