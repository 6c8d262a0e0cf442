import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// A request for payment (`PKPaymentRequest`): who is paid, in what currency, through which
/// networks, the summary, and what the sheet asks of the shopper.
open class PKPaymentRequest: NSObject, @unchecked Sendable {
    /// The merchant identifier (the payment processing certificate the token is encrypted to).
    open var merchantIdentifier: String = ""
    /// The merchant's country (ISO 3166-1 alpha-2).
    open var countryCode: String = ""
    /// The networks accepted.
    open var supportedNetworks: [PKPaymentNetwork] = []
    /// What the payment processor supports; must include ``PKMerchantCapability/threeDSecure``.
    open var merchantCapabilities: PKMerchantCapability = []
    /// The summary; the last item is the total.
    open var paymentSummaryItems: [PKPaymentSummaryItem] = []
    /// The currency (ISO 4217).
    open var currencyCode: String = ""
    /// Billing contact fields asked for.
    open var requiredBillingContactFields: Set<PKContactField> = []
    /// Deprecated: billing address fields.
    @available(*, deprecated, message: "Use requiredBillingContactFields")
    open var requiredBillingAddressFields: PKAddressField {
        get { PKAddressField(requiredBillingContactFields) }
        set { requiredBillingContactFields = newValue.contactFields }
    }
    /// A billing contact to start from.
    open var billingContact: PKContact?
    /// Shipping contact fields asked for.
    open var requiredShippingContactFields: Set<PKContactField> = []
    /// Deprecated: shipping address fields.
    @available(*, deprecated, message: "Use requiredShippingContactFields")
    open var requiredShippingAddressFields: PKAddressField {
        get { PKAddressField(requiredShippingContactFields) }
        set { requiredShippingContactFields = newValue.contactFields }
    }
    /// A shipping contact to start from.
    open var shippingContact: PKContact?
    /// The shipping methods offered.
    open var shippingMethods: [PKShippingMethod]?
    /// How the goods reach the shopper.
    open var shippingType: PKShippingType = .shipping
    /// Data of the merchant's (its SHA-256 is in the token).
    open var applicationData: Data?
    /// Countries whose cards are accepted (ISO 3166-1 alpha-2).
    open var supportedCountries: Set<String>?
    /// Whether the sheet offers a coupon field.
    open var supportsCouponCode: Bool = false
    /// A coupon code already entered.
    open var couponCode: String?
    /// Whether the shipping address may be edited.
    open var shippingContactEditingMode: PKShippingContactEditingMode = .available
    /// A subscription's merchant token request.
    open var recurringPaymentRequest: PKRecurringPaymentRequest?
    /// An automatic reload's merchant token request.
    open var automaticReloadPaymentRequest: PKAutomaticReloadPaymentRequest?
    /// A deferred payment's merchant token request.
    open var deferredPaymentRequest: PKDeferredPaymentRequest?
    /// A multi-merchant payment's parts.
    open var multiTokenContexts: [PKPaymentTokenContext] = []
    /// Whether Apple Pay Later is offered.
    open var applePayLaterAvailability: ApplePayLaterAvailability = .available
    /// The merchant category code (ISO 18245).
    open var merchantCategoryCode: MerchantCategoryCode?
    /// An identifier for attributing the payment (iOS 26); not shown on the sheet.
    open var attributionIdentifier: String?
    /// Whether the request is made on behalf of another merchant (iOS 26); not simulated.
    open var isDelegatedRequest: Bool = false

    /// Whether Apple Pay Later is offered for this payment.
    public enum ApplePayLaterAvailability: Hashable, Sendable {
        case available
        case unavailable(Reason)

        /// Why it is not.
        public enum Reason: Hashable, Sendable {
            case itemIneligible
            case recurringTransaction
        }
    }

    /// A merchant category code (ISO 18245).
    public struct MerchantCategoryCode: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }
    }

    public override init() { super.init() }

    /// The networks this device supports (the simulated wallet's and the engine's).
    open class func availableNetworks() -> [PKPaymentNetwork] {
        [
            .amex, .cartesBancaires, .chinaUnionPay, .discover, .eftpos, .electron, .elo, .interac, .JCB, .mada,
            .maestro, .masterCard, .mir, .privateLabel, .quicPay, .suica, .visa, .vPay,
        ]
    }

    // MARK: Errors, as PassKit builds them

    /// A contact field that is not valid (`PKPaymentError.Code.shippingContactInvalidError`).
    open class func paymentContactInvalidError(
        withContactField field: PKContactField,
        localizedDescription: String?
    ) -> Error {
        PKPaymentError(
            .shippingContactInvalidError,
            userInfo: [PKPaymentErrorKey.contactFieldUserInfoKey.rawValue: field.rawValue],
            localizedDescription: localizedDescription
        )
    }

    /// A shipping address field that is not valid; `postalAddressKey` is a `CNPostalAddress…Key`.
    open class func paymentShippingAddressInvalidError(
        withKey postalAddressKey: String,
        localizedDescription: String?
    ) -> Error {
        PKPaymentError(
            .shippingContactInvalidError,
            userInfo: [
                PKPaymentErrorKey.contactFieldUserInfoKey.rawValue: PKContactField.postalAddress.rawValue,
                PKPaymentErrorKey.postalAddressUserInfoKey.rawValue: postalAddressKey,
            ],
            localizedDescription: localizedDescription
        )
    }

    /// A billing address field that is not valid.
    open class func paymentBillingAddressInvalidError(
        withKey postalAddressKey: String,
        localizedDescription: String?
    ) -> Error {
        PKPaymentError(
            .billingContactInvalidError,
            userInfo: [PKPaymentErrorKey.postalAddressUserInfoKey.rawValue: postalAddressKey],
            localizedDescription: localizedDescription
        )
    }

    /// An address the merchant does not ship to.
    open class func paymentShippingAddressUnserviceableError(
        withLocalizedDescription localizedDescription: String?
    )
        -> Error
    {
        PKPaymentError(.shippingAddressUnserviceableError, userInfo: [:], localizedDescription: localizedDescription)
    }

    /// A coupon code that is not valid.
    open class func paymentCouponCodeInvalidError(localizedDescription: String?) -> Error {
        PKPaymentError(.couponCodeInvalidError, userInfo: [:], localizedDescription: localizedDescription)
    }

    /// A coupon code that has expired.
    open class func paymentCouponCodeExpiredError(localizedDescription: String?) -> Error {
        PKPaymentError(.couponCodeExpiredError, userInfo: [:], localizedDescription: localizedDescription)
    }
}
