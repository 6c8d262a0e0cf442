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
    /// Canceled by the shopper (or the merchant) while a charge was in flight or its money not
    /// yet returned: once the charge's outcome is certain, a success is voided or refunded.
    case canceling
    /// Canceled: no money taken, or all of it returned.
    case canceled
}
