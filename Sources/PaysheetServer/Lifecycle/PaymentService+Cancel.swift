import PaysheetPayments
import Foundation
import Metrics
import PaysheetModel
import UnionPay

extension PaymentService {
    /// Cancels the order `orderId`, as the sheet's `cancel` event (the shopper dismissed it, or
    /// its 30 s deadline passed) asks: with no charge yet, the order ends `canceled` and no later
    /// authorization is accepted; with a charge in flight, once its outcome is certain a success
    /// is voided (same clearing day) or refunded, and the order ends `canceled`. The cancel is
    /// stored before anything else, so a restart finishes it (`runCancellations()`).
    public func cancel(orderId: String, byMerchant: Bool) async throws -> OrderRecord {
        for _ in 0..<4 {
            guard let (order, payments) = try await store.orderAndPayments(orderId) else {
                throw ServiceError.notFound("order \(orderId)")
            }
            if order.canceledAt != nil {
                try await unwind(orderId)
                return try await store.order(orderId) ?? order
            }
            switch order.status {
            case .voided, .refunded:
                throw ServiceError.conflict(
                    "order \(orderId) is already \(order.status.rawValue); there is nothing left to cancel"
                )
            case .paid, .partiallyRefunded:
                let charge = payments.last { $0.kind == .charge && $0.lifecycle.state == .succeeded }
                guard byMerchant || charge.map({ now().timeIntervalSince($0.createdAt) <= shopperCancelWindow }) == true
                else {
                    throw ServiceError.conflict("order \(orderId) is paid; ask the merchant for a refund")
                }
            default:
                break
            }
            var canceled = order
            canceled.canceledAt = now()
            canceled = OrderSettlement.settle(canceled, payments)
            guard try await store.update(canceled) != nil else { continue }  // changed meanwhile: look again
            logger.info(
                "order \(orderId) canceled by the \(byMerchant ? "merchant" : "shopper") (was \(order.status.rawValue))"
            )
            Counter(label: "paysheet_orders_canceled_total").increment()
            await endAgreement(startedBy: canceled, because: "the order of its first payment was canceled")
            try await unwind(orderId)
            return try await store.order(orderId) ?? canceled
        }
        throw ServiceError.conflict("order \(orderId) kept changing; try again")
    }

    /// Returns the money of a canceled order once nothing of it is in flight: a void of the whole
    /// charge on its clearing day when no reversal was tried yet, else a refund of what is left.
    /// Idempotent: safe to call from the cancel, after a charge settles, and from the poller.
    func unwind(_ orderId: String) async throws {
        for _ in 0..<4 {
            guard let (order, payments) = try await store.orderAndPayments(orderId), order.canceledAt != nil else {
                return
            }
            // A payment in flight settles first (its own schedule); a held one waits for a person.
            if payments.contains(where: { !$0.lifecycle.state.isTerminal || $0.lifecycle.state == .held }) { return }
            let settled = OrderSettlement.settle(order, payments)
            let left = settled.paid - settled.refunded
            guard left > 0,
                let charge = payments.last(where: { $0.kind == .charge && $0.lifecycle.state == .succeeded })
            else {
                if settled != order, try await store.update(settled) == nil { continue }
                return
            }
            let tried = payments.contains { $0.kind != .charge }
            let kind: PaymentKind = !tried && TransactionTime.sameClearingDay(charge.createdAt, now()) ? .void : .refund
            do {
                _ = try await reverse(
                    orderId: orderId,
                    kind: kind,
                    amount: kind == .void ? nil : left,
                    cause: "the order was canceled"
                )
            } catch let error as ServiceError where error.kind == .conflict {
                // Another unwind of the same cancel (the poller's, another server's) reversed it
                // first: look again (its reversal is now in flight, and this one returns).
                continue
            }
            return
        }
    }

    /// Finishes the cancels a restart or another server left unfinished.
    @discardableResult
    public func runCancellations(limit: Int = 100) async throws -> Int {
        let open = try await store.orders(status: .canceling, before: nil, limit: limit)
        for order in open {
            do { try await unwind(order.id) } catch {
                logger.error("the cancel of order \(order.id) did not progress: \(error)")
            }
        }
        return open.count
    }
}
