import PaysheetPayments
import Foundation

/// An agreement as its owners see it.
struct AgreementView: Encodable {
    /// The card behind the merchant token: network and last digits only.
    struct Card: Encodable {
        var network: String?
        var tokenSuffix: String
        var cardSuffix: String?
        /// The funding card's expiration date, when a life-cycle event told it.
        var cardExpiration: String?
        /// The merchant token as its life-cycle notifications last said: `active`, `suspended`
        /// (no charge until resumed) or `deleted` (the agreement ended with it).
        var tokenStatus: String
    }
    /// One merchant-initiated charge.
    struct Charge: Encodable {
        /// The charge's order (the merchant's view only: its id's time prefix is the charge's time).
        var orderId: String?
        var status: String
    }
    var id: String
    var orderId: String
    var plan: String
    var kind: String
    var description: String
    var amount: String
    var currencyCode: String
    var interval: String?
    /// `pending` (its first payment is not certain yet), `active`, `incomplete` (its first payment
    /// failed: nothing to charge) or `canceled` (canceled, or ended with its first payment).
    var status: String
    var card: Card
    var startedAt: Date
    /// When the next charge may be made (recurring, active).
    var nextChargeDue: Date?
    var charges: [Charge]
    var canceledAt: Date?
    /// Why it ended, when its first payment ended it: "its first payment was voided", …
    var canceledBecause: String?
}

/// `POST /v1/agreements/{id}/charges` answer: the agreement after the charge, and the charge's order.
struct AgreementChargeView: Encodable {
    var agreement: AgreementView
    var charge: OrderView
}

extension PaymentService {
    /// The agreement `id` as its owners see it.
    /// The agreement as `audience` sees it. The shopper's view (the first order's client secret)
    /// gives its dates to the day and its charges without their order ids: to the second, they
    /// are the acquirer's transaction times (audit finding 13).
    func agreementView(
        _ agreement: AgreementRecord,
        for audience: OrderView.Audience = .merchant
    ) async throws
        -> AgreementView
    {
        let (first, ended) = try await firstPayment(of: agreement)
        let status: String
        if agreement.canceledAt != nil || ended != nil {
            status = "canceled"
        } else {
            switch first?.lifecycle.state {
            case .succeeded?: status = "active"
            case .failed?, nil: status = "incomplete"
            default: status = "pending"
            }
        }
        var charges: [AgreementView.Charge] = []
        for orderId in agreement.chargeOrderIds {
            if let order = try await store.order(orderId) {
                charges.append(
                    AgreementView.Charge(orderId: audience == .merchant ? order.id : nil, status: order.status.rawValue)
                )
            }
        }
        var due: Date?
        if status == "active", agreement.plan.isRecurring, case .due(_, let dueAt) = try await nextCharge(agreement) {
            due = dueAt
        }
        return AgreementView(
            id: agreement.id,
            orderId: agreement.orderId,
            plan: agreement.plan.id,
            kind: agreement.plan.kind.rawValue,
            description: agreement.plan.description,
            amount: agreement.plan.amount,
            currencyCode: agreement.plan.currencyCode,
            interval: agreement.plan.isRecurring
                ? "\(agreement.plan.intervalCount) \(agreement.plan.intervalUnit.rawValue)" : nil,
            status: status,
            card: .init(
                network: agreement.network,
                tokenSuffix: agreement.tokenSuffix,
                cardSuffix: agreement.cardSuffix,
                cardExpiration: agreement.cardExpiration,
                tokenStatus: agreement.merchantTokenStatus.rawValue
            ),
            startedAt: audience == .merchant ? agreement.startedAt : Self.day(of: agreement.startedAt),
            nextChargeDue: audience == .merchant ? due : due.map(Self.day(of:)),
            charges: charges,
            canceledAt: agreement.canceledAt,
            canceledBecause: agreement.canceledBecause ?? ended
        )
    }
}
