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

    /// An error.
    public init(status: Int, code: String, field: String? = nil, message: String) {
        self.status = status
        self.code = code
        self.field = field
        self.message = message
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
