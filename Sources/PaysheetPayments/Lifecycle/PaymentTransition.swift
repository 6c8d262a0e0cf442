import Foundation

/// One change of a payment's state, as its history records it: typed from end to end (the store
/// writes the states' raw values at its edge).
public struct PaymentTransition: Sendable, Equatable {
    /// The state before (`nil`: the payment's creation).
    public var from: PaymentLifecycle.State?
    /// The state after.
    public var to: PaymentLifecycle.State
    /// Why, for people.
    public var cause: String
    /// When it happened.
    public var at: Date

    /// A transition.
    public init(from: PaymentLifecycle.State?, to: PaymentLifecycle.State, cause: String, at: Date) {
        self.from = from
        self.to = to
        self.cause = cause
        self.at = at
    }
}
