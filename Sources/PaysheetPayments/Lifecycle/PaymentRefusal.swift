/// Why the core refused an input: a stable code and a message for people. Mapped to HTTP only at
/// the server's edge.
public struct PaymentRefusal: Error, Sendable, Equatable {
    /// What kind of refusal.
    public enum Kind: Sendable, Equatable {
        /// The order's state does not allow it (now, or any more).
        case conflict
        /// The input itself is not valid.
        case invalid
        /// Valid, but not for this order's amounts.
        case unprocessable
    }

    /// The kind.
    public var kind: Kind
    /// A stable code (`conflict`, `refund_exceeds_payment`, …).
    public var code: String
    /// The field at fault, if one.
    public var field: String?
    /// For people.
    public var message: String

    /// A refusal.
    public init(_ kind: Kind, code: String, field: String? = nil, message: String) {
        self.kind = kind
        self.code = code
        self.field = field
        self.message = message
    }

    static func conflict(_ message: String, code: String = "conflict") -> PaymentRefusal {
        PaymentRefusal(.conflict, code: code, message: message)
    }
}
