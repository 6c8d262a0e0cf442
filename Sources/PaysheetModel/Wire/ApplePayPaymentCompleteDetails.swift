/// What a Payment Request page passes as the data of `PaymentResponse.complete(result, details)`
/// for the Apple Pay method (`ApplePayPaymentCompleteDetails`).
public struct ApplePayPaymentCompleteDetails: Codable, Sendable, Hashable {
    /// Order details for Wallet.
    public var orderDetails: ApplePayPaymentOrderDetails?

    /// Details.
    public init(orderDetails: ApplePayPaymentOrderDetails? = nil) { self.orderDetails = orderDetails }
}
