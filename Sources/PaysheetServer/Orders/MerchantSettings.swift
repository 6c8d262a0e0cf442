import PaysheetContact

/// What the merchant sells under, and the rules of the update endpoints.
public struct MerchantSettings: Sendable, Codable, Equatable {
    /// The name on the total line and in merchant validation.
    public var displayName: String = "Paysheet Demo Store"
    /// The merchant identifier (`merchant.…`).
    public var merchantIdentifier: String = "merchant.dev.paysheet.sandbox"
    /// The domain of the web store (merchant validation's `initiativeContext`).
    public var domain: String = "localhost"
    /// Networks offered.
    public var supportedNetworks: [String] = ["visa", "masterCard", "amex", "discover", "chinaUnionPay"]
    /// Capabilities.
    public var merchantCapabilities: [String] = ["supports3DS", "supportsEMV", "supportsCredit", "supportsDebit"]
    /// Coupons: code → percent off the goods.
    public var coupons: [String: Double] = ["WELCOME10": 10, "HALF": 50]
    /// Sales tax by shipping region (`US-CA`) or country (`JP`): percent of goods after discount.
    public var taxRates: [String: Double] = ["US-CA": 7.25, "US-NY": 4, "US-WA": 6.5]
    /// Surcharge by card type (`credit`): percent of the total.
    public var surcharges: [String: Double] = [:]
    /// Where the merchant ships, and P.O. box rules (the contact validator's policy).
    public var shipping: ContactValidationPolicy = ContactValidationPolicy()

    /// The defaults.
    public init() {}
}
