/// Amounts as integers of the currency's minor unit, read by one grammar and added with
/// checked arithmetic: every amount Paysheet reads (API bodies, settings, acquirer messages) goes
/// through ``parse(_:digits:allowNegative:)``, and no sum wraps around.
///
/// The grammar: an optional `-` (only where a discount may stand), one or more ASCII digits, then
/// optionally `.` and one to `digits` ASCII digits; at most ``maxLength`` characters. No exponent,
/// no `+`, no spaces, no trailing text, no thousands separators.
public enum MinorUnits {
    /// The longest amount text read.
    public static let maxLength = 32

    /// `text` in minor units of a currency with `digits` decimals.
    public static func parse(_ text: String, digits: Int, allowNegative: Bool = false) throws(AmountError) -> Int {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxLength else {
            throw AmountError(.tooLong, "amount \(AmountError.quoted(text)) is longer than \(maxLength) characters")
        }
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            guard allowNegative else {
                throw AmountError(
                    .negative,
                    "amount \(AmountError.quoted(text)) is negative; only a discount line may be"
                )
            }
            negative = true
            index += 1
        }
        var value = 0
        var whole = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = try accumulate(value, bytes[index], text)
            whole += 1
            index += 1
        }
        var fraction = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += 1
                guard fraction <= digits else {
                    throw AmountError(
                        .precision,
                        "amount \(AmountError.quoted(text)) has more than \(digits) decimal\(digits == 1 ? "" : "s")"
                    )
                }
                value = try accumulate(value, bytes[index], text)
                index += 1
            }
            guard fraction > 0 else { throw syntax(text) }
        }
        guard whole > 0, index == bytes.count else { throw syntax(text) }
        for _ in fraction..<digits { value = try checked(value.multipliedReportingOverflow(by: 10), text) }
        return negative ? -value : value
    }

    /// `a + b`, or ``AmountError/Code/overflow``.
    public static func add(_ a: Int, _ b: Int) throws(AmountError) -> Int {
        try checked(a.addingReportingOverflow(b), "a sum")
    }

    /// `a - b`, or ``AmountError/Code/overflow``.
    public static func subtract(_ a: Int, _ b: Int) throws(AmountError) -> Int {
        try checked(a.subtractingReportingOverflow(b), "a difference")
    }

    /// `a × b`, or ``AmountError/Code/overflow``.
    public static func multiply(_ a: Int, _ b: Int) throws(AmountError) -> Int {
        try checked(a.multipliedReportingOverflow(by: b), "a product")
    }

    /// The sum of `values` in order, or ``AmountError/Code/overflow`` when any partial sum would
    /// leave 64 bits (refused, never wrapped).
    public static func sum(_ values: [Int]) throws(AmountError) -> Int {
        var total = 0
        for value in values { total = try add(total, value) }
        return total
    }

    static func accumulate(_ value: Int, _ digit: UInt8, _ text: String) throws(AmountError) -> Int {
        let shifted = try checked(value.multipliedReportingOverflow(by: 10), text)
        return try checked(shifted.addingReportingOverflow(Int(digit - UInt8(ascii: "0"))), text)
    }

    static func checked(_ result: (partialValue: Int, overflow: Bool), _ what: String) throws(AmountError) -> Int {
        guard !result.overflow else {
            throw AmountError(.overflow, "\(AmountError.quoted(what)) is too large an amount")
        }
        return result.partialValue
    }

    static func syntax(_ text: String) -> AmountError {
        AmountError(
            .syntax,
            "amount \(AmountError.quoted(text)) is not a decimal amount such as 12.30 (digits, one point, no exponent or other text)"
        )
    }

    /// `minor` as decimal text with exactly `digits` decimals (`1230`, 2 → `"12.30"`).
    public static func format(_ minor: Int, digits: Int) -> String {
        let sign = minor < 0 ? "-" : ""
        var text = String(minor.magnitude)
        guard digits > 0 else { return sign + text }
        if text.count <= digits { text = String(repeating: "0", count: digits - text.count + 1) + text }
        return sign + text.dropLast(digits) + "." + text.suffix(digits)
    }
}
