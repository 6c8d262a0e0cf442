import Foundation
import PaysheetModel

/// An order and its payments as one pure state machine, in the style of postgres-nio's
/// `ConnectionStateMachine`: an input (and the time, an input too) goes in, a ``Step`` comes out
/// — what to store, what to send, what to answer — and nothing else happens. No I/O, no clock,
/// no randomness (new ids come with the inputs). The server's writer applies the steps; the
/// simulation (`PaysheetSimulation`) applies the same steps under every schedule it can make.
///
/// Each payment inside has its own ``PaymentLifecycle`` (`submitting → accepted | unknown →
/// succeeded | failed | held`); the order's status is derived from them (`OrderSettlement`).
/// The rules are docs/payment-rules.md's, referred to by number.
///
/// | input | when | step |
/// |---|---|---|
/// | ``Input/authorize(_:)`` | no charge yet, or the last failed | insert the charge with the order `pending` (R1), send it |
/// | | a charge in flight | wait for its outcome (never a second charge, R4) |
/// | | canceled, paid or held | refused |
/// | ``Input/cancel(_:)`` | not yet canceled | store `canceledAt`; end the agreement; unwind |
/// | ``Input/unwind(_:)`` | canceled, nothing in flight, money taken | insert a void (same day, none tried) or a refund of what is left; send it |
/// | ``Input/reverse(_:amount:_:cause:)`` | a succeeded charge | insert the refund or void (never more than was paid, R9); send it |
/// | ``PaymentInput`` | the payment is not terminal | store its new state (and the order, settled, when terminal); unwind a canceled order |
public struct OrderLifecycle: Sendable, Equatable {
    /// The order as last stored (or as this machine will store it).
    public private(set) var order: OrderRecord
    /// Its payments.
    public private(set) var payments: [PaymentRecord]
    /// The timing rules.
    public let configuration: LifecycleConfiguration

    /// The machine of `order` with `payments`, as stored.
    public init(order: OrderRecord, payments: [PaymentRecord], configuration: LifecycleConfiguration) {
        self.order = order
        self.payments = payments
        self.configuration = configuration
    }

    // MARK: Authorize

    /// Whether a charge of the order succeeded or is held for review: the order takes no other.
    public var isCharged: Bool {
        payments.contains { $0.kind == .charge && ($0.lifecycle.state == .succeeded || $0.lifecycle.state == .held) }
    }

    /// Whether the order takes an authorization now, before the driver spends time on the
    /// token: `nil` when it does, else the step to answer with (no write).
    public func authorizationGate() -> Step? {
        let charges = payments.filter { $0.kind == .charge }
        if let open = charges.first(where: { !$0.lifecycle.state.isTerminal }) {
            return Step(reply: .awaitOutcome(open))  // a charge is with the acquirer: never a second one
        }
        if order.canceledAt != nil {
            return Step(reply: .refused(.conflict("order \(order.id) was canceled; it takes no payment")))
        }
        if isCharged {
            return Step(reply: .refused(.conflict("order \(order.id) is already \(order.status.rawValue)")))
        }
        // R10: every update keeps the total above zero; an order stored otherwise is never charged.
        guard order.amount.isPositive else {
            return Step(reply: .failure("This order has nothing to pay; nothing was charged"))
        }
        return nil
    }

    mutating func authorize(_ charge: NewCharge, now: Date) -> Step {
        if let gate = authorizationGate() { return gate }
        let currency = order.amount.currency
        let record = PaymentRecord(
            id: Self.id(of: .charge, charge.transaction),
            orderId: order.id,
            kind: .charge,
            identity: charge.transaction.identity,
            amount: order.amount,
            lifecycle: PaymentLifecycle(
                expectedAmount: order.amount.minorUnits,
                currency: currency,
                submittedAt: now,
                configuration: configuration
            ),
            card: charge.card,
            createdAt: now
        )
        payments.append(record)
        order = OrderSettlement.settle(order, payments)  // same version: the insert checks it
        let cause = charge.cause ?? "authorized by the shopper; charging \(order.amount)"
        return Step(
            write: .insertPayment(
                record,
                creation: PaymentTransition(from: nil, to: record.lifecycle.state, cause: cause, at: now),
                order: order,
                tokenTransactionId: charge.tokenTransactionId
            ),
            effects: [.send(.charge(record))],
            reply: .awaitOutcome(record)
        )
    }

    // MARK: Cancel and unwind

