/// An error of the UnionPay ACP layer: a stable `code` and a message naming what was wrong.
public struct ACPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable error codes.
    public enum Code: String, Sendable {
        /// A message that is not `key=value&…` form encoding, or lacks a required field.
        case malformed
        /// A signature that does not verify, or a signing certificate that is not trusted.
        case signature
        /// A key or certificate file that cannot be used.
        case credentials
        /// No usable answer (connection refused, timeout, HTTP status other than 200).
        case transport
        /// A protocol version this side does not speak (5.0.0).
        case version
    }

    /// The stable code.
    public var code: Code
    /// What was wrong, and where.
    public var message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "unionpay.\(code.rawValue): \(message)" }
}
