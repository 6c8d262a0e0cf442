import Foundation

extension OrderLifecycle {
    /// What to store: at most one write per input, applied in one transaction by the writer and
    /// checked against the versions it was computed from (another writer first: nothing is
    /// written, and the input is applied again to what is stored then).
    public enum Write: Sendable, Equatable {
        /// A new payment with its first history row, the order (version-checked) and, for a
        /// charge, the token's first use.
        case insertPayment(PaymentRecord, creation: PaymentTransition, order: OrderRecord, tokenTransactionId: String?)
        /// The order alone (a cancel, a settled cancel).
        case updateOrder(OrderRecord)
    }

    /// What to do once the write (if any) is stored, in order.
    public enum Effect: Sendable, Equatable {
        /// Send a charge, refund or void of this payment to the acquirer; its answer comes back
        /// as ``PaymentInput/answered(_:)``.
        case send(Request)
        /// End the agreement this order started (its first payment is being given back).
        case endAgreement(because: String)
        /// Feed ``Input/unwind(_:)``: a canceled order has money to return, or waits for a payment.
        case unwind
    }

    /// A request to the acquirer: the payment as stored (its identity, amount and currency; for
    /// a reversal, the charge's reference). The card data is never here: the driver that holds
    /// it attaches it to a charge.
    public enum Request: Sendable, Equatable {
        /// A charge (UnionPay consume).
        case charge(PaymentRecord)
        /// A refund of `originalReference`.
        case refund(PaymentRecord, originalReference: String)
        /// A void of `originalReference`.
        case void(PaymentRecord, originalReference: String)

        /// The payment the request is for.
        public var payment: PaymentRecord {
            switch self {
            case .charge(let p), .refund(let p, _), .void(let p, _): p
            }
        }
    }

    /// The answer for whoever gave the input.
    public enum Reply: Sendable, Equatable {
        /// Nothing to say (nothing to do).
        case none
        /// Refused; nothing is written.
        case refused(PaymentRefusal)
        /// The authorization fails with this message for the sheet; nothing is written.
        case failure(String)
        /// Wait for this payment's outcome (the charge in flight, or the one just made).
        case awaitOutcome(PaymentRecord)
        /// The order as it now is.
        case order(OrderRecord)
    }

    /// One input's result: what to store, what to do after, what to answer.
    public struct Step: Sendable, Equatable {
        /// What to store (nothing: `nil`).
        public var write: Write?
        /// What to do once it is stored.
        public var effects: [Effect]
        /// The answer.
        public var reply: Reply

        /// A step.
        public init(write: Write? = nil, effects: [Effect] = [], reply: Reply = .none) {
            self.write = write
            self.effects = effects
            self.reply = reply
        }
    }

    /// One payment input's result.
    public struct PaymentStep: Sendable, Equatable {
        /// The payment to store (version-checked against ``before``), or `nil`: nothing to store.
        public var next: PaymentRecord?
        /// The version the change was computed from.
        public var before: Int
        /// The held acceptance's history row, stored first.
        public var earlier: PaymentTransition?
        /// This input's history row (`nil`: only the schedule moved).
        public var transition: PaymentTransition?
        /// Whether the order is settled again from its payments in the same transaction (the
        /// payment became terminal).
        public var settlesOrder: Bool
        /// Whether the input changed nothing (late, duplicate, or the payment is terminal): a
        /// notification's raw body is still recorded.
        public var ignored: Bool

        /// Whether waiters should be woken (the state changed).
        public var changedState: Bool { transition != nil || earlier != nil }
    }
}
