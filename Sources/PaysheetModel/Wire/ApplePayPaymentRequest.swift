/// What a page asks the sheet for (`ApplePayPaymentRequest`, including `ApplePayRequestBase`).
///
/// Build one directly in Swift, or get one from a page's JSON with
/// `RequestValidator/validate(_:version:profile:)`, which applies Safari's rules.
public struct ApplePayPaymentRequest: Codable, Sendable, Hashable {
    // ApplePayRequestBase
    /// Capabilities such as `supports3DS`.
    public var merchantCapabilities: [ApplePayMerchantCapability]
    /// Card networks accepted, e.g. `visa`, `masterCard`.
    public var supportedNetworks: [String]
    /// The merchant's country, ISO 3166 alpha-2.
    public var countryCode: String
    /// Billing fields the merchant needs after authorization.
    public var requiredBillingContactFields: [ApplePayContactField]?
    /// A prefilled billing contact.
    public var billingContact: ApplePayPaymentContact?
    /// Shipping fields the merchant needs.
    public var requiredShippingContactFields: [ApplePayContactField]?
    /// A prefilled shipping contact.
    public var shippingContact: ApplePayPaymentContact?
    /// Merchant data whose SHA-256 goes into the token header.
    public var applicationData: String?
    /// Card issuing countries accepted (API version 3+).
    public var supportedCountries: [String]?
    /// Whether the sheet offers a coupon field (API version 12+).
    public var supportsCouponCode: Bool?
    /// A prefilled coupon code.
    public var couponCode: String?
    /// Whether the shipping contact may be edited.
    public var shippingContactEditingMode: ApplePayShippingContactEditingMode?
    /// Pay-later availability.
    public var applePayLaterAvailability: ApplePayLaterAvailability?
    /// The merchant category code.
    public var merchantCategoryCode: String?
    /// Installment configuration, passed through unchanged.
    public var installmentConfiguration: JSONValue?
    /// Feature names (newest versions), passed through unchanged.
    public var features: [String]?
    /// Whether the merchant asks on behalf of another (`paymentRequestDelegation`).
    public var isDelegatedRequest: Bool?

    // ApplePayPaymentRequest
    /// The total; its label is the merchant name shown after "Pay".
    public var total: ApplePayLineItem
    /// The summary lines shown above the total.
    public var lineItems: [ApplePayLineItem]?
    /// ISO 4217 currency code.
    public var currencyCode: String
    /// How goods reach the buyer; `shipping` by default.
    public var shippingType: ApplePayShippingType?
    /// Shipping methods offered.
    public var shippingMethods: [ApplePayShippingMethod]?
    /// A recurring payment (API version 14+).
    public var recurringPaymentRequest: ApplePayRecurringPaymentRequest?
    /// An automatic reload payment (API version 14+).
    public var automaticReloadPaymentRequest: ApplePayAutomaticReloadPaymentRequest?
    /// Several merchants' tokens (API version 14+).
    public var multiTokenContexts: [ApplePayPaymentTokenContext]?
    /// A deferred payment.
    public var deferredPaymentRequest: ApplePayDeferredPaymentRequest?
    /// A payout to the shopper's card instead of a payment.
    public var disbursementRequest: ApplePayDisbursementRequest?

    /// A request with the required members.
    public init(
        countryCode: String,
        currencyCode: String,
        supportedNetworks: [String],
        merchantCapabilities: [ApplePayMerchantCapability],
        total: ApplePayLineItem
    ) {
        self.countryCode = countryCode
        self.currencyCode = currencyCode
        self.supportedNetworks = supportedNetworks
        self.merchantCapabilities = merchantCapabilities
        self.total = total
    }

    /// Whether the request asks for a shipping postal address.
    public var requestsShippingAddress: Bool { requiredShippingContactFields?.contains(.postalAddress) == true }
}

/// A recurring payment (`ApplePayRecurringPaymentRequest`).
public struct ApplePayRecurringPaymentRequest: Codable, Sendable, Hashable {
    /// What the payment is for.
    public var paymentDescription: String
    /// The regular billing; `paymentTiming` must be `recurring`.
    public var regularBilling: ApplePayLineItem
    /// An optional trial billing; `paymentTiming` must be `recurring`.
    public var trialBilling: ApplePayLineItem?
    /// The agreement text.
    public var billingAgreement: String?
    /// Where the user manages the payment.
    public var managementURL: String
    /// Where Apple notifies token changes.
    public var tokenNotificationURL: String?

    /// A recurring payment.
    public init(
        paymentDescription: String,
        regularBilling: ApplePayLineItem,
        trialBilling: ApplePayLineItem? = nil,
        billingAgreement: String? = nil,
        managementURL: String,
        tokenNotificationURL: String? = nil
    ) {
        self.paymentDescription = paymentDescription
        self.regularBilling = regularBilling
        self.trialBilling = trialBilling
        self.billingAgreement = billingAgreement
        self.managementURL = managementURL
        self.tokenNotificationURL = tokenNotificationURL
    }
}

/// An automatic reload payment (`ApplePayAutomaticReloadPaymentRequest`).
public struct ApplePayAutomaticReloadPaymentRequest: Codable, Sendable, Hashable {
    /// What the payment is for.
    public var paymentDescription: String
    /// The reload billing; `paymentTiming` must be `automaticReload`.
    public var automaticReloadBilling: ApplePayLineItem
    /// The agreement text.
    public var billingAgreement: String?
    /// Where the user manages the payment.
    public var managementURL: String
    /// Where Apple notifies token changes.
    public var tokenNotificationURL: String?

    /// An automatic reload payment.
    public init(
        paymentDescription: String,
        automaticReloadBilling: ApplePayLineItem,
        billingAgreement: String? = nil,
        managementURL: String,
        tokenNotificationURL: String? = nil
    ) {
        self.paymentDescription = paymentDescription
        self.automaticReloadBilling = automaticReloadBilling
        self.billingAgreement = billingAgreement
        self.managementURL = managementURL
        self.tokenNotificationURL = tokenNotificationURL
    }
}

/// A deferred payment (`ApplePayDeferredPaymentRequest`).
public struct ApplePayDeferredPaymentRequest: Codable, Sendable, Hashable {
    /// The agreement text.
    public var billingAgreement: String?
    /// The deferred billing; `paymentTiming` must be `deferred`.
    public var deferredBilling: ApplePayLineItem
    /// Until when the user may cancel for free.
    public var freeCancellationDate: String?
    /// The time zone of `freeCancellationDate`.
    public var freeCancellationDateTimeZone: String?
    /// Where the user manages the payment.
    public var managementURL: String
    /// What the payment is for.
    public var paymentDescription: String
    /// Where Apple notifies token changes.
    public var tokenNotificationURL: String?
}

/// One merchant's part of a multi-merchant payment (`ApplePayPaymentTokenContext`).
public struct ApplePayPaymentTokenContext: Codable, Sendable, Hashable {
    /// The merchant's identifier.
    public var merchantIdentifier: String
    /// The merchant's own reference.
    public var externalIdentifier: String
    /// The merchant's name.
    public var merchantName: String
    /// The merchant's domain.
    public var merchantDomain: String?
    /// The amount for this merchant.
    public var amount: String
}