    mutating func cancel(_ party: Party, now: Date) -> Step {
        if order.canceledAt != nil { return Step(effects: [.unwind], reply: .order(order)) }
        switch order.status {
        case .voided, .refunded:
            return Step(
                reply: .refused(
                    .conflict(
                        "order \(order.id) is already \(order.status.rawValue); there is nothing left to cancel"
                    )
                )
            )
        case .paid, .partiallyRefunded:
            let charge = payments.last { $0.kind == .charge && $0.lifecycle.state == .succeeded }
            let inWindow = charge.map { now.timeIntervalSince($0.createdAt) <= configuration.shopperCancelWindow }
            guard party == .merchant || inWindow == true else {
                return Step(reply: .refused(.conflict("order \(order.id) is paid; ask the merchant for a refund")))
            }
        default:
            break
        }
        var canceled = order
        canceled.canceledAt = now
        order = OrderSettlement.settle(canceled, payments)
        return Step(
            write: .updateOrder(order),
            effects: [.endAgreement(because: "the order of its first payment was canceled"), .unwind],
            reply: .order(order)
        )
    }

    mutating func unwind(_ transaction: NewTransaction, now: Date) -> Step {
        guard order.canceledAt != nil else { return Step(reply: .order(order)) }
        // A payment in flight settles first (its own schedule); a held one waits for a person.
        if payments.contains(where: { !$0.lifecycle.state.isTerminal || $0.lifecycle.state == .held }) {
            return Step(reply: .order(order))
        }
        let settled = OrderSettlement.settle(order, payments)
        let left = settled.paid.minorUnits - settled.refunded.minorUnits
        guard left > 0,
            let charge = payments.last(where: { $0.kind == .charge && $0.lifecycle.state == .succeeded })
        else {
            guard settled != order else { return Step(reply: .order(order)) }
            order = settled
            return Step(write: .updateOrder(settled), reply: .order(settled))
        }
        let tried = payments.contains { $0.kind != .charge }
        let kind: PaymentKind = !tried && configuration.clearingDay.same(charge.createdAt, now) ? .void : .refund
        return reverse(kind, amount: kind == .void ? nil : left, transaction, cause: "the order was canceled", now: now)
    }

    // MARK: Refunds and voids (R9)

    mutating func reverse(
        _ kind: PaymentKind,
        amount: Int?,
        _ transaction: NewTransaction,
        cause: String?,
        now: Date
    ) -> Step {
        guard kind != .charge else {
            return refused(PaymentRefusal(.invalid, code: "invalid_request", message: "a charge is not a reversal"))
        }
        guard let charge = payments.first(where: { $0.kind == .charge && $0.lifecycle.state == .succeeded }),
            let reference = charge.lifecycle.reference
        else {
            return refused(
                .conflict("order \(order.id) is \(order.status.rawValue); only a paid order can be refunded or voided")
            )
        }
        let value: Money
        let left: Money
        switch reversal(kind, amount: amount, of: charge, now: now) {
        case .failure(let refusal): return refused(refusal)
        case .success(let checked): (value, left) = checked
        }
        let record = PaymentRecord(
            id: Self.id(of: kind, transaction),
            orderId: order.id,
            kind: kind,
            identity: transaction.identity,
            amount: value,
            lifecycle: PaymentLifecycle(
                expectedAmount: value.minorUnits,
                currency: value.currency,
                submittedAt: now,
                configuration: configuration
            ),
            originalReference: reference,
            originalPaymentId: charge.id,
            createdAt: now
        )
        return inserted(record, whole: kind == .void || value == left, cause: cause, now: now)
    }

    /// The step of a reversal `record` of the order's charge: stored with the order as read,
    /// then the agreement ended when it gives back the whole first payment, then sent.
    mutating func inserted(_ record: PaymentRecord, whole: Bool, cause: String?, now: Date) -> Step {
        let (kind, reference) = (record.kind, record.originalReference ?? "")
        let stored = order
        payments.append(record)
        order = OrderSettlement.settle(order, payments)
        var effects: [Effect] = []
        // R12: the whole of a plan's first payment given back ends its agreement before the money moves.
        if whole {
            let reason = kind == .void ? "its first payment was voided" : "its first payment was refunded in full"
            effects.append(.endAgreement(because: reason))
        }
        effects.append(
            .send(
                kind == .void
                    ? .void(record, originalReference: reference) : .refund(record, originalReference: reference)
            )
        )
        let why = "\(kind.rawValue) of \(record.amount.minorUnits) requested" + (cause.map { ": " + $0 } ?? "")
        return Step(
            write: .insertPayment(
                record,
                creation: PaymentTransition(from: nil, to: record.lifecycle.state, cause: why, at: now),
                order: stored,
                tokenTransactionId: nil
            ),
            effects: effects,
            reply: .awaitOutcome(record)
        )
    }

