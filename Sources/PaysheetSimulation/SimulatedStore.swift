import Foundation
import PaysheetPayments

/// The store in memory, with the server's store's semantics: every write version-checked and
/// all-or-nothing; notifications and token uses deduplicated in the write that applies them; the
/// order settled from its stored payments in the payment's write; history rows appended; due
/// payments claimed with a lease.
struct SimulatedStore {
    var orders: [String: OrderRecord] = [:]
    var payments: [String: PaymentRecord] = [:]
    var paymentsByOrder: [String: [String]] = [:]
    var history: [String: [PaymentTransition]] = [:]
    var notifications: Set<String> = []
    var tokenUses: Set<String> = []
    var leases: [String: Date] = [:]
    /// Agreements, by the order of their first payment (a plan's order).
    var agreements: [String: AgreementRecord] = [:]

    enum InsertResult { case inserted, orderChanged, tokenReplayed }
    enum UpdateResult {
        case updated(PaymentRecord, OrderRecord?)
        case conflict
        case duplicateNotification
    }

    func aggregate(_ orderId: String) -> (OrderRecord, [PaymentRecord])? {
        guard let order = orders[orderId] else { return nil }
        return (order, (paymentsByOrder[orderId] ?? []).compactMap { payments[$0] })
    }

    mutating func insertOrder(_ order: OrderRecord) { orders[order.id] = order }

    mutating func apply(_ write: OrderLifecycle.Write) -> InsertResult {
        switch write {
        case .insertPayment(let payment, let creation, let order, let token):
            if let token, tokenUses.contains(token) { return .tokenReplayed }
            guard let stored = orders[order.id], stored.version == order.version else { return .orderChanged }
            if let token { tokenUses.insert(token) }
            if payment.kind == .charge, order.planId != nil, order.agreementId == nil {
                let plan = SubscriptionPlan(
                    id: "plan",
                    kind: .automaticReload,
                    description: "reload",
                    label: "Reload",
                    amount: "10.00",
                    currencyCode: "CNY",
                    billingAgreement: "sim"
                )
                var agreement = AgreementRecord(
                    id: "agr-\(order.id)",
                    orderId: order.id,
                    plan: plan,
                    firstPaymentId: payment.id,
                    startedAt: payment.createdAt,
                    credential: "",
                    tokenSuffix: "0000"
                )
                agreement.version = (agreements[order.id]?.version ?? -1) + 1
                agreements[order.id] = agreement
            }
            var next = order
            next.version += 1
            orders[order.id] = next
            payments[payment.id] = payment
            paymentsByOrder[order.id, default: []].append(payment.id)
            history[payment.id] = [creation]
            return .inserted
        case .updateOrder(let order):
            guard let stored = orders[order.id], stored.version == order.version else { return .orderChanged }
            var next = order
            next.version += 1
            orders[order.id] = next
            return .inserted
        }
    }

    mutating func apply(_ step: OrderLifecycle.PaymentStep, notification: String?) -> UpdateResult {
        guard var next = step.next else { return .conflict }
        if let notification, notifications.contains(notification) { return .duplicateNotification }
        guard let stored = payments[next.id], stored.version == step.before else { return .conflict }
        if let notification { notifications.insert(notification) }
        next.version = stored.version + 1
        payments[next.id] = next
        if let earlier = step.earlier { history[next.id, default: []].append(earlier) }
        guard let transition = step.transition else { return .updated(next, nil) }
        history[next.id, default: []].append(transition)
        guard step.settlesOrder, let (order, all) = aggregate(next.orderId) else { return .updated(next, nil) }
        var settled = OrderLifecycle.settle(order, all)
        guard settled != order else { return .updated(next, order) }
        settled.version += 1
        orders[order.id] = settled
        return .updated(next, settled)
    }

    mutating func recordNotification(_ key: String) { notifications.insert(key) }

    mutating func claimDue(at now: Date, leaseSeconds: Double) -> [PaymentRecord] {
        let due = payments.values.filter { p in
            p.lifecycle.isDue(at: now) && (leases[p.id].map { $0 <= now } ?? true)
        }
        .sorted { $0.id < $1.id }
        for p in due { leases[p.id] = now.addingTimeInterval(leaseSeconds) }
        return due
    }

    mutating func release(_ id: String) { leases[id] = nil }

    func payment(identity: TransactionIdentity) -> PaymentRecord? {
        payments.values.first { $0.identity == identity }
    }
}
