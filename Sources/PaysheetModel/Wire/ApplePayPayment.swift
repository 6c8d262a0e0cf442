/// The authorized payment the page receives in `paymentauthorized` (`ApplePayPayment`).
public struct ApplePayPayment: Codable, Sendable, Hashable {
    /// The encrypted payment token.
    public var token: ApplePayPaymentToken
    /// The billing contact, with only the requested fields.
    public var billingContact: ApplePayPaymentContact?
    /// The shipping contact, with only the requested fields.
    public var shippingContact: ApplePayPaymentContact?

    /// A payment.
    public init(
        token: ApplePayPaymentToken,
        billingContact: ApplePayPaymentContact? = nil,
        shippingContact: ApplePayPaymentContact? = nil
    ) {
        self.token = token
        self.billingContact = billingContact
        self.shippingContact = shippingContact
    }
}

/// The token of an authorized payment (`ApplePayPaymentToken`).
public struct ApplePayPaymentToken: Codable, Sendable, Hashable {
    /// The card used, as the page may see it.
    public var paymentMethod: ApplePayPaymentMethod
    /// The transaction identifier (hex).
    public var transactionIdentifier: String?
    /// The encrypted payment data: `{version, data, signature, header}`.
    public var paymentData: JSONValue

    /// A token.
    public init(paymentMethod: ApplePayPaymentMethod, transactionIdentifier: String?, paymentData: JSONValue) {
        self.paymentMethod = paymentMethod
        self.transactionIdentifier = transactionIdentifier
        self.paymentData = paymentData
    }
}

/// A card as the page sees it (`ApplePayPaymentMethod`).
public struct ApplePayPaymentMethod: Codable, Sendable, Hashable {
    /// e.g. "Visa 1234".
    public var displayName: String?
    /// e.g. "Visa".
    public var network: String?
    /// debit, credit, prepaid or store.
    public var type: ApplePayPaymentMethodType?
    /// The pass behind the card.
    public var paymentPass: ApplePayPaymentPass?
    /// The billing contact (API version 10+), redacted before authorization.
    public var billingContact: ApplePayPaymentContact?

    /// A payment method.
    public init(
        displayName: String?,
        network: String?,
        type: ApplePayPaymentMethodType?,
        paymentPass: ApplePayPaymentPass? = nil,
        billingContact: ApplePayPaymentContact? = nil
    ) {
        self.displayName = displayName
        self.network = network
        self.type = type
        self.paymentPass = paymentPass
        self.billingContact = billingContact
    }
}

/// The pass of a card (`ApplePayPaymentPass`).
public struct ApplePayPaymentPass: Codable, Sendable, Hashable {
    /// The pass's account identifier.
    public var primaryAccountIdentifier: String
    /// The last digits of the card number.
    public var primaryAccountNumberSuffix: String
    /// The device account identifier.
    public var deviceAccountIdentifier: String?
    /// The last digits of the device account number.
    public var deviceAccountNumberSuffix: String?
    /// The activation state.
    public var activationState: ApplePayPaymentPassActivationState

    /// A pass.
    public init(
        primaryAccountIdentifier: String,
        primaryAccountNumberSuffix: String,
        deviceAccountIdentifier: String? = nil,
        deviceAccountNumberSuffix: String? = nil,
        activationState: ApplePayPaymentPassActivationState = .activated
    ) {
        self.primaryAccountIdentifier = primaryAccountIdentifier
        self.primaryAccountNumberSuffix = primaryAccountNumberSuffix
        self.deviceAccountIdentifier = deviceAccountIdentifier
        self.deviceAccountNumberSuffix = deviceAccountNumberSuffix
        self.activationState = activationState
    }
}
