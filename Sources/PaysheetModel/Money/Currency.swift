/// An ISO 4217 currency: its codes and the digits of its minor unit (from the generated table).
public struct Currency: Sendable, Hashable {
    /// Alphabetic code (`CNY`).
    public let code: String
    /// Numeric code (`156`).
    public let numeric: String
    /// Digits of the minor unit (2 for CNY, 0 for JPY).
    public let minorUnits: Int

    /// The currency with alphabetic or numeric `code`, or `nil`.
    public init?(_ code: String) {
        if code.utf8.count == 3, code.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let hit = CurrencyTable.entries.first(where: { $0.value.numeric == code }) else { return nil }
            self.code = hit.key
            numeric = hit.value.numeric
            minorUnits = hit.value.minorUnits
        } else {
            guard let hit = CurrencyTable.entries[code.uppercased()] else { return nil }
            self.code = code.uppercased()
            numeric = hit.numeric
            minorUnits = hit.minorUnits
        }
    }

    /// `amount` (decimal text such as `"12.30"`) in minor units, by the one amount grammar
    /// (``MinorUnits``); a minus sign only when `allowNegative` (a discount line).
    public func minor(_ amount: String, allowNegative: Bool = false) throws(AmountError) -> Int {
        try MinorUnits.parse(amount, digits: minorUnits, allowNegative: allowNegative)
    }

    /// `minor` units as decimal text with exactly ``minorUnits`` decimals (`1230` → `"12.30"`).
    public func format(_ minor: Int) -> String { MinorUnits.format(minor, digits: minorUnits) }
}
