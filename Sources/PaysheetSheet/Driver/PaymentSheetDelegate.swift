import PaysheetModel

/// A merchant's checkout logic, shaped like PassKit's `PKPaymentAuthorizationControllerDelegate`,
/// so that the same decisions a page makes in its `on*` handlers can be written and tested in
/// Swift. Every method but ``paymentSheet(_:didAuthorizePayment:)`` has a default that keeps the
/// sheet's current summary.
public protocol PaymentSheetDelegate: Sendable {
    /// Merchant validation: return the opaque merchant session.
    func paymentSheet(_ sheet: PaymentSheetDriver, validateMerchantAt validationURL: String) async -> JSONValue
    /// The user chose a card.
    func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectPaymentMethod method: ApplePayPaymentMethod
    ) async -> ApplePayPaymentMethodUpdate
    /// The user chose a shipping contact (redacted).
    func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectShippingContact contact: ApplePayPaymentContact
    ) async -> ApplePayShippingContactUpdate
    /// The user chose a shipping method.
    func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectShippingMethod method: ApplePayShippingMethod
    ) async -> ApplePayShippingMethodUpdate
    /// The user entered a coupon code.
    func paymentSheet(_ sheet: PaymentSheetDriver, didChangeCouponCode code: String) async -> ApplePayCouponCodeUpdate
    /// The user authorized the payment.
    func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didAuthorizePayment payment: ApplePayPayment
    ) async -> ApplePayPaymentAuthorizationResult
    /// The sheet was dismissed without a final result (user cancel, timeout, navigation).
    func paymentSheetDidCancel(_ sheet: PaymentSheetDriver, error: ApplePaySessionError) async
}

extension PaymentSheetDelegate {
    public func paymentSheet(_ sheet: PaymentSheetDriver, validateMerchantAt validationURL: String) async -> JSONValue {
        ["merchantSessionIdentifier": "PAYSHEET_SIMULATED_SESSION"]
    }
    public func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectPaymentMethod method: ApplePayPaymentMethod
    ) async -> ApplePayPaymentMethodUpdate {
        await sheet.unchangedUpdate()
    }
    public func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectShippingContact contact: ApplePayPaymentContact
    ) async -> ApplePayShippingContactUpdate {
        await sheet.unchangedUpdate()
    }
    public func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectShippingMethod method: ApplePayShippingMethod
    ) async -> ApplePayShippingMethodUpdate {
        await sheet.unchangedUpdate()
    }
    public func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didChangeCouponCode code: String
    ) async -> ApplePayCouponCodeUpdate {
        await sheet.unchangedUpdate()
    }
    public func paymentSheetDidCancel(_ sheet: PaymentSheetDriver, error: ApplePaySessionError) async {}
}
