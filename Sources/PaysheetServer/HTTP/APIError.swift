/// An error answer of the HTTP API: HTTP status, a stable code, the field it concerns and a
/// message that says what was wrong. Rendered as `{"error": {"code", "message", "field"}}`.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// HTTP status.
    public var status: Int
    /// Stable code (`invalid_request`, `not_found`, `idempotency_mismatch`, …).
    public var code: String
    /// The request member it concerns (`lineItems[0].amount`), if any.
    public var field: String?
    /// The message.
    public var message: String
    /// `Retry-After` (seconds), if any.
    public var retryAfter: Int?

    /// An error.
    public init(status: Int, code: String, field: String? = nil, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.field = field
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The answer to a ``ServiceError``: its kind mapped to an HTTP status, the rest as it is.
    public init(_ error: ServiceError) {
        self.init(
            status: Self.status(of: error.kind),
            code: error.code,
            field: error.field,
            message: error.message,
            retryAfter: error.retryAfter
        )
    }

    /// The HTTP status of each kind of ``ServiceError``.
    static func status(of kind: ServiceError.Kind) -> Int {
        switch kind {
        case .invalid: return 400
        case .unauthorized: return 401
        case .notFound: return 404
        case .conflict: return 409
        case .tooLarge: return 413
        case .gone: return 410
        case .unprocessable: return 422
        case .tooManyRequests: return 429
        case .internalFailure: return 500
        case .upstreamFailure: return 502
        case .unavailable: return 503
        }
    }

    /// 400 `invalid_request` about `field`.
    public static func invalid(_ field: String?, _ message: String) -> APIError {
        APIError(status: 400, code: "invalid_request", field: field, message: message)
    }

    /// 404 `not_found`.
    public static func notFound(_ what: String) -> APIError {
        APIError(status: 404, code: "not_found", message: "\(what) does not exist")
    }

    /// 401 `unauthorized`: no credential, or one that is not valid here.
    public static func unauthorized(_ message: String) -> APIError {
        APIError(status: 401, code: "unauthorized", message: message)
    }

    /// 409 `conflict`.
    public static func conflict(_ message: String) -> APIError {
        APIError(status: 409, code: "conflict", message: message)
    }

    public var description: String { "\(status) \(code)\(field.map { " (\($0))" } ?? ""): \(message)" }
}
