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
        guard
            let (step, order) = try await apply(orderId, at: now(), { _ in .cancel(byMerchant ? .merchant : .shopper) })
        else { throw ServiceError.notFound("order \(orderId)") }
        if step.write != nil {
            logger.info("order \(orderId) canceled by the \(byMerchant ? "merchant" : "shopper")")
            Counter(label: "paysheet_orders_canceled_total").increment()
        }
        try await perform(step.effects, of: order)
        return try await store.order(orderId) ?? order
    }

    /// Returns the money of a canceled order once nothing of it is in flight (the core's
    /// `OrderLifecycle/Input/unwind(_:)` (PaysheetPayments): a void of the whole charge on its clearing day when no
    /// reversal was tried yet, else a refund of what is left). Idempotent: safe to call from the
    /// cancel, after a charge settles, and from the poller.
    func unwind(_ orderId: String) async throws {
        for _ in 0..<4 {
            do {
                guard
                    let (step, order) = try await apply(
                        orderId,
                        at: now(),
                        { [self] _ in .unwind(newTransaction(at: now())) }
                    )
                else { return }
                try await perform(step.effects, of: order)
                return
            } catch let error as ServiceError where error.kind == .conflict {
                // Another unwind of the same cancel (the poller's, another server's) reversed it
                // first: look again (its reversal is now in flight, and this one returns).
                continue
            }
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
