import Foundation
import PaysheetModel

/// An order as stored: the cart, what the shopper chose on the sheet, and the totals.
public struct OrderRecord: Sendable, Codable, Equatable {
    /// Our id (`ord_…`).
    public var id: String
    /// Status.
    public var status: OrderStatus
    /// ISO 4217 alphabetic code.
    public var currencyCode: String
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
    /// The total, minor units: the amount that is charged.
    public var amount: Int
    /// `applicationData` of the payment request (Base64); its SHA-256 is in the token.
    public var applicationData: String
    /// Paid (succeeded charges), minor units.
    public var paid: Int = 0
    /// Refunded or voided (succeeded), minor units.
    public var refunded: Int = 0
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

    /// The total with its currency: what is charged (`nil` only for a currency the table does not know).
    public var total: Money? { Money(amount, currencyCode: currencyCode) }

    /// An order (the shape of the memberwise initializer, for the package's own targets).
    package init(
        id: String,
        status: OrderStatus,
        currencyCode: String,
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
        self.currencyCode = currencyCode
        self.countryCode = countryCode
        self.lineItems = lineItems
        self.shippingMethods = shippingMethods
        self.shippingMethod = shippingMethod
        self.couponCode = couponCode
        self.couponAttempts = couponAttempts
        self.taxRegion = taxRegion
        self.cardType = cardType
        self.amount = amount
        self.applicationData = applicationData
        self.paid = paid
        self.refunded = refunded
        self.createdAt = createdAt
        self.canceledAt = canceledAt
        self.clientSecretHash = clientSecretHash
        self.planId = planId
        self.agreementId = agreementId
        self.version = version
    }
}
