import Foundation
import PaysheetModel

/// The life of one money transaction at the acquirer (a charge, a refund or a void), as a pure
/// state machine: inputs are the acquirer's answers and the time; the output says what changed
/// and whether to query. No I/O, no clock (docs/payment-rules.md R3–R8).
///
/// ```
///  submitting ──accepted──► accepted ──┐
///      │  └──no answer/03/12──► unknown ┼──success (amount = expected)──► succeeded
///      └──declined──► failed ◄──failed──┘──amount ≠ / money taken──► held
/// ```
/// `succeeded`, `failed` and `held` are terminal and never change. A charge is sent once:
/// after an ambiguous outcome only queries follow.
public struct PaymentLifecycle: Sendable, Codable, Equatable {
    /// The states.
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Persisted and being sent; no answer yet.
        case submitting
        /// The acquirer accepted (`00`); waiting for a notification or query.
        case accepted
        /// No usable answer; the outcome is found by query.
        case unknown
        /// Done, for the expected amount.
        case succeeded
        /// Did not happen.
        case failed
        /// Needs a person: an amount that is not the order's, or money taken by a defective transaction.
        case held

        /// Whether the state never changes again.
        public var isTerminal: Bool { self == .succeeded || self == .failed || self == .held }
    }

    /// An input.
    public enum Input: Sendable, Equatable {
        /// The synchronous answer to the submission.
        case answer(SubmitAnswer)
        /// A verified notification.
        case notification(TransactionStatus)
        /// A verified query answer.
        case query(TransactionStatus)
    }

    /// What an input did.
    public enum Effect: Sendable, Equatable {
        /// The state changed; record it with `cause`.
        case transition(from: State, to: State, cause: String)
        /// The state is the same; the next query moved (persist, no history row).
        case rescheduled
        /// Nothing changed (a late or duplicate input, or any input in a terminal state).
        case ignored(String)
    }

    /// The state.
    public private(set) var state: State = .submitting
    /// The amount that must be confirmed, in minor units (R8).
    public let expectedAmount: Int
    /// The currency it must be confirmed in (ISO 4217 numeric; `nil` in records made before it
    /// was kept: the amount alone is checked then).
    public let expectedCurrency: String?
    /// When it was submitted.
    public let submittedAt: Date
    /// When to query next (`nil` in terminal states).
    public private(set) var nextQueryAt: Date?
    /// Queries made so far.
    public private(set) var queries = 0
    /// The acquirer's reference (UnionPay `queryId`), once known.
    public private(set) var reference: String?
    /// The last result code (UnionPay `respCode` of the decision).
    public private(set) var resultCode: String?
    /// Why it is in its state, for people.
    public private(set) var reason: String?

    /// A transaction of `expectedAmount` submitted at `now`: a query is due after
    /// `resultWait` even if the submission never answers (a crash while sending, R7).
    public init(
        expectedAmount: Int,
        currency: Currency? = nil,
        submittedAt now: Date,
        configuration: LifecycleConfiguration
    ) {
        self.expectedAmount = expectedAmount
        expectedCurrency = currency?.numeric
        submittedAt = now
        nextQueryAt = now.addingTimeInterval(configuration.resultWait)
    }

    /// Whether a query is due at `now`.
    public func isDue(at now: Date) -> Bool {
        guard !state.isTerminal, let next = nextQueryAt else { return false }
        return next <= now
    }

    /// Feeds `input` received at `now`.
    public mutating func receive(_ input: Input, now: Date, configuration: LifecycleConfiguration) -> Effect {
        guard !state.isTerminal else { return .ignored("already \(state.rawValue)") }
        switch input {
        case .answer(let answer):
            switch answer {
            case .accepted(let reference):
                if let reference { self.reference = reference }
                guard state == .submitting else { return .ignored("late synchronous answer") }
                nextQueryAt = now.addingTimeInterval(configuration.resultWait)
                return move(.accepted, cause: "acquirer accepted (not yet paid)")
            case .declined(let code, let message):
                resultCode = code
                return finish(.failed, cause: "declined \(code): \(message)")
            case .unknown(let reason):
                guard state == .submitting else { return .ignored("late synchronous answer: \(reason)") }
                nextQueryAt = now.addingTimeInterval(configuration.queryIntervals.first ?? 1)
                return move(.unknown, cause: "no usable answer (\(reason)); will query")
            case .duplicate:
                guard state == .submitting else { return .ignored("late duplicate answer") }
                nextQueryAt = now.addingTimeInterval(configuration.queryIntervals.first ?? 1)
                return move(.unknown, cause: "acquirer reports a duplicate; will query, never re-send")
            }
        case .notification(let status):
            return apply(status, source: "notification", now: now, configuration: configuration)
        case .query(let status):
            queries += 1
            return apply(status, source: "query", now: now, configuration: configuration)
        }
    }

    private mutating func apply(
        _ status: TransactionStatus,
        source: String,
        now: Date,
        configuration: LifecycleConfiguration
    ) -> Effect {
        switch status {
        case .succeeded(let amount, let reference):
            if let reference { self.reference = reference }
            resultCode = "00"
            let expected =
                expectedCurrency.flatMap { Money(expectedAmount, currencyCode: $0) }.map(\.description)
                ?? String(expectedAmount)
            guard amount.minorUnits == expectedAmount, expectedCurrency.map({ $0 == amount.currency.numeric }) ?? true
            else {
                return finish(
                    .held,
                    cause: "\(source): success for \(amount) but \(expected) was expected; held for review"
                )
            }
            return finish(.succeeded, cause: "\(source): success for \(amount.minorUnits)")
        case .failed(let code, let message):
            resultCode = code
            return finish(.failed, cause: "\(source): failed \(code): \(message)")
        case .moneyTaken(let code, let message):
            resultCode = code
            return finish(.held, cause: "\(source): \(code) \(message); money may have been taken, held for review")
        case .notFound where now.timeIntervalSince(submittedAt) >= configuration.notFoundIsFinalAfter:
            resultCode = "34"
            return finish(
                .failed,
                cause:
                    "\(source): the acquirer has no such transaction \(Int(now.timeIntervalSince(submittedAt))) s after submission; it never arrived"
            )
        case .notFound, .pending, .unknown:
            var step = max(0, queries - 1)
            if case .unknown(_, true) = status { step = max(step, configuration.queryIntervals.count) }  // 37: back off
            if source == "query" || nextQueryAt == nil {
                nextQueryAt = now.addingTimeInterval(configuration.interval(after: step))
            }
            return .rescheduled
        }
    }

    private mutating func move(_ to: State, cause: String) -> Effect {
        let from = state
        state = to
        reason = cause
        return .transition(from: from, to: to, cause: cause)
    }

    private mutating func finish(_ to: State, cause: String) -> Effect {
        nextQueryAt = nil
        return move(to, cause: cause)
    }
}
