import Foundation
import PaysheetPayments

/// The core the simulation drives: the product's ``OrderLifecycle`` as it is, or one of the
/// deliberately broken variants below, each of which one invariant must catch (the checker
/// bites). The variants live here, in a target that is no product: nothing ships them.
public struct Core: Sendable {
    var gate: @Sendable (OrderLifecycle) -> OrderLifecycle.Step?
    var handle: @Sendable (inout OrderLifecycle, OrderLifecycle.Input, Date) -> OrderLifecycle.Step
    var agreementGate:
        @Sendable (AgreementLifecycle, (order: OrderRecord, payments: [PaymentRecord])?, PaymentRecord?, Date) ->
            Result<Int, PaymentRefusal>
    var advance:
        @Sendable (PaymentRecord, OrderLifecycle.PaymentInput, Date, LifecycleConfiguration) ->
            OrderLifecycle.PaymentStep

    /// The product's core.
    public static let real = Core(
        gate: { $0.authorizationGate() },
        handle: { machine, input, now in machine.handle(input, now: now) },
        agreementGate: { $0.chargeablePeriod(firstOrder: $1, lastCharge: $2, now: $3) },
        advance: { OrderLifecycle.advance($0, $1, now: $2, configuration: $3) }
    )

    /// A broken variant, and the invariant that must catch it.
    public enum Mutant: String, Sendable, CaseIterable {
        /// A second authorization charges again while the first charge is in flight.
        case chargeAgainWhileInFlight = "charge-again-while-in-flight"
        /// The acquirer's synchronous acceptance is taken for the payment's success (R5 broken).
        case acceptedIsPaid = "accepted-is-paid"
        /// A canceled order is marked canceled without giving its money back.
        case cancelKeepsMoney = "cancel-keeps-money"
        /// "No such transaction" is taken for "still processing" forever: a charge that never
        /// reached the acquirer is never final.
        case notFoundNeverFinal = "not-found-never-final"
        /// A payment's change is stored without its history row.
        case historyRowDropped = "history-row-dropped"
        /// A refund counts only the refunds that succeeded, not those in flight.
        case refundIgnoresInFlight = "refund-ignores-in-flight"
        /// The agreement is not ended when its first payment is given back.
        case agreementOutlivesRefund = "agreement-outlives-refund"
        /// An agreement is charged without looking at whether it ended.
        case chargeEndedAgreement = "charge-ended-agreement"
        /// An agreement is charged without looking at its merchant token's state.
        case chargeDeadToken = "charge-dead-token"

        /// The invariant that catches it.
        public var caughtBy: Invariant {
            switch self {
            case .chargeAgainWhileInFlight: .oneConsume
            case .acceptedIsPaid: .ledgerMatchesAcquirer
            case .cancelKeepsMoney: .canceledKeepsNothing
            case .notFoundNeverFinal: .finalInBoundedTime
            case .historyRowDropped: .historyComplete
            case .refundIgnoresInFlight: .refundsWithinPaid
            case .agreementOutlivesRefund: .agreementEndsFirst
            case .chargeEndedAgreement: .noChargeAfterAgreementEnds
            case .chargeDeadToken: .noChargeOnDeadToken
            }
        }
    }

    /// The core with `mutant` (none: the product's).
    public static func with(_ mutant: Mutant?) -> Core {
        switch mutant {
        case nil: .real
        case .chargeAgainWhileInFlight: chargeAgainWhileInFlight()
        case .acceptedIsPaid: acceptedIsPaid()
        case .cancelKeepsMoney: cancelKeepsMoney()
        case .notFoundNeverFinal: notFoundNeverFinal()
        case .historyRowDropped: historyRowDropped()
        case .refundIgnoresInFlight: refundIgnoresInFlight()
        case .agreementOutlivesRefund: agreementOutlivesRefund()
        case .chargeEndedAgreement: chargeEndedAgreement()
        case .chargeDeadToken: chargeDeadToken()
        }
    }

