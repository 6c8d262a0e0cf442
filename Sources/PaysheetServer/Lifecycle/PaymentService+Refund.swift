import PaysheetPayments
import Foundation
import PaysheetModel
import PaysheetToken
import UnionPay

extension PaymentService {
    /// Refunds `amount` minor units (all that is left when `nil`) of the order's charge.
    /// Refunds are cumulative and never exceed what was paid (in-flight refunds count).
    public func refund(orderId: String, amount: Int?) async throws -> PaymentRecord {
        try await reverse(orderId: orderId, kind: .refund, amount: amount)
    }

    /// Voids the order's charge in full; only on the charge's clearing day, before any refund.
    public func void(orderId: String) async throws -> PaymentRecord {
        try await reverse(orderId: orderId, kind: .void, amount: nil)
    }

    func reverse(orderId: String, kind: PaymentKind, amount: Int?, cause: String? = nil) async throws -> PaymentRecord {
        for _ in 0..<4 {
            let at = now()
            guard let (order, payments) = try await store.orderAndPayments(orderId) else {
                throw ServiceError.notFound("order \(orderId)")
            }
            guard let charge = payments.first(where: { $0.kind == .charge && $0.lifecycle.state == .succeeded }),
                let reference = charge.lifecycle.reference
            else {
                throw ServiceError.conflict(
                    "order \(orderId) is \(order.status.rawValue); only a paid order can be refunded or voided"
                )
            }
            let reversals = payments.filter { $0.kind != .charge && $0.lifecycle.state != .failed }
            // Checked: a refund amount may be anything a caller wrote.
            let committed = try MinorUnits.sum(reversals.map(\.amount))
            let value: Int
            if kind == .void {
                guard reversals.isEmpty else {
                    throw ServiceError.conflict(
                        "order \(orderId) has refunds; a void is for a whole, unrefunded charge"
                    )
                }
                guard TransactionTime.sameClearingDay(charge.createdAt, at) else {
                    throw ServiceError.conflict(
                        "the charge was made on an earlier clearing day; refund it instead of voiding"
                    )
                }
                value = charge.amount
            } else {
                value = amount ?? (charge.amount - committed)
                guard value > 0 else { throw ServiceError.invalid("amount", "the refund amount must be positive") }
                guard value <= charge.amount - committed else {
                    let currency = Currency(order.currencyCode)
                    let left = currency?.format(charge.amount - committed) ?? String(charge.amount - committed)
                    throw ServiceError(
                        .unprocessable,
                        code: "refund_exceeds_payment",
                        field: "amount",
                        message:
                            "refunds would total more than was paid; at most \(left) \(order.currencyCode) can still be refunded"
                    )
                }
            }
            let record = newPayment(
                kind,
                orderId: orderId,
                amount: value,
                currencyNumeric: charge.currencyNumeric,
                at: at,
                original: (reference, charge.id)
            )
            let id = record.id
            guard
                case .inserted = try await store.insert(
                    record,
                    cause: "\(kind.rawValue) of \(value) requested" + (cause.map { ": " + $0 } ?? ""),
                    order: order
                )
            else { continue }
            // The whole of a plan's first payment given back: its agreement ends before the money moves.
            if kind == .void || value == charge.amount - committed {
                await endAgreement(
                    startedBy: order,
                    because: kind == .void ? "its first payment was voided" : "its first payment was refunded in full"
                )
            }
            let answer =
                kind == .void
                ? await acquirer.void(
                    record.identity,
                    amount: value,
                    currencyNumeric: record.currencyNumeric,
                    originalReference: reference
                )
                : await acquirer.refund(
                    record.identity,
                    amount: value,
                    currencyNumeric: record.currencyNumeric,
                    originalReference: reference
                )
            let after = try await advance(id, .answer(answer), loaded: record) ?? record
            return try await waitForOutcome(after.id, until: at.addingTimeInterval(min(authorizeWait, 10)))?.payment
                ?? after
        }
        throw ServiceError.conflict("order \(orderId) kept changing; try again")
    }
}
