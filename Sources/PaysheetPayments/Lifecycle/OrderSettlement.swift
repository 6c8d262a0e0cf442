import PaysheetModel

/// An order's status and paid/refunded sums, derived from its payments (pure).
package enum OrderSettlement {
    package static func settle(_ order: OrderRecord, _ payments: [PaymentRecord]) -> OrderRecord {
        var o = order
        let charges = payments.filter { $0.kind == .charge }
        let paid = charges.filter { $0.lifecycle.state == .succeeded }.reduce(0) { $0 + $1.amount.minorUnits }
        let reversals = payments.filter { $0.kind != .charge && $0.lifecycle.state == .succeeded }
        let refunded = reversals.reduce(0) { $0 + $1.amount.minorUnits }
        o.paid = Money(paid, order.amount.currency)
        o.refunded = Money(refunded, order.amount.currency)
        if order.canceledAt != nil {
            // Canceled: certain only when nothing is in flight (a held payment waits for a person)
            // and every fen taken has come back.
            let unsettled = payments.contains { !$0.lifecycle.state.isTerminal || $0.lifecycle.state == .held }
            o.status = !unsettled && refunded >= paid ? .canceled : .canceling
            return o
        }
        if reversals.contains(where: { $0.kind == .void }) {
            o.status = .voided
        } else if paid > 0 {
            o.status = refunded >= paid ? .refunded : refunded > 0 ? .partiallyRefunded : .paid
        } else if charges.contains(where: { !$0.lifecycle.state.isTerminal || $0.lifecycle.state == .held }) {
            o.status = .pending
        } else if !charges.isEmpty {
            o.status = .failed
        } else {
            o.status = .created
        }
        return o
    }
}
