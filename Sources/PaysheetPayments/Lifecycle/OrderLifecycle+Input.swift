import Foundation

extension OrderLifecycle {
    /// A transaction about to be made: its id and the acquirer's identity of it, chosen by the
    /// driver (they are random), used only when the input makes one.
    public struct NewTransaction: Sendable, Equatable {
        /// Our id, without its kind's prefix (the core adds `pay_`, `ref_` or `void_`).
        public var id: String
        /// The acquirer's identity.
        public var identity: TransactionIdentity

        /// A new transaction.
        public init(id: String, identity: TransactionIdentity) {
            self.id = id
            self.identity = identity
        }
    }

    /// A charge the shopper authorized (or an agreement's merchant-initiated charge), its token
    /// already verified and checked against the order by the driver.
    public struct NewCharge: Sendable, Equatable {
        /// Its id and identity.
        public var transaction: NewTransaction
        /// The card, as far as it may be kept.
        public var card: CardSummary?
        /// The token's `transactionId`: its first use is stored with the charge (replays refused).
        public var tokenTransactionId: String?
        /// Why, for the history (`nil`: the shopper's authorization).
        public var cause: String?

        /// A charge.
        public init(
            transaction: NewTransaction,
            card: CardSummary?,
            tokenTransactionId: String?,
            cause: String? = nil
        ) {
            self.transaction = transaction
            self.card = card
            self.tokenTransactionId = tokenTransactionId
            self.cause = cause
        }
    }

    /// Who cancels.
    public enum Party: Sendable, Equatable {
        /// The shopper (the sheet's `cancel`), within ``LifecycleConfiguration/shopperCancelWindow`` of a charge.
        case shopper
        /// The merchant's key, at any time.
        case merchant
    }

    /// What happens to an order.
    public enum Input: Sendable, Equatable {
        /// The shopper authorized a payment: charge the order's amount.
        case authorize(NewCharge)
        /// The order is canceled: no charge from now on, and any money taken goes back.
        case cancel(Party)
        /// A refund (`amount`; all that is left when `nil`) or a void of the order's charge.
        case reverse(PaymentKind, amount: Int?, NewTransaction, cause: String?)
        /// A canceled order's money goes back once nothing of it is in flight (after a charge
        /// settles, on the poller's round, after a restart).
        case unwind(NewTransaction)
    }

    /// What happens to one of its payments: the acquirer's synchronous answer, a verified
    /// notification or query answer, fed to the payment's ``PaymentLifecycle``.
    public enum PaymentInput: Sendable, Equatable {
        /// The synchronous answer to the submission.
        case answered(SubmitAnswer)
        /// A verified notification; `earlier` is the acquirer's acceptance this process holds
        /// unstored (it is stored first, with its own history row).
        case notified(TransactionStatus, earlier: Acceptance?)
        /// A verified query answer (with the held acceptance, as for a notification).
        case queried(TransactionStatus, earlier: Acceptance?)

        var lifecycleInput: PaymentLifecycle.Input {
            switch self {
            case .answered(let answer): .answer(answer)
            case .notified(let status, _): .notification(status)
            case .queried(let status, _): .query(status)
            }
        }

        /// The same input with the held acceptance `earlier` (an answer carries none).
        public func with(earlier: Acceptance?) -> PaymentInput {
            switch self {
            case .answered: self
            case .notified(let status, _): .notified(status, earlier: earlier)
            case .queried(let status, _): .queried(status, earlier: earlier)
            }
        }

        var earlier: Acceptance? {
            switch self {
            case .answered: nil
            case .notified(_, let earlier), .queried(_, let earlier): earlier
            }
        }
    }

    /// The acquirer's acceptance of a charge (`00`: not yet paid) and when it came.
    public struct Acceptance: Sendable, Equatable {
        /// The answer.
        public var answer: SubmitAnswer
        /// When it came.
        public var at: Date

        /// An acceptance.
        public init(answer: SubmitAnswer, at: Date) {
            self.answer = answer
            self.at = at
        }
    }
}
