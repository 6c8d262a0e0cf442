import Foundation
import PaysheetModel

/// An order as stored: the cart, what the shopper chose on the sheet, and the totals.
public struct OrderRecord: Sendable, Codable, Equatable {
    /// Our id (`ord_…`).
    public var id: String
    /// Status.
    public var status: OrderStatus
    /// ISO 4217 alphabetic code (the total's currency).
    public var currencyCode: String { amount.currency.code }
    /// ISO 3166 merchant country.
    public var countryCode: String
    /// The cart's line items as given (amounts as decimal text).
    public var lineItems: [ApplePayLineItem]
    /// The shipping methods offered.
    public var shippingMethods: [ApplePayShippingMethod]
    /// The chosen shipping method's identifier.
    public var shippingMethod: String?
    /// The applied coupon code (upper-cased).
    public var couponCode: String?
    /// Coupon codes sent for this order that were not valid (a guesser is stopped at
    /// the server's `couponAttemptsPerOrder` limit).
    public var couponAttempts: Int?
    /// The shipping region (`US-CA`) that sets the tax, from the sheet's redacted contact.
    public var taxRegion: String?
    /// The card type the shopper chose (`credit`, `debit`, …), for surcharges.
    public var cardType: String?
    /// The total: the amount that is charged.
    public var amount: Money
    /// `applicationData` of the payment request (Base64); its SHA-256 is in the token.
    public var applicationData: String
    /// Paid (succeeded charges).
    public var paid: Money
    /// Refunded or voided (succeeded).
    public var refunded: Money
    /// Created at.
    public var createdAt: Date
    /// When the shopper (or the merchant) canceled the order; from then on no charge is made and
    /// any money taken is returned.
    public var canceledAt: Date?
    /// SHA-256 of the order's client secret (the shopper's page's credential for this order);
    /// `nil` for orders made before client secrets existed, which only a merchant key reaches.
    public var clientSecretHash: String?
    /// The plan the order buys (its first payment starts an agreement), by id.
    public var planId: String?
    /// For a merchant-initiated charge: the agreement it charges.
    public var agreementId: String?
    /// Optimistic-concurrency version.
    public var version: Int = 0

    /// An order (the shape of the memberwise initializer, for the package's own targets).
    package init(
        id: String,
        status: OrderStatus,
        currency: Currency,
        countryCode: String,
        lineItems: [ApplePayLineItem],
        shippingMethods: [ApplePayShippingMethod],
        shippingMethod: String? = nil,
        couponCode: String? = nil,
        couponAttempts: Int? = nil,
        taxRegion: String? = nil,
        cardType: String? = nil,
        amount: Int,
        applicationData: String,
        paid: Int = 0,
        refunded: Int = 0,
        createdAt: Date,
        canceledAt: Date? = nil,
        clientSecretHash: String? = nil,
        planId: String? = nil,
        agreementId: String? = nil,
        version: Int = 0
    ) {
        self.id = id
        self.status = status
        self.countryCode = countryCode
        self.lineItems = lineItems
        self.shippingMethods = shippingMethods
        self.shippingMethod = shippingMethod
        self.couponCode = couponCode
        self.couponAttempts = couponAttempts
        self.taxRegion = taxRegion
        self.cardType = cardType
        self.amount = Money(amount, currency)
        self.applicationData = applicationData
        self.paid = Money(paid, currency)
        self.refunded = Money(refunded, currency)
        self.createdAt = createdAt
        self.canceledAt = canceledAt
        self.clientSecretHash = clientSecretHash
        self.planId = planId
        self.agreementId = agreementId
        self.version = version
    }
}

extension OrderRecord {
    enum CodingKeys: String, CodingKey {
        case id, status, currencyCode, countryCode, lineItems, shippingMethods, shippingMethod, couponCode
        case couponAttempts, taxRegion, cardType, amount, applicationData, paid, refunded, createdAt, canceledAt
        case clientSecretHash, planId, agreementId, version
    }

    /// Reads a stored order: its amounts in minor units beside its currency's code, as written
    /// since the first version.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let code = try c.decode(String.self, forKey: .currencyCode)
        guard let currency = Currency(code) else {
            throw DecodingError.dataCorruptedError(
                forKey: .currencyCode,
                in: c,
                debugDescription: "no currency \(code)"
            )
        }
        self.init(
            id: try c.decode(String.self, forKey: .id),
            status: try c.decode(OrderStatus.self, forKey: .status),
            currency: currency,
            countryCode: try c.decode(String.self, forKey: .countryCode),
            lineItems: try c.decode([ApplePayLineItem].self, forKey: .lineItems),
            shippingMethods: try c.decode([ApplePayShippingMethod].self, forKey: .shippingMethods),
            shippingMethod: try c.decodeIfPresent(String.self, forKey: .shippingMethod),
            couponCode: try c.decodeIfPresent(String.self, forKey: .couponCode),
            couponAttempts: try c.decodeIfPresent(Int.self, forKey: .couponAttempts),
            taxRegion: try c.decodeIfPresent(String.self, forKey: .taxRegion),
            cardType: try c.decodeIfPresent(String.self, forKey: .cardType),
            amount: try c.decode(Int.self, forKey: .amount),
            applicationData: try c.decode(String.self, forKey: .applicationData),
            paid: try c.decodeIfPresent(Int.self, forKey: .paid) ?? 0,
            refunded: try c.decodeIfPresent(Int.self, forKey: .refunded) ?? 0,
            createdAt: try c.decode(Date.self, forKey: .createdAt),
            canceledAt: try c.decodeIfPresent(Date.self, forKey: .canceledAt),
            clientSecretHash: try c.decodeIfPresent(String.self, forKey: .clientSecretHash),
            planId: try c.decodeIfPresent(String.self, forKey: .planId),
            agreementId: try c.decodeIfPresent(String.self, forKey: .agreementId),
            version: try c.decodeIfPresent(Int.self, forKey: .version) ?? 0
        )
    }

    /// Writes it in the same shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(status, forKey: .status)
        try c.encode(currencyCode, forKey: .currencyCode)
        try c.encode(countryCode, forKey: .countryCode)
        try c.encode(lineItems, forKey: .lineItems)
        try c.encode(shippingMethods, forKey: .shippingMethods)
        try c.encodeIfPresent(shippingMethod, forKey: .shippingMethod)
        try c.encodeIfPresent(couponCode, forKey: .couponCode)
        try c.encodeIfPresent(couponAttempts, forKey: .couponAttempts)
        try c.encodeIfPresent(taxRegion, forKey: .taxRegion)
        try c.encodeIfPresent(cardType, forKey: .cardType)
        try c.encode(amount.minorUnits, forKey: .amount)
        try c.encode(applicationData, forKey: .applicationData)
        try c.encode(paid.minorUnits, forKey: .paid)
        try c.encode(refunded.minorUnits, forKey: .refunded)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encodeIfPresent(canceledAt, forKey: .canceledAt)
        try c.encodeIfPresent(clientSecretHash, forKey: .clientSecretHash)
        try c.encodeIfPresent(planId, forKey: .planId)
        try c.encodeIfPresent(agreementId, forKey: .agreementId)
        try c.encode(version, forKey: .version)
    }
}
