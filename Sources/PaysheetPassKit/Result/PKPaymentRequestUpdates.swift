import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// A delegate's answer to a change on the sheet (`PKPaymentRequestUpdate`): the new summary.
open class PKPaymentRequestUpdate: NSObject, @unchecked Sendable {
    /// The new summary; the last item is the total.
    open var paymentSummaryItems: [PKPaymentSummaryItem]
    /// Deprecated: the status (errors say more).
    open var status: PKPaymentAuthorizationStatus = .success
    /// New shipping methods, if they change.
    open var shippingMethods: [PKShippingMethod] = []
    open var multiTokenContexts: [PKPaymentTokenContext] = []
    open var recurringPaymentRequest: PKRecurringPaymentRequest?
    open var automaticReloadPaymentRequest: PKAutomaticReloadPaymentRequest?
    open var deferredPaymentRequest: PKDeferredPaymentRequest?

    /// Set when the answer came through a deprecated completion that takes a status (iOS 8–10):
    /// the sheet shows that status as seed 000's table says.
    var legacyStatus: PKPaymentAuthorizationStatus?
    /// Set when the answer came through a deprecated completion that also gave shipping methods.
    var legacyShippingMethods: [PKShippingMethod]?
    /// Set on the answer of a handler that was dropped without being called.
    var neverCompleted = false

    public required init(paymentSummaryItems: [PKPaymentSummaryItem]) {
        self.paymentSummaryItems = paymentSummaryItems
        super.init()
    }
}

/// The answer to a new shipping contact (`PKPaymentRequestShippingContactUpdate`).
open class PKPaymentRequestShippingContactUpdate: PKPaymentRequestUpdate, @unchecked Sendable {
    /// What is wrong with the contact (``PKPaymentRequest/paymentShippingAddressInvalidError(withKey:localizedDescription:)``, …).
    open var errors: [Error]!

    public init(errors: [Error]?, paymentSummaryItems: [PKPaymentSummaryItem], shippingMethods: [PKShippingMethod]) {
        self.errors = errors ?? []
        super.init(paymentSummaryItems: paymentSummaryItems)
        self.shippingMethods = shippingMethods
    }

    public required init(paymentSummaryItems: [PKPaymentSummaryItem]) {
        self.errors = []
        super.init(paymentSummaryItems: paymentSummaryItems)
    }
}

/// The answer to a new shipping method (`PKPaymentRequestShippingMethodUpdate`).
open class PKPaymentRequestShippingMethodUpdate: PKPaymentRequestUpdate, @unchecked Sendable {}

/// The answer to a new card (`PKPaymentRequestPaymentMethodUpdate`).
open class PKPaymentRequestPaymentMethodUpdate: PKPaymentRequestUpdate, @unchecked Sendable {
    /// What is wrong with the card or its billing contact.
    open var errors: [Error]!

    public init(errors: [Error]?, paymentSummaryItems: [PKPaymentSummaryItem]) {
        self.errors = errors ?? []
        super.init(paymentSummaryItems: paymentSummaryItems)
    }

    public required init(paymentSummaryItems: [PKPaymentSummaryItem]) {
        self.errors = []
        super.init(paymentSummaryItems: paymentSummaryItems)
    }
}

/// The answer to a coupon code (`PKPaymentRequestCouponCodeUpdate`).
open class PKPaymentRequestCouponCodeUpdate: PKPaymentRequestUpdate, @unchecked Sendable {
    /// What is wrong with the code (``PKPaymentRequest/paymentCouponCodeInvalidError(localizedDescription:)``).
    open var errors: [Error]!

    public init(errors: [Error]?, paymentSummaryItems: [PKPaymentSummaryItem], shippingMethods: [PKShippingMethod]) {
        self.errors = errors ?? []
        super.init(paymentSummaryItems: paymentSummaryItems)
        self.shippingMethods = shippingMethods
    }

    public required init(paymentSummaryItems: [PKPaymentSummaryItem]) {
        self.errors = []
        super.init(paymentSummaryItems: paymentSummaryItems)
    }
}

/// An order the payment placed, for Wallet (`PKPaymentOrderDetails`).
open class PKPaymentOrderDetails: NSObject, @unchecked Sendable {
    open var orderTypeIdentifier: String
    open var orderIdentifier: String
    open var webServiceURL: URL
    open var authenticationToken: String

    public init(orderTypeIdentifier: String, orderIdentifier: String, webServiceURL: URL, authenticationToken: String) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.webServiceURL = webServiceURL
        self.authenticationToken = authenticationToken
        super.init()
    }
}

/// The outcome of an authorization (`PKPaymentAuthorizationResult`).
open class PKPaymentAuthorizationResult: NSObject, @unchecked Sendable {
    /// Success or failure.
    open var status: PKPaymentAuthorizationStatus
    /// What to fix (the sheet stays open with them).
    open var errors: [Error]!
    /// The order placed, for Wallet.
    open var orderDetails: PKPaymentOrderDetails?
    /// Set when the result came through a deprecated completion with a status only.
    var isLegacy = false
    /// Set on the answer of a handler that was dropped without being called.
    var neverCompleted = false

    public init(status: PKPaymentAuthorizationStatus, errors: [Error]?) {
        self.status = status
        self.errors = errors ?? []
        super.init()
    }
}
