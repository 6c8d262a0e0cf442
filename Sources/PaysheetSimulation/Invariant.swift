/// What must hold after every step of every schedule (docs/payment-core.md).
public enum Invariant: String, Sendable, CaseIterable {
    /// At most one successful consume per order: a charge is sent once, never again after an
    /// ambiguous outcome, and never while another is in flight.
    case oneConsume = "one-consume"
    /// A payment the store calls succeeded is one the acquirer holds as succeeded, for the same
    /// amount; one it calls failed, the acquirer does not hold as succeeded; once everything is
    /// final, what the acquirer holds of each order is what its ledger says.
    case ledgerMatchesAcquirer = "ledger-matches-acquirer"
    /// An order stored as canceled keeps no money at the acquirer.
    case canceledKeepsNothing = "canceled-keeps-nothing"
    /// Every payment is final, and every canceled order's money back, within bounded simulated
    /// time once faults stop.
    case finalInBoundedTime = "final-in-bounded-time"
    /// Every payment's history is a whole chain: its creation, then each change, ending in its
    /// current state.
    case historyComplete = "history-complete"
    /// Refunds and voids, in flight or done, never exceed what was charged; nor at the acquirer.
    case refundsWithinPaid = "refunds-within-paid"
    /// An agreement ends before the money of its first payment goes back (R12).
    case agreementEndsFirst = "agreement-ends-first"
    /// No merchant-initiated charge is made once its agreement ended (R12).
    case noChargeAfterAgreementEnds = "no-charge-after-agreement-ends"
    /// No merchant-initiated charge is made with a merchant token the server was told is deleted
    /// or suspended (and not resumed since).
    case noChargeOnDeadToken = "no-charge-on-dead-token"
}

/// An invariant that did not hold, where and why.
public struct Violation: Error, Sendable, CustomStringConvertible {
    /// Which.
    public var invariant: Invariant
    /// What was seen.
    public var detail: String
    /// The step it was seen after.
    public var step: Int

    public var description: String { "\(invariant.rawValue) after step \(step): \(detail)" }
}
