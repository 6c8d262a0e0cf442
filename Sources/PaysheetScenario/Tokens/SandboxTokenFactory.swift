import Foundation
import PaysheetModel
import PaysheetSheet
import PaysheetToken
import PaysheetTokenFormat

/// Makes the sheet's authorized payments carry real sandbox tokens: encrypted to the merchant's
/// payment processing certificate, signed by the sandbox PKI, with the total's amount and
/// currency and the SHA-256 of the request's `applicationData`. A back end that trusts the
/// sandbox root decrypts them exactly as it decrypts Apple's.
public struct SandboxTokenFactory: PaymentTokenFactory {
    /// The issuer (sandbox PKI).
    public let issuer: SandboxTokenIssuer
    /// The merchant the tokens are encrypted to.
    public let recipient: TokenRecipient
    /// The signing time of each token.
    public let now: @Sendable () -> Date

    /// A factory issuing from `pki` to `recipient`, signing at `now()`.
    public init(pki: SandboxPKI, recipient: TokenRecipient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.issuer = SandboxTokenIssuer(pki: pki)
        self.recipient = recipient
        self.now = now
    }

    public func makeToken(for context: TokenContext) -> ApplePayPaymentToken {
        let card = context.card
        let method = ApplePayPaymentMethod(displayName: card.displayName, network: card.pageNetworkName,
                                           type: card.type, paymentPass: card.paymentPass)
        let time = now()
        do {
            let payment = try SandboxPayment.sample(network: card.network, amount: context.total.amount ?? "0",
                                                    currency: context.request.currencyCode,
                                                    accountSuffix: card.paymentPass?.deviceAccountNumberSuffix, now: time)
            let applicationData = context.request.applicationData.flatMap(Base64.decode)
            let token = try issuer.issue(payment, to: recipient, applicationData: applicationData, signingTime: time)
            return ApplePayPaymentToken(paymentMethod: method, transactionIdentifier: token.header.transactionId.uppercased(),
                                        paymentData: token.jsonValue)
        } catch {
            // A currency outside ISO 4217's current list: no realistic plaintext exists, so the
            // payment carries the marked placeholder rather than an invented one.
            return PlaceholderTokenFactory().makeToken(for: context)
        }
    }
}
