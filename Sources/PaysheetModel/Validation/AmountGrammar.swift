import Foundation

/// The grammar of amount strings and their numeric value.
public enum AmountGrammar {
    /// Whether `text` is a valid amount: `-?[0-9]+(\.[0-9]+)?` (current Safari, the W3C "valid
    /// decimal monetary value"), or with at most two fraction digits when `maxFractionDigits` is 2.
    public static func isValid(_ text: String, maxFractionDigits: Int? = nil) -> Bool {
        var rest = Substring(text).utf8[...]
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        var intDigits = 0
        while let digit = rest.first, digit >= 48, digit <= 57 {
            intDigits += 1
            rest = rest.dropFirst()
        }
        if intDigits == 0 { return false }
        if rest.isEmpty { return true }
        guard rest.first == UInt8(ascii: ".") else { return false }
        rest = rest.dropFirst()
        var frac = 0
        while let digit = rest.first, digit >= 48, digit <= 57 {
            frac += 1
            rest = rest.dropFirst()
        }
        guard frac > 0, rest.isEmpty else { return false }
        if let maxFractionDigits, frac > maxFractionDigits { return false }
        return true
    }

    /// The value of a valid amount string (`NSDecimalNumber decimalNumberWithString:`).
    public static func value(_ text: String) -> Decimal? {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }
}
