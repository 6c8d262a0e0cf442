/// An amount of money: minor units of one currency (`1230` CNY is 12.30 yuan). What crosses
/// between the payment core, the acquirer adapter and the UnionPay client; arithmetic is checked
/// (an overflow is an error, never a wrap) and never mixes currencies.
public struct Money: Sendable, Hashable, CustomStringConvertible {
    /// The amount in minor units.
    public let minorUnits: Int
    /// The currency.
    public let currency: Currency

    /// `minorUnits` of `currency`.
    public init(_ minorUnits: Int, _ currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// `minorUnits` of the currency with alphabetic or numeric code `code`, or `nil` when there is
    /// no such currency.
    public init?(_ minorUnits: Int, currencyCode code: String) {
        guard let currency = Currency(code) else { return nil }
        self.init(minorUnits, currency)
    }

    /// Zero of `currency`.
    public static func zero(_ currency: Currency) -> Money { Money(0, currency) }

    /// Whether it is above zero (only such amounts move, docs/payment-rules.md R10).
    public var isPositive: Bool { minorUnits > 0 }

    /// `self + other`, checked.
    public func adding(_ other: Money) throws(MoneyError) -> Money {
        try same(other)
        let (sum, overflow) = minorUnits.addingReportingOverflow(other.minorUnits)
        guard !overflow else { throw .overflow }
        return Money(sum, currency)
    }

    /// `self - other`, checked.
    public func subtracting(_ other: Money) throws(MoneyError) -> Money {
        try same(other)
        let (difference, overflow) = minorUnits.subtractingReportingOverflow(other.minorUnits)
        guard !overflow else { throw .overflow }
        return Money(difference, currency)
    }

    /// Whether `self` is more than `other` (same currency).
    public func exceeds(_ other: Money) throws(MoneyError) -> Bool {
        try same(other)
        return minorUnits > other.minorUnits
    }

    /// The sum of `values`, all of `currency`, checked.
    public static func sum(_ values: [Money], in currency: Currency) throws(MoneyError) -> Money {
        var total = Money.zero(currency)
        for value in values { total = try total.adding(value) }
        return total
    }

    private func same(_ other: Money) throws(MoneyError) {
        guard other.currency == currency else { throw .currencyMismatch(currency.code, other.currency.code) }
    }

    /// `12.30 CNY`.
    public var description: String { "\(currency.format(minorUnits)) \(currency.code)" }
}

/// Why arithmetic on ``Money`` failed.
public enum MoneyError: Error, Sendable, Equatable {
    /// The result does not fit.
    case overflow
    /// The two amounts are of different currencies (their codes).
    case currencyMismatch(String, String)
}
