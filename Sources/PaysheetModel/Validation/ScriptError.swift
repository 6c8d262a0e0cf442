/// The JavaScript exception a page would see: its `name` and `message`.
///
/// Paysheet raises the same exception kinds and messages as Safari (`TypeError`,
/// `InvalidAccessError`, …) so that a scenario, a Swift test and the browser drop-in all agree.
public struct ScriptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The exception kinds the Apple Pay JS API throws.
    public enum Name: String, Sendable, Codable, CaseIterable {
        /// A JavaScript `TypeError`.
        case typeError = "TypeError"
        /// A `DOMException` named `InvalidAccessError`.
        case invalidAccessError = "InvalidAccessError"
        /// A `DOMException` named `InvalidStateError`.
        case invalidStateError = "InvalidStateError"
        /// A `DOMException` named `SecurityError`.
        case securityError = "SecurityError"
        /// A JavaScript `RangeError` (the Payment Request API's currency and identifier checks).
        case rangeError = "RangeError"
        /// A `DOMException` named `AbortError`.
        case abortError = "AbortError"
        /// A `DOMException` named `NotSupportedError`.
        case notSupportedError = "NotSupportedError"
    }

    /// The exception's name.
    public var name: Name
    /// The exception's message.
    public var message: String

    /// An exception with an explicit message.
    public init(_ name: Name, _ message: String) {
        self.name = name
        self.message = message
    }

    /// A `TypeError`.
    public static func typeError(_ message: String) -> ScriptError { ScriptError(.typeError, message) }

    /// WebKit's binding error for a call with too few arguments (its text has no final period:
    /// js-test prints its own after it). The one place it is written in Swift.
    public static let notEnoughArguments = ScriptError.typeError("Not enough arguments")

    /// An `InvalidAccessError`; without a message, the DOMException default text Safari prints.
    public static func invalidAccess(
        _ message: String = "The object does not support the operation or argument."
    ) -> ScriptError {
        ScriptError(.invalidAccessError, message)
    }

    /// An `InvalidStateError` with the DOMException default text.
    public static func invalidState(_ message: String = "The object is in an invalid state.") -> ScriptError {
        ScriptError(.invalidStateError, message)
    }

    /// An `AbortError` with the DOMException default text.
    public static let aborted = ScriptError(.abortError, "The operation was aborted.")

    public var description: String { "\(name.rawValue): \(message)" }

    /// `{"name": …, "message": …}`.
    public var json: JSONValue { ["name": .string(name.rawValue), "message": .string(message)] }
}
