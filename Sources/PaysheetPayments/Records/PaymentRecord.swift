import Foundation
import PaysheetModel

/// What a payment does at the acquirer.
public enum PaymentKind: String, Sendable, Codable {
    /// A charge (UnionPay consume).
    case charge
    /// A refund (partial or full).
    case refund
    /// A same-day void of a whole charge.
    case void
}

/// The card, as far as it may be kept: network, type, the name the wallet shows, the last four
/// digits of the device account number. Never the number itself or a cryptogram.
public struct CardSummary: Sendable, Codable, Equatable {
    /// Network (`visa`).
    public var network: String?
    /// `credit`, `debit`, …
    public var type: String?
    /// The wallet's display name (`Visa 1234`).
    public var displayName: String?
    /// Last four digits of the DPAN.
    public var suffix: String

    /// A summary.
    public init(network: String?, type: String?, displayName: String?, suffix: String) {
        self.network = network
        self.type = type
        self.displayName = displayName
        self.suffix = suffix
    }
}

/// One money transaction of an order, as stored.
public struct PaymentRecord: Sendable, Codable, Equatable {
    /// Our id (`pay_…`).
    public var id: String
    /// The order.
    public var orderId: String
    /// Charge, refund or void.
    public var kind: PaymentKind
    /// The acquirer's identity of it (persisted before sending, R1).
    public var identity: TransactionIdentity
    /// The amount with its currency.
    public var amount: Money
    /// ISO 4217 numeric currency (the amount's).
    public var currencyNumeric: String { amount.currency.numeric }
    /// The lifecycle.
    public var lifecycle: PaymentLifecycle
    /// For refunds and voids: the charge's acquirer reference.
    public var originalReference: String?
    /// For refunds and voids: the charge's id.
    public var originalPaymentId: String?
    /// The card (charges).
    public var card: CardSummary?
    /// Created at.
    public var createdAt: Date
    /// Optimistic-concurrency version.
    public var version: Int = 0

    /// A payment (the shape of the memberwise initializer, for the package's own targets).
    package init(
        id: String,
        orderId: String,
        kind: PaymentKind,
        identity: TransactionIdentity,
        amount: Money,
        lifecycle: PaymentLifecycle,
        originalReference: String? = nil,
        originalPaymentId: String? = nil,
        card: CardSummary? = nil,
        createdAt: Date,
        version: Int = 0
    ) {
        self.id = id
        self.orderId = orderId
        self.kind = kind
        self.identity = identity
        self.amount = amount
        self.lifecycle = lifecycle
        self.originalReference = originalReference
        self.originalPaymentId = originalPaymentId
        self.card = card
        self.createdAt = createdAt
        self.version = version
    }
}

extension PaymentRecord {
    enum CodingKeys: String, CodingKey {
        case id, orderId, kind, identity, amount, currencyNumeric, lifecycle, originalReference, originalPaymentId
        case card, createdAt, version
    }

    /// Reads a stored payment: its amount in minor units and its currency's numeric code, as
    /// written since the first version.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let minor = try c.decode(Int.self, forKey: .amount)
        let code = try c.decode(String.self, forKey: .currencyNumeric)
        guard let amount = Money(minor, currencyCode: code) else {
            throw DecodingError.dataCorruptedError(
                forKey: .currencyNumeric,
                in: c,
                debugDescription: "no currency \(code)"
            )
        }
        self.init(
            id: try c.decode(String.self, forKey: .id),
            orderId: try c.decode(String.self, forKey: .orderId),
            kind: try c.decode(PaymentKind.self, forKey: .kind),
            identity: try c.decode(TransactionIdentity.self, forKey: .identity),
            amount: amount,
            lifecycle: try c.decode(PaymentLifecycle.self, forKey: .lifecycle),
            originalReference: try c.decodeIfPresent(String.self, forKey: .originalReference),
            originalPaymentId: try c.decodeIfPresent(String.self, forKey: .originalPaymentId),
            card: try c.decodeIfPresent(CardSummary.self, forKey: .card),
            createdAt: try c.decode(Date.self, forKey: .createdAt),
            version: try c.decodeIfPresent(Int.self, forKey: .version) ?? 0
        )
    }

    /// Writes it in the same shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(orderId, forKey: .orderId)
        try c.encode(kind, forKey: .kind)
        try c.encode(identity, forKey: .identity)
        try c.encode(amount.minorUnits, forKey: .amount)
        try c.encode(currencyNumeric, forKey: .currencyNumeric)
        try c.encode(lifecycle, forKey: .lifecycle)
        try c.encodeIfPresent(originalReference, forKey: .originalReference)
        try c.encodeIfPresent(originalPaymentId, forKey: .originalPaymentId)
        try c.encodeIfPresent(card, forKey: .card)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(version, forKey: .version)
    }
}

/// One recorded transition of a payment.
public struct PaymentEvent: Sendable, Codable, Equatable {
    /// 1, 2, …
    public var sequence: Int
    /// From (`nil` for creation).
    public var from: String?
    /// To.
    public var to: String
    /// Why.
    public var cause: String
    /// When.
    public var at: Date

    /// A history row.
    package init(sequence: Int, from: String?, to: String, cause: String, at: Date) {
        self.sequence = sequence
        self.from = from
        self.to = to
        self.cause = cause
        self.at = at
    }
}
