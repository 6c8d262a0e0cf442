import PaysheetContact
import PaysheetModel

/// What the merchant sells under, and the rules of the update endpoints.
public struct MerchantSettings: Sendable, Codable, Equatable {
    /// The name on the total line and in merchant validation.
    public var displayName: String = "Paysheet Demo Store"
    /// The merchant identifier (`merchant.…`).
    public var merchantIdentifier: String = "merchant.dev.paysheet.sandbox"
    /// The merchant's country (ISO 3166), the payment request's `countryCode`.
    public var countryCode: String = "CN"
    /// The domain of the web store (merchant validation's `initiativeContext`).
    public var domain: String = "localhost"
    /// Networks offered.
    public var supportedNetworks: [String] = ["visa", "masterCard", "amex", "discover", "chinaUnionPay"]
    /// Capabilities.
    public var merchantCapabilities: [String] = ["supports3DS", "supportsEMV", "supportsCredit", "supportsDebit"]
    /// The catalog: products a cart may name by `sku` (the server then sets label and price).
    public var catalog: [Product] = [
        Product(sku: "tea-set", label: "Porcelain tea set", amount: "128.00", currencyCode: "CNY"),
        Product(sku: "green-tea", label: "Green tea, 250 g", amount: "45.50", currencyCode: "CNY"),
        Product(sku: "tea-cups", label: "Tea cups, set of 4", amount: "36.00", currencyCode: "CNY"),
    ]
    /// The shipping methods a shopper's order with `"delivery": "ship"` offers, per currency; the
    /// first is selected. A shopper never sends an amount: these are the only prices of shipping.
    public var shippingMethods: [ShippingOption] = [
        ShippingOption(
            identifier: "standard",
            label: "Standard",
            detail: "3 to 5 days",
            amount: "0.00",
            currencyCode: "CNY"
        ),
        ShippingOption(
            identifier: "express",
            label: "Express",
            detail: "Next day",
            amount: "20.00",
            currencyCode: "CNY"
        ),
    ]
    /// Coupons: code → percent off the goods (exact; see `Rate` for the rounding).
    public var coupons: [String: Rate] = ["WELCOME10": Rate(wholePercent: 10), "HALF": Rate(wholePercent: 50)]
    /// Sales tax by shipping region (`US-CA`) or country (`JP`): percent of goods after discount.
    public var taxRates: [String: Rate] = [
        "US-CA": try! Rate(percent: "7.25"), "US-NY": Rate(wholePercent: 4), "US-WA": try! Rate(percent: "6.5"),
    ]
    /// Surcharge by card type (`credit`): percent of the total.
    public var surcharges: [String: Rate] = [:]
    /// Plans sold as payments that continue after today (subscriptions, automatic reloads): an
    /// order names one with `"plan"`.
    public var plans: [SubscriptionPlan] = [
        SubscriptionPlan(
            id: "tea-monthly",
            kind: .recurring,
            description: "Tea of the month club",
            label: "Tea of the month",
            amount: "29.00",
            currencyCode: "CNY",
            trialLabel: "First month",
            trialAmount: "1.00",
            billingAgreement:
                "1.00 CNY for the first month, then 29.00 CNY a month. Cancel at any time from the subscription page."
        )
    ]
    /// Where a shopper manages a plan's agreement (the sheet's `managementURL`); by default the
    /// demo store's subscription page on the server's public URL.
    public var managementURL: String?
    /// Where the token gateway notifies life-cycle events of a plan's merchant token (the sheet's
    /// `tokenNotificationURL`); by default the server's own route on its public URL
    /// (`/v1/merchant-token-events`, docs/agreements.md).
    public var tokenNotificationURL: String?
    /// Where the merchant ships, and P.O. box rules (the contact validator's policy).
    public var shipping: ContactValidationPolicy = ContactValidationPolicy()

    /// The defaults.
    public init() {}
}

/// A product of the catalog.
public struct Product: Sendable, Codable, Equatable {
    /// Stock-keeping unit, unique in the catalog.
    public var sku: String
    /// The label on the sheet.
    public var label: String
    /// The unit price (decimal text).
    public var amount: String
    /// The price's currency.
    public var currencyCode: String

    /// A product.
    public init(sku: String, label: String, amount: String, currencyCode: String) {
        self.sku = sku
        self.label = label
        self.amount = amount
        self.currencyCode = currencyCode
    }
}

/// A shipping method the merchant offers.
public struct ShippingOption: Sendable, Codable, Equatable {
    /// The identifier, unique per currency.
    public var identifier: String
    /// The label on the sheet.
    public var label: String
    /// The detail line (`3 to 5 days`).
    public var detail: String
    /// The price (decimal text).
    public var amount: String
    /// The price's currency.
    public var currencyCode: String

    /// A shipping method.
    public init(identifier: String, label: String, detail: String, amount: String, currencyCode: String) {
        self.identifier = identifier
        self.label = label
        self.detail = detail
        self.amount = amount
        self.currencyCode = currencyCode
    }
}
