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
    /// Told of each merchant token issued (the sandbox keeps them to send their life-cycle
    /// notifications); `nil`: nobody is told.
    public var onMerchantToken: (@Sendable (SandboxIssuedMerchantToken) -> Void)?

    /// A factory issuing from `pki` to `recipient`, signing at `now()`.
    public init(pki: SandboxPKI, recipient: TokenRecipient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.issuer = SandboxTokenIssuer(pki: pki)
        self.recipient = recipient
        self.now = now
    }

    public func makeToken(for context: TokenContext) -> ApplePayPaymentToken {
        let card = context.card
        let method = ApplePayPaymentMethod(
            displayName: card.displayName,
            network: card.pageNetworkName,
            type: card.type,
            paymentPass: card.paymentPass
        )
        let time = now()
        do {
            var payment = try SandboxPayment.sample(
                network: card.network,
                amount: context.total.amount ?? "0",
                currency: context.request.currencyCode,
                accountSuffix: card.paymentPass?.deviceAccountNumberSuffix,
                now: time
            )
            let r = context.request
            // Recurring, automatic reload and deferred payments get a merchant token (an MPAN for
            // this card at this merchant), as Apple Pay issues one when the network supports it.
            if r.recurringPaymentRequest != nil || r.automaticReloadPaymentRequest != nil
                || r.deferredPaymentRequest != nil
            {
                payment = SandboxMerchantToken.apply(
                    to: payment,
                    cardIdentity: card.paymentPass?.primaryAccountIdentifier ?? card.network + "|" + card.displayName,
                    merchantIdentifierHash: recipient.merchantIdentifierHash,
                    fpanSuffix: card.paymentPass?.primaryAccountNumberSuffix ?? String(card.displayName.suffix(4)),
                    network: card.network
                )
                issued(payment, for: r)
            }
            if let contexts = r.multiTokenContexts, !contexts.isEmpty {
                payment.authenticationResponses = SandboxMerchantToken.authenticationResponses(
                    contexts.map { ($0.merchantIdentifier, $0.amount) }
                )
            }
            let applicationData = context.request.applicationData.flatMap(Base64.decode)
            let token = try issuer.issue(payment, to: recipient, applicationData: applicationData, signingTime: time)
            return ApplePayPaymentToken(
                paymentMethod: method,
                transactionIdentifier: token.header.transactionId.uppercased(),
                paymentData: token.jsonValue
            )
        } catch {
            // A currency outside ISO 4217's current list: no realistic plaintext exists, so the
            // payment carries the marked placeholder rather than an invented one.
            return PlaceholderTokenFactory().makeToken(for: context)
        }
    }

    /// Tells ``onMerchantToken`` of the merchant token `payment` carries, issued for `request`.
    func issued(_ payment: SandboxPayment, for request: ApplePayPaymentRequest) {
        guard let onMerchantToken, let identifier = payment.merchantTokenIdentifier else { return }
        onMerchantToken(
            SandboxIssuedMerchantToken(
                merchantTokenIdentifier: identifier,
                merchantIdentifierHash: recipient.merchantIdentifierHash,
                tokenNotificationURL: request.recurringPaymentRequest?.tokenNotificationURL
                    ?? request.automaticReloadPaymentRequest?.tokenNotificationURL
                    ?? request.deferredPaymentRequest?.tokenNotificationURL,
                metadata: payment.merchantTokenMetadata
            )
        )
    }
}
