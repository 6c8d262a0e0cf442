/// The W3C Payment Request API's dictionaries, as WebKit binds them (`PaymentRequest.idl` and its
/// dictionaries). Only what the Apple Pay payment method reads is kept.

/// `PaymentCurrencyAmount`.
public struct PaymentCurrencyAmount: Sendable, Hashable {
    /// An ISO 4217 code; upper-cased once checked.
    public var currency: String
    /// A decimal monetary value (`-?[0-9]+(\.[0-9]+)?`).
    public var value: String

    /// An amount.
    public init(currency: String, value: String) {
        self.currency = currency
        self.value = value
    }
}

/// `PaymentItem`: a summary line or the total.
public struct PaymentItem: Sendable, Hashable {
    /// The label.
    public var label: String
    /// The amount.
    public var amount: PaymentCurrencyAmount
    /// Whether the amount is not final yet.
    public var pending: Bool

    /// An item.
    public init(label: String, amount: PaymentCurrencyAmount, pending: Bool = false) {
        self.label = label
        self.amount = amount
        self.pending = pending
    }
}

/// `PaymentShippingOption`.
public struct PaymentShippingOption: Sendable, Hashable {
    /// The option's identifier.
    public var id: String
    /// The label.
    public var label: String
    /// The price.
    public var amount: PaymentCurrencyAmount
    /// Whether it is the one chosen now.
    public var selected: Bool
}

/// `PaymentDetailsModifier`: a different total and extra lines for one kind of card (the Apple
/// Pay method's `data` is an `ApplePayModifier`, whose `paymentMethodType` names the kind).
public struct PaymentDetailsModifier: Sendable, Hashable {
    /// The payment method it applies to.
    public var supportedMethods: String
    /// The total that replaces the details' total.
    public var total: PaymentItem?
    /// Lines added after the details' display items.
    public var additionalDisplayItems: [PaymentItem]
    /// The method's data (for Apple Pay: `{"paymentMethodType": "credit"}`).
    public var data: JSONValue?
}

/// `AddressErrors`: per-field messages about the shipping address.
public struct PaymentAddressErrors: Sendable, Hashable {
    public var addressLine, city, country, dependentLocality, organization, phone, postalCode, recipient, region,
        sortingCode: String?
}

/// `PayerErrors`.
public struct PaymentPayerErrors: Sendable, Hashable {
    public var email, name, phone: String?
}

/// `PaymentDetailsInit` and `PaymentDetailsUpdate` (one type: the members they share, and each
/// one's own as optionals).
public struct PaymentDetails: Sendable, Hashable {
    /// The request's identifier (`PaymentDetailsInit.id`).
    public var id: String?
    /// The total (required in `PaymentDetailsInit`).
    public var total: PaymentItem?
    /// The summary lines.
    public var displayItems: [PaymentItem] = []
    /// The shipping options.
    public var shippingOptions: [PaymentShippingOption] = []
    /// The modifiers.
    public var modifiers: [PaymentDetailsModifier] = []
    /// An update's message about the shipping address as a whole.
    public var error: String?
    /// An update's per-field messages about the shipping address.
    public var shippingAddressErrors: PaymentAddressErrors?
    /// An update's messages about the payer's name, email and phone.
    public var payerErrors: PaymentPayerErrors?
    /// An update's `paymentMethodErrors` (for Apple Pay: a sequence of `ApplePayError`).
    public var paymentMethodErrors: JSONValue?

    /// Details.
    public init() {}
}

/// `PaymentShippingType`.
public enum PaymentShippingType: String, Sendable, Hashable, CaseIterable {
    case shipping, delivery, pickup
}

/// `PaymentOptions`.
public struct PaymentOptions: Sendable, Hashable {
    public var requestPayerName = false
    public var requestPayerEmail = false
    public var requestPayerPhone = false
    public var requestShipping = false
    public var shippingType: PaymentShippingType = .shipping

    /// No options.
    public init() {}
}

/// `PaymentMethodData`: a payment method's identifier and its data.
public struct PaymentMethodData: Sendable, Hashable {
    /// The identifier (`https://apple.com/apple-pay` for Apple Pay).
    public var supportedMethods: String
    /// The method's data (JSON, as `JSON.stringify` left it).
    public var data: JSONValue?
}