    static func chargeAgainWhileInFlight() -> Core {
        var core = Core.real
        core.gate = { machine in
            let gate = machine.authorizationGate()
            if case .awaitOutcome = gate?.reply { return nil }
            return gate
        }
        core.handle = { machine, input, now in
            guard case .authorize = input, machine.payments.contains(where: { !$0.lifecycle.state.isTerminal })
            else { return machine.handle(input, now: now) }
            var blind = OrderLifecycle(
                order: machine.order,
                payments: machine.payments.filter { $0.lifecycle.state.isTerminal },
                configuration: machine.configuration
            )
            return blind.handle(input, now: now)
        }
        return core
    }

    static func acceptedIsPaid() -> Core {
        var core = Core.real
        core.advance = { payment, input, now, configuration in
            if case .answered(.accepted(let reference)) = input, payment.kind == .charge {
                return OrderLifecycle.advance(
                    payment,
                    .notified(.succeeded(amount: payment.amount, reference: reference), earlier: nil),
                    now: now,
                    configuration: configuration
                )
            }
            return OrderLifecycle.advance(payment, input, now: now, configuration: configuration)
        }
        return core
    }

    static func cancelKeepsMoney() -> Core {
        var core = Core.real
        core.handle = { machine, input, now in
            guard case .unwind = input, machine.order.canceledAt != nil, machine.order.status != .canceled,
                !machine.payments.contains(where: { !$0.lifecycle.state.isTerminal })
            else { return machine.handle(input, now: now) }
            var order = machine.order
            order.status = .canceled
            return OrderLifecycle.Step(write: .updateOrder(order))
        }
        return core
    }

    static func notFoundNeverFinal() -> Core {
        var core = Core.real
        core.advance = { payment, input, now, configuration in
            if case .queried(.notFound, let earlier) = input {
                return OrderLifecycle.advance(
                    payment,
                    .queried(.pending(reason: "taken for pending"), earlier: earlier),
                    now: now,
                    configuration: configuration
                )
            }
            return OrderLifecycle.advance(payment, input, now: now, configuration: configuration)
        }
        return core
    }

    static func historyRowDropped() -> Core {
        var core = Core.real
        core.advance = { payment, input, now, configuration in
            var step = OrderLifecycle.advance(payment, input, now: now, configuration: configuration)
            if step.transition?.to.isTerminal == true { step.transition = nil }
            return step
        }
        return core
    }

    static func refundIgnoresInFlight() -> Core {
        var core = Core.real
        core.handle = { machine, input, now in
            guard case .reverse = input else { return machine.handle(input, now: now) }
            var blind = OrderLifecycle(
                order: machine.order,
                payments: machine.payments.filter { $0.kind == .charge || $0.lifecycle.state.isTerminal },
                configuration: machine.configuration
            )
            return blind.handle(input, now: now)
        }
        return core
    }

    static func agreementOutlivesRefund() -> Core {
        var core = Core.real
        core.handle = { machine, input, now in
            var step = machine.handle(input, now: now)
            step.effects.removeAll {
                if case .endAgreement = $0 { return true }
                return false
            }
            return step
        }
        return core
    }

    static func chargeEndedAgreement() -> Core {
        var core = Core.real
        core.agreementGate = { machine, firstOrder, lastCharge, now in
            // Blind to the end: as if the agreement were still running and its first order untouched.
            var agreement = machine.agreement
            agreement.canceledAt = nil
            let untouched = firstOrder.map { aggregate -> (order: OrderRecord, payments: [PaymentRecord]) in
                var order = aggregate.order
                order.canceledAt = nil
                return (order, aggregate.payments.filter { $0.kind == .charge })
            }
            return AgreementLifecycle(agreement).chargeablePeriod(
                firstOrder: untouched,
                lastCharge: lastCharge,
                now: now
            )
        }
        return core
    }

    static func chargeDeadToken() -> Core {
        var core = Core.real
        core.agreementGate = { machine, firstOrder, lastCharge, now in
            // Blind to the token: as if no life-cycle notification had come.
            var agreement = machine.agreement
            agreement.tokenStatus = nil
            return AgreementLifecycle(agreement).chargeablePeriod(
                firstOrder: firstOrder,
                lastCharge: lastCharge,
                now: now
            )
        }
        return core
    }
}
