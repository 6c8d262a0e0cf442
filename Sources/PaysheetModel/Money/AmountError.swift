/// An amount or a rate that cannot be used: a stable code and a message that says why.
public struct AmountError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public enum Code: String, Sendable {
        /// Not the grammar: `-`? digits, then `.` and digits (no exponent, space, sign `+` or trailing text).
        case syntax
        /// A minus sign where no discount may stand.
        case negative
        /// More decimals than the currency's minor unit.
        case precision
        /// Longer than ``MinorUnits/maxLength`` characters.
        case tooLong
        /// Beyond what 64-bit minor units hold, or a sum that would be.
        case overflow
        /// A rate outside 0 to 100 percent, or finer than four decimals of a percent.
        case rate
    }

    /// The code.
    public var code: Code
    /// The message (names the text it read, cut to 40 characters).
    public var message: String

    /// An error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func quoted(_ text: String) -> String {
        "\"" + String(text.prefix(40)) + (text.count > 40 ? "…" : "") + "\""
    }
}
