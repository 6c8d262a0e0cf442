import Foundation
import PaysheetModel

/// An agreement's decisions, pure like ``OrderLifecycle``: whether it has ended with its first
/// payment (R12), which period may be charged now and when, the claim of a period by one charge,
/// and its end. The server's writer applies them to the stored agreement (version-checked); the
/// simulation applies the same ones.
public struct AgreementLifecycle: Sendable, Equatable {
    /// The agreement as stored.
    public private(set) var agreement: AgreementRecord

    /// The machine of `agreement`.
    public init(_ agreement: AgreementRecord) { self.agreement = agreement }

    /// Why the agreement whose first payment is `firstPaymentId` in `order` ended with it, if it
    /// did: its order canceled, the payment voided, or refunds (those in flight count) reaching
    /// its whole amount. A partial refund does not end it.
    public static func ended(firstPaymentId: String, order: OrderRecord, payments: [PaymentRecord]) -> String? {
        if order.canceledAt != nil { return "the order of its first payment was canceled" }
        guard let first = payments.first(where: { $0.id == firstPaymentId }) else { return nil }
        let reversals = payments.filter { $0.originalPaymentId == first.id && $0.lifecycle.state != .failed }
        if reversals.contains(where: { $0.kind == .void }) { return "its first payment was voided" }
        let refunds = reversals.filter { $0.kind == .refund }.map(\.amount)
        // Checked: sums that do not add up (an overflow, another currency) count as the whole.
        guard let refunded = try? Money.sum(refunds, in: first.amount.currency),
            (try? first.amount.exceeds(refunded)) == true
        else { return "its first payment was refunded in full" }
        return nil
    }

    /// The period that may be charged at `now` (1 = the first after the start), given its first
    /// payment's order as stored and its last charge: refused when its merchant token was deleted
    /// or is suspended (``tokenRefusal``), the agreement is canceled or ended, its first payment
    /// has not succeeded, its last charge is still in flight, or (a subscription) the next period
    /// is not yet due.
    public func chargeablePeriod(
        firstOrder: (order: OrderRecord, payments: [PaymentRecord])?,
        lastCharge: PaymentRecord?,
        now: Date
    ) -> Result<Int, PaymentRefusal> {
        let id = agreement.id
        if agreement.merchantTokenStatus == .deleted, let refusal = tokenRefusal { return .failure(refusal) }
        if let canceledAt = agreement.canceledAt {
            let why = agreement.canceledBecause.map { " (\($0))" } ?? ""
            return .failure(
                .conflict(
                    "agreement \(id) was canceled at \(Timestamp.text(canceledAt))\(why); it takes no charge",
                    code: "agreement_canceled"
                )
            )
        }
        if let (order, payments) = firstOrder,
            let ended = Self.ended(firstPaymentId: agreement.firstPaymentId, order: order, payments: payments)
        {
            return .failure(
                .conflict("agreement \(id) ended: \(ended); it takes no charge", code: "agreement_canceled")
            )
        }
        guard let first = firstOrder?.payments.first(where: { $0.id == agreement.firstPaymentId }),
            first.lifecycle.state == .succeeded
        else {
            return .failure(
                .conflict("agreement \(id): its first payment has not succeeded", code: "agreement_not_active")
            )
        }
        if let refusal = tokenRefusal { return .failure(refusal) }
        let period: Int
        let due: Date
        switch nextCharge(lastCharge: lastCharge) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let next): (period, due) = next
        }
        if agreement.plan.isRecurring, now < due {
            return .failure(
                .conflict(
                    "agreement \(id): charge \(period) is due at \(Timestamp.text(due)), not before",
                    code: "charge_not_due"
                )
            )
        }
        return .success(period)
    }

    /// The next charge after `lastCharge`: the period it pays (1 = the first after the start) and
    /// when it is due; refused while the last charge is in flight or not yet stored.
    public func nextCharge(lastCharge: PaymentRecord?) -> Result<(period: Int, due: Date), PaymentRefusal> {
        paidPeriods(lastCharge: lastCharge).map { paid in
            (paid + 1, agreement.plan.date(after: paid + 1, from: agreement.startedAt))
        }
    }

    /// The periods paid so far, from the last charge (a failed one does not count); refused while
    /// it is in flight or not yet stored.
    func paidPeriods(lastCharge: PaymentRecord?) -> Result<Int, PaymentRefusal> {
        guard let period = agreement.lastChargePeriod, agreement.lastChargePaymentId != nil else { return .success(0) }
        switch lastCharge?.lifecycle.state {
        case .succeeded?: return .success(period)
        case .failed?: return .success(period - 1)
        case let state?:
            return .failure(
                .conflict(
                    "agreement \(agreement.id): the charge of order \(lastCharge?.orderId ?? "") is \(state.rawValue); wait for its outcome",
                    code: "charge_in_progress"
                )
            )
        case nil:
            return .failure(
                .conflict(
                    "agreement \(agreement.id): its last charge is not stored yet; try again",
                    code: "charge_in_progress"
                )
            )
        }
    }

    /// Claims `period` for the charge `paymentId` of the order `orderId`: stored with the
    /// agreement's version, so that of two charges at once one is sent.
    public mutating func claim(period: Int, paymentId: String, orderId: String) -> AgreementRecord {
        agreement.lastChargePaymentId = paymentId
        agreement.lastChargePeriod = period
        agreement.chargeOrderIds.append(orderId)
        return agreement
    }

    /// Ends the agreement at `now` `because` (a cancel request: `nil`); `nil` when it had ended.
    public mutating func end(because reason: String?, at now: Date) -> AgreementRecord? {
        guard agreement.canceledAt == nil else { return nil }
        agreement.canceledAt = now
        agreement.canceledBecause = reason
        return agreement
    }
}
