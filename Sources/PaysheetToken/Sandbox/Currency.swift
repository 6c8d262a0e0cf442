import Foundation
import PaysheetTokenFormat

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
        if code.count == 3, code.allSatisfy(\.isASCIIDigit) {
            guard let hit = CurrencyTable.entries.first(where: { $0.value.numeric == code }) else { return nil }
            self.code = hit.key; numeric = hit.value.numeric; minorUnits = hit.value.minorUnits
        } else {
            guard let hit = CurrencyTable.entries[code.uppercased()] else { return nil }
            self.code = code.uppercased(); numeric = hit.numeric; minorUnits = hit.minorUnits
        }
    }

    /// `amount` (decimal text such as `"12.30"`) in minor units; throws when it is negative,
    /// not a number, or finer than the minor unit.
    public func minor(_ amount: String) throws(PaymentTokenError) -> Int {
        try SandboxPayment.minorUnits(amount: amount, currency: code).1
    }

    /// `minor` units as decimal text with exactly ``minorUnits`` decimals (`1230` → `"12.30"`).
    public func format(_ minor: Int) -> String {
        guard minorUnits > 0 else { return String(minor) }
        let sign = minor < 0 ? "-" : ""
        var digits = String(abs(minor))
        if digits.count <= minorUnits { digits = String(repeating: "0", count: minorUnits - digits.count + 1) + digits }
        return sign + digits.dropLast(minorUnits) + "." + digits.suffix(minorUnits)
    }
}
