import Foundation
import PaysheetPayments

extension Simulation {
    func violation(_ invariant: Invariant, _ detail: String) -> Violation {
        Violation(invariant: invariant, detail: detail, step: steps)
    }

    /// The invariants that hold after every step.
    func check() throws(Violation) {
        if let seen { throw seen }
        for order in store.orders.values {
            let held = acquirer.net(order: order.id)
            if held.consumes > 1 {
                throw violation(.oneConsume, "\(order.id) was consumed \(held.consumes) times")
            }
            if held.reversed > held.charged {
                throw violation(
                    .refundsWithinPaid,
                    "the acquirer gave back \(held.reversed) of \(order.id)'s \(held.charged)"
                )
            }
            if order.status == .canceled, held.charged != held.reversed {
                throw violation(
                    .canceledKeepsNothing,
                    "\(order.id) is canceled but the acquirer holds \(held.charged - held.reversed) of it"
                )
            }
            let payments = (store.paymentsByOrder[order.id] ?? []).compactMap { store.payments[$0] }
            for charge in payments where charge.kind == .charge && charge.lifecycle.state == .succeeded {
                let given = payments.filter { $0.originalPaymentId == charge.id && $0.lifecycle.state != .failed }
                    .reduce(0) { $0 + $1.amount.minorUnits }
                if given > charge.amount.minorUnits {
                    throw violation(
                        .refundsWithinPaid,
                        "\(order.id): \(given) given back of a charge of \(charge.amount)"
                    )
                }
            }
        }
        for payment in store.payments.values {
            try checkHistory(payment)
            let truth = acquirer.transactions[payment.identity]
            switch payment.lifecycle.state {
            case .succeeded:
                guard let truth, truth.state == .succeeded, truth.amount == payment.amount.minorUnits else {
                    throw violation(
                        .ledgerMatchesAcquirer,
                        "\(payment.id) is succeeded in the store; the acquirer has \(truth.map { "\($0.state) \($0.amount)" } ?? "nothing")"
                    )
                }
            case .failed:
                if truth?.state == .succeeded {
                    throw violation(
                        .ledgerMatchesAcquirer,
                        "\(payment.id) is failed in the store; the acquirer has it succeeded"
                    )
                }
            default: break
            }
        }
    }

    func checkHistory(_ payment: PaymentRecord) throws(Violation) {
        let rows = store.history[payment.id] ?? []
        guard let first = rows.first, first.from == nil else {
            throw violation(.historyComplete, "\(payment.id) has no creation row")
        }
        for (a, b) in zip(rows, rows.dropFirst()) where b.from != a.to {
            throw violation(
                .historyComplete,
                "\(payment.id): a row from \(b.from?.rawValue ?? "nil") follows one to \(a.to.rawValue)"
            )
        }
        if rows.last?.to != payment.lifecycle.state {
            throw violation(
                .historyComplete,
                "\(payment.id) is \(payment.lifecycle.state.rawValue) but its history ends at \(rows.last?.to.rawValue ?? "nothing")"
            )
        }
    }

    /// What holds once the world healed: everything final, and the ledger the acquirer's.
    func checkFinal() throws(Violation) {
        for payment in store.payments.values where !payment.lifecycle.state.isTerminal {
            throw violation(
                .finalInBoundedTime,
                "\(payment.id) is still \(payment.lifecycle.state.rawValue) \(Int(configuration.healBound)) s after faults stopped"
            )
        }
        for order in store.orders.values {
            if order.status == .canceling {
                throw violation(.finalInBoundedTime, "\(order.id) is still canceling after the world healed")
            }
            let held = acquirer.net(order: order.id)
            let ledger = order.paid.minorUnits - order.refunded.minorUnits
            if held.charged - held.reversed != ledger {
                throw violation(
                    .ledgerMatchesAcquirer,
                    "\(order.id): the acquirer holds \(held.charged - held.reversed), the ledger says \(ledger)"
                )
            }
        }
        for (identity, truth) in acquirer.transactions where truth.state == .processing {
            throw violation(.finalInBoundedTime, "the acquirer still processes \(identity.orderId)")
        }
    }
}
