/// Why the server refuses a request or cannot complete it, in the domain's terms: the kind of
/// refusal, a stable code (`invalid_request`, `not_found`, `idempotency_mismatch`, …), the request
/// member at fault and a message that says what was wrong.
///
/// Domain code (orders, payments, access, the sheet's pages) throws it; the HTTP edge alone maps
/// its ``Kind`` to a status (`APIError`, in `HTTP/`), as Hummingbird's `HTTPResponseError` does.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of refusal.
    public enum Kind: Sendable, Equatable {
        /// The request is malformed or breaks a rule.
        case invalid
        /// No credential, or one that is not valid here.
        case unauthorized
        /// What the request names does not exist (or is not the caller's).
        case notFound
        /// The request conflicts with the state of what it names.
        case conflict
        /// The request body (or what it would make) is too large.
        case tooLarge
        /// What the request names existed but is gone for good (an expired order).
        case gone
        /// The request is well formed but cannot be carried out as asked.
        case unprocessable
        /// Too many requests from this caller.
        case tooManyRequests
        /// The server failed to complete it.
        case internalFailure
        /// A party the server depends on (the acquirer, Apple's session endpoint) failed.
        case upstreamFailure
        /// The server cannot serve it now (shutting down, a dependency out of reach).
        case unavailable
    }

    /// The kind of refusal.
    public var kind: Kind
    /// Stable code.
    public var code: String
    /// The request member it concerns (`lineItems[0].amount`), if any.
    public var field: String?
    /// The message.
    public var message: String
    /// Seconds after which the same request may succeed (``Kind/tooManyRequests``: `Retry-After`).
    public var retryAfter: Int?

    /// An error.
    public init(_ kind: Kind, code: String, field: String? = nil, message: String, retryAfter: Int? = nil) {
        self.kind = kind
        self.code = code
        self.field = field
        self.message = message
        self.retryAfter = retryAfter
    }

    /// ``Kind/invalid`` `invalid_request` about `field`.
    public static func invalid(_ field: String?, _ message: String) -> ServiceError {
        ServiceError(.invalid, code: "invalid_request", field: field, message: message)
    }

    /// ``Kind/notFound`` `not_found`.
    public static func notFound(_ what: String) -> ServiceError {
        ServiceError(.notFound, code: "not_found", message: "\(what) does not exist")
    }

    /// ``Kind/unauthorized`` `unauthorized`.
    public static func unauthorized(_ message: String) -> ServiceError {
        ServiceError(.unauthorized, code: "unauthorized", message: message)
    }

    /// ``Kind/conflict`` `conflict`.
    public static func conflict(_ message: String) -> ServiceError {
        ServiceError(.conflict, code: "conflict", message: message)
    }

    public var description: String { "\(code)\(field.map { " (\($0))" } ?? ""): \(message)" }
}
