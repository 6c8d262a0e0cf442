/// An order's status, as `GET /v1/orders/{id}` reports it.
public enum OrderStatus: String, Sendable, Codable, CaseIterable {
    /// No payment yet.
    case created
    /// A charge is with the acquirer; the outcome is not certain yet.
    case pending
    /// Charged.
    case paid
    /// The last charge failed (the shopper may pay again).
    case failed
    /// Refunded in full.
    case refunded
    /// Refunded in part.
    case partiallyRefunded = "partially_refunded"
    /// Voided on the day of the charge.
    case voided
}
