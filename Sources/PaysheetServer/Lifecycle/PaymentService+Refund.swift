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
        let at = now()
        guard
            let (step, order) = try await apply(
                orderId,
                at: at,
                { [self] _ in .reverse(kind, amount: amount, newTransaction(at: at), cause: cause) }
            )
        else { throw ServiceError.notFound("order \(orderId)") }
        guard case .awaitOutcome(let record) = step.reply else {
            throw ServiceError.conflict("order \(orderId): nothing to \(kind.rawValue)")
        }
        return try await perform(step.effects, of: order) ?? record
    }
}
