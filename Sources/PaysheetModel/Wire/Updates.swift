/// What the page passes to `completeShippingContactSelection`, `completeShippingMethodSelection`,
/// `completePaymentMethodSelection` and `completeCouponCodeChange` (the `ApplePay*Update`
/// dictionaries share these members; which ones a given completion reads is noted on each).
public struct ApplePayUpdate: Codable, Sendable, Hashable {
    /// The new total (required by Safari).
    public var newTotal: ApplePayLineItem?
    /// The new summary lines.
    public var newLineItems: [ApplePayLineItem]?
    /// The new shipping methods.
    public var newShippingMethods: [ApplePayShippingMethod]?
    /// Errors to show (not read by `completeShippingMethodSelection`).
    public var errors: [ApplePayError]?
    /// A new recurring payment request.
    public var newRecurringPaymentRequest: ApplePayRecurringPaymentRequest?
    /// A new automatic reload payment request.
    public var newAutomaticReloadPaymentRequest: ApplePayAutomaticReloadPaymentRequest?
    /// New multi-merchant contexts.
    public var newMultiTokenContexts: [ApplePayPaymentTokenContext]?
    /// A new deferred payment request.
    public var newDeferredPaymentRequest: ApplePayDeferredPaymentRequest?
    /// The disbursement request, replaced (the Payment Request API's modifiers).
    public var newDisbursementRequest: ApplePayDisbursementRequest?

    /// An update.
    public init(
        newTotal: ApplePayLineItem?,
        newLineItems: [ApplePayLineItem]? = nil,
        newShippingMethods: [ApplePayShippingMethod]? = nil,
        errors: [ApplePayError]? = nil
    ) {
        self.newTotal = newTotal
        self.newLineItems = newLineItems
        self.newShippingMethods = newShippingMethods
        self.errors = errors
    }
}

/// `ApplePayShippingContactUpdate`.
public typealias ApplePayShippingContactUpdate = ApplePayUpdate
/// `ApplePayShippingMethodUpdate`.
public typealias ApplePayShippingMethodUpdate = ApplePayUpdate
/// `ApplePayPaymentMethodUpdate`.
public typealias ApplePayPaymentMethodUpdate = ApplePayUpdate
/// `ApplePayCouponCodeUpdate`.
public typealias ApplePayCouponCodeUpdate = ApplePayUpdate

/// What the page passes to `completePayment` (`ApplePayPaymentAuthorizationResult`).
public struct ApplePayPaymentAuthorizationResult: Codable, Sendable, Hashable {
    /// A `STATUS_*` code, 0…7.
    public var status: Int
    /// Errors to show; with errors the result is never final.
    public var errors: [ApplePayError]?
    /// Order details for Wallet (API version 14+).
    public var orderDetails: ApplePayPaymentOrderDetails?

    /// A result.
    public init(
        status: ApplePayStatus,
        errors: [ApplePayError]? = nil,
        orderDetails: ApplePayPaymentOrderDetails? = nil
    ) {
        self.status = status.rawValue
        self.errors = errors
        self.orderDetails = orderDetails
    }

    /// Whether the sheet closes: status SUCCESS or FAILURE and no errors (WebKit's `isFinalState`).
    public var isFinal: Bool { (status == 0 || status == 1) && (errors ?? []).isEmpty }
}

/// Order details handed to Wallet (`ApplePayPaymentOrderDetails`).
public struct ApplePayPaymentOrderDetails: Codable, Sendable, Hashable {
    /// The order type identifier.
    public var orderTypeIdentifier: String
    /// The order identifier.
    public var orderIdentifier: String
    /// The order web service URL.
    public var webServiceURL: String
    /// The authentication token.
    public var authenticationToken: String

    /// Order details.
    public init(
        orderTypeIdentifier: String,
        orderIdentifier: String,
        webServiceURL: String,
        authenticationToken: String
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.webServiceURL = webServiceURL
        self.authenticationToken = authenticationToken
    }
}
