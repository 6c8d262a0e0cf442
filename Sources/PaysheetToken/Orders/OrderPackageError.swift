/// Why an order package's signature or signing identity is not accepted: a stable code and a
/// message that says what was wrong.
public struct OrderPackageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem.
    public enum Code: String, Sendable, Equatable {
        /// The signature is not a detached CMS `SignedData` as Wallet reads it.
        case malformed
        /// The signature does not cover the manifest, or does not verify with its certificate.
        case signature
        /// The signing certificate does not chain to a trusted root at the time of the check.
        case chain
        /// A signing certificate, key or intermediate that cannot be used (files, key type).
        case identity
    }

    /// The kind of problem.
    public var code: Code
    /// What was wrong.
    public var message: String

    /// An error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
