/// Why a payment token was refused. Every failure of parsing, verifying or decrypting a token is
/// one of these: a stable ``Code`` for programs and a message for people that says what to fix.
public struct PaymentTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable classification of a token failure.
    public enum Code: String, Sendable, CaseIterable {
        /// The token (JSON, Base64, hex or the CMS signature) is not well formed.
        case malformed
        /// `version` is not `EC_v1` or `RSA_v1`.
        case unsupportedVersion
        /// No configured merchant key matches the token's `publicKeyHash`, or a key is unusable for it.
        case keyMismatch
        /// The CMS signature does not verify over the token's contents.
        case signature
        /// The signing certificates do not chain to the trusted root under Apple's rules.
        case chain
        /// The CMS signing time is missing or outside the accepted window.
        case signingTime
        /// The payment data could not be decrypted or is not the expected JSON.
        case decryption
        /// The `transactionId` was already accepted within the replay window.
        case replayed
        /// A key or certificate file could not be read or used.
        case invalidKey
    }

    /// The classification.
    public var code: Code
    /// What was wrong and what to do about it.
    public var message: String

    /// An error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