    func refused(_ refusal: PaymentRefusal) -> Step { Step(reply: .refused(refusal)) }

    /// The amount of a reversal of `charge` (R9) and what is left of it before this one: a void
    /// is the whole, unrefunded charge on its clearing day; a refund is above zero and never more
    /// than is left (reversals in flight count). Checked, in the charge's currency.
    func reversal(
        _ kind: PaymentKind,
        amount: Int?,
        of charge: PaymentRecord,
        now: Date
    ) -> Result<
        (value: Money, left: Money), PaymentRefusal
    > {
        let reversals = payments.filter { $0.kind != .charge && $0.lifecycle.state != .failed }
        let paid = charge.amount
        guard let committed = try? Money.sum(reversals.map(\.amount), in: paid.currency),
            let left = try? paid.subtracting(committed)
        else { return .failure(PaymentRefusal(.invalid, code: "invalid_request", message: "amounts out of range")) }
        if kind == .void {
            guard reversals.isEmpty else {
                return .failure(.conflict("order \(order.id) has refunds; a void is for a whole, unrefunded charge"))
            }
            guard configuration.clearingDay.same(charge.createdAt, now) else {
                return .failure(
                    .conflict("the charge was made on an earlier clearing day; refund it instead of voiding")
                )
            }
            return .success((paid, left))
        }
        let value = amount.map { Money($0, paid.currency) } ?? left
        guard value.isPositive else {
            return .failure(
                PaymentRefusal(
                    .invalid,
                    code: "invalid_request",
                    field: "amount",
                    message: "the refund amount must be positive"
                )
            )
        }
        guard (try? value.exceeds(left)) == false else {
            return .failure(
                PaymentRefusal(
                    .unprocessable,
                    code: "refund_exceeds_payment",
                    field: "amount",
                    message:
                        "refunds would total more than was paid; at most \(left.currency.format(left.minorUnits)) \(order.currencyCode) can still be refunded"
                )
            )
        }
        return .success((value, left))
    }

    /// A new payment's id: its kind's prefix (`pay_`, `ref_`, `void_`) and the transaction's id.
    static func id(of kind: PaymentKind, _ transaction: NewTransaction) -> String {
        (kind == .charge ? "pay_" : kind == .void ? "void_" : "ref_") + transaction.id
    }

    // MARK: The entry points

    /// Applies `input`, received at `now`.
    public mutating func handle(_ input: Input, now: Date) -> Step {
        switch input {
        case .authorize(let charge): authorize(charge, now: now)
        case .cancel(let party): cancel(party, now: now)
        case .reverse(let kind, let amount, let transaction, let cause):
            reverse(kind, amount: amount, transaction, cause: cause, now: now)
        case .unwind(let transaction): unwind(transaction, now: now)
        }
    }

    /// Applies `input` to the payment `payment` alone (the driver need not read its order: the
    /// writer settles the order from what is stored, in the same transaction, when the step says
    /// so). `now`: when the input came.
    public static func advance(
        _ payment: PaymentRecord,
        _ input: PaymentInput,
        now: Date,
        configuration: LifecycleConfiguration
    ) -> PaymentStep {
        var next = payment
        var earlier: PaymentTransition?
        if let held = input.earlier,
            case .transition(let from, let to, let cause) = next.lifecycle.receive(
                .answer(held.answer),
                now: held.at,
                configuration: configuration
            )
        {
            earlier = PaymentTransition(from: from, to: to, cause: cause, at: held.at)
        }
        var step = PaymentStep(
            next: next,
            before: payment.version,
            earlier: earlier,
            transition: nil,
            settlesOrder: false,
            ignored: false
        )
        switch next.lifecycle.receive(input.lifecycleInput, now: now, configuration: configuration) {
        case .ignored where earlier != nil:
            break  // the held acceptance's change is still stored
        case .ignored:
            step.next = nil
            step.ignored = true
            return step
        case .rescheduled:
            break
        case .transition(let from, let to, let cause):
            step.transition = PaymentTransition(from: from, to: to, cause: cause, at: now)
        }
        step.next = next
        // Only a terminal state can change the order (created/failed → pending happened at insert).
        step.settlesOrder = next.lifecycle.state.isTerminal
        return step
    }

    /// Whether `order`, as settled after a payment's change, has money to return: the writer
    /// then feeds ``Input/unwind(_:)``.
    public static func needsUnwind(_ order: OrderRecord) -> Bool { order.status == .canceling }

    /// The order's status and sums from its payments.
    public static func settle(_ order: OrderRecord, _ payments: [PaymentRecord]) -> OrderRecord {
        OrderSettlement.settle(order, payments)
    }
}
