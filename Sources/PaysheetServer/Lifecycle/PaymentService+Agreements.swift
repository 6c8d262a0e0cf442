import PaysheetPayments
import Foundation
import Metrics
import PaysheetModel
import PaysheetToken

extension PaymentService {
    /// Starts (or, after a failed first payment, restarts) the agreement of the plan order `order`
    /// with the merchant token of `data`, for the first payment `payment`. Called after the
    /// payment is stored and before it is sent, so that a payment that succeeds always has its
    /// agreement.
    func startAgreement(
        _ order: OrderRecord,
        plan: SubscriptionPlan,
        payment: PaymentRecord,
        data: DecryptedPaymentData,
        network: String?
    ) async throws {
        guard let vault else {
            throw ServiceError(
                .unavailable,
                code: "credentials_unavailable",
                message: "this server cannot store merchant tokens"
            )
        }
        let id = AgreementRecord.id(forOrder: order.id)
        let sealed = try vault.seal(
            MerchantTokenCredential(
                accountNumber: data.applicationPrimaryAccountNumber,
                expiration: data.applicationExpirationDate,
                tokenIdentifier: data.merchantTokenIdentifier ?? ""
            ),
            for: id
        )
        var agreement = AgreementRecord(
            id: id,
            orderId: order.id,
            plan: plan,
            firstPaymentId: payment.id,
            startedAt: payment.createdAt,
            credential: sealed,
            tokenSuffix: data.accountNumberSuffix,
            cardSuffix: data.merchantTokenMetadata?.fpanSuffix,
            network: network
        )
        // Found again by its token's keyed reference when a lifecycle notification names the token.
        let reference = vault.tokenReference(data.merchantTokenIdentifier ?? "")
        if try await store.insert(agreement, tokenReference: reference) { return }
        // A first payment that failed before: this payment (the only open one of the order) replaces it.
        for _ in 0..<4 {
            guard let existing = try await store.agreement(id) else { break }
            agreement.version = existing.version
            if try await store.update(agreement, tokenReference: reference) != nil { return }
        }
        throw ServiceError.conflict("the agreement of order \(order.id) kept changing; try again")
    }

    /// The start (UTC) of `date`'s day.
    static func day(of date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
    }

    /// The agreement's first payment, and why it ended the agreement, if it did: the agreement
    /// lives only as long as the payment that made it (docs/agreements.md). A void of it, refunds
    /// that reach its whole amount (those in flight count, as for any refund) or a cancel of its
    /// order end the agreement; a partial refund does not.
    func firstPayment(of agreement: AgreementRecord) async throws -> (payment: PaymentRecord?, ended: String?) {
        guard let (order, payments) = try await store.orderAndPayments(agreement.orderId) else { return (nil, nil) }
        let first = payments.first { $0.id == agreement.firstPaymentId }
        return (
            first, AgreementLifecycle.ended(firstPaymentId: agreement.firstPaymentId, order: order, payments: payments)
        )
    }

    /// Ends the agreement whose first payment is `order`'s (a plan's order; not a merchant-initiated
    /// charge's) `because` that payment is being given back: no charge after it. Called when the
    /// order's cancel or the reversal is stored, before anything is sent; a failure here is logged
    /// and the charge route still refuses (``firstPayment(of:)`` is checked on every charge).
    func endAgreement(startedBy order: OrderRecord, because reason: String) async {
        guard order.planId != nil, order.agreementId == nil else { return }
        let id = AgreementRecord.id(forOrder: order.id)
        do {
            for _ in 0..<4 {
                guard let stored = try await store.agreement(id), stored.orderId == order.id else { return }
                var machine = AgreementLifecycle(stored)
                guard let ended = machine.end(because: reason, at: now()) else { return }  // ended already
                if try await store.update(ended) != nil {
                    logger.info("agreement \(id) ended: \(reason)")
                    Counter(label: "paysheet_agreements_ended_total").increment()
                    return
                }
            }
            logger.error("agreement \(id) kept changing; not marked ended (\(reason)); its charges are refused")
        } catch {
            logger.error("agreement \(id) not marked ended (\(reason)): \(error); its charges are refused")
        }
    }

    /// What the agreement's next charge is.
    enum NextCharge {
        /// The period it pays (1 = the first after the start) and when it is due.
        case due(period: Int, at: Date)
        /// The last charge (its payment) is still with the acquirer: no next one until it ends.
        case afterCharge(PaymentRecord)
    }

    /// The agreement's next charge, from its last one (the core's `AgreementLifecycle.nextCharge`).
    func nextCharge(_ agreement: AgreementRecord) async throws -> NextCharge {
        var lastCharge: PaymentRecord?
        if let last = agreement.lastChargePaymentId { lastCharge = try await store.payment(last) }
        switch AgreementLifecycle(agreement).nextCharge(lastCharge: lastCharge) {
        case .success(let next): return .due(period: next.period, at: next.due)
        case .failure(let refusal):
            guard let lastCharge else { throw ServiceError(refusal) }  // not stored yet
            return .afterCharge(lastCharge)
        }
    }

    /// A merchant-initiated charge of the agreement `id`: the plan's amount, through the acquirer
    /// with the stored merchant token, as an order of its own with the lifecycle of any payment.
    /// A subscription is charged once per period, when the period is due; an automatic reload
    /// whenever the merchant asks, one charge at a time. Waits (as an authorization does) for a
    /// certain outcome.
    func chargeAgreement(_ id: String) async throws -> (agreement: AgreementRecord, outcome: AuthorizationOutcome) {
        let started = now()
        let deadline = started.addingTimeInterval(authorizeWait)
        for _ in 0..<4 {
            guard let agreement = try await store.agreement(id) else { throw ServiceError.notFound("agreement \(id)") }
            let period = try await chargeablePeriod(agreement, at: started)
            guard let vault else {
                throw ServiceError(
                    .unavailable,
                    code: "credentials_unavailable",
                    message: "this server cannot open merchant tokens"
                )
            }
            let credential = try vault.open(agreement.credential, for: agreement.id)
            let (currency, amount) = try planAmount(agreement)
            let (order, record) = try await storeCharge(of: agreement, period: period, currency, amount, at: started)
            let paymentId = record.id
            // The period is claimed by the agreement's version: of two charges at once, one is sent.
            var agreementMachine = AgreementLifecycle(agreement)
            let claim = agreementMachine.claim(period: period, paymentId: paymentId, orderId: order.id)
            guard let claimed = try await store.update(claim)
            else {
                try await advance(
                    paymentId,
                    .answered(.declined(code: "NS", message: "not sent: another charge of the agreement was first")),
                    loaded: record
                )
                continue
            }
            let answer = await acquirer.charge(
                ChargeRequest(
                    identity: record.identity,
                    amount: record.amount,
                    instrument: .merchantToken(token: credential.accountNumber, expiration: credential.expiration),
                    reference: order.id
                )
            )
            let after = try await advance(paymentId, .answered(answer), loaded: record) ?? record
            let outcome = try await outcome(of: after, deadline: deadline)
            let result = outcome.payment?.lifecycle.state.rawValue ?? "unknown"
            Counter(label: "paysheet_agreement_charges_total", dimensions: [("result", result)]).increment()
            return (claimed, outcome)
        }
        throw ServiceError(
            .conflict,
            code: "charge_in_progress",
            message: "agreement \(id): another charge was made at the same time"
        )
    }

    /// Stores the charge of `period` of `agreement`: its own order, then its payment through the
    /// core like a shopper's (stored before anything is sent).
    func storeCharge(
        of agreement: AgreementRecord,
        period: Int,
        _ currency: Currency,
        _ amount: Int,
        at started: Date
    ) async throws -> (order: OrderRecord, payment: PaymentRecord) {
        let order = chargeOrder(for: agreement, currency: currency, amount: amount, at: started)
        try await store.insert(order)
        var machine = OrderLifecycle(order: order, payments: [], configuration: lifecycle)
        let card = CardSummary(network: agreement.network, type: nil, displayName: nil, suffix: agreement.tokenSuffix)
        let charge = OrderLifecycle.NewCharge(
            transaction: newTransaction(at: started),
            card: card,
            tokenTransactionId: nil,
            cause: "merchant-initiated charge \(period) of agreement \(agreement.id)"
        )
        let step = machine.handle(.authorize(charge), now: started)
        guard let write = step.write, case .send(.charge(let record)) = step.effects.first,
            case .stored = try await commit(write)
        else {
            throw ServiceError.conflict("agreement \(agreement.id): the charge's order changed; try again")
        }
        return (order, record)
    }

    /// The period `agreement` may be charged for at `now`: refused when the
    /// agreement is canceled, its first payment has not succeeded, a charge is still in progress,
    /// or (a subscription) the next period is not yet due.
    func chargeablePeriod(_ agreement: AgreementRecord, at now: Date) async throws -> Int {
        let firstOrder = try await store.orderAndPayments(agreement.orderId)
        var lastCharge: PaymentRecord?
        if let last = agreement.lastChargePaymentId { lastCharge = try await store.payment(last) }
        switch AgreementLifecycle(agreement).chargeablePeriod(firstOrder: firstOrder, lastCharge: lastCharge, now: now)
        {
        case .success(let period): return period
        case .failure(let refusal):
            if refusal.code == "agreement_canceled" {
                Counter(label: "paysheet_agreement_charges_total", dimensions: [("result", "refused")]).increment()
            }
            throw ServiceError(refusal)
        }
    }

    /// The plan's amount in minor units of its currency (positive).
    func planAmount(_ agreement: AgreementRecord) throws -> (currency: Currency, amount: Int) {
        guard let currency = Currency(agreement.plan.currencyCode),
            let amount = try? currency.minor(agreement.plan.amount),
            amount > 0
        else {
            throw ServiceError.conflict("agreement \(agreement.id): its plan's amount is not valid")
        }
        return (currency, amount)
    }

    /// The order of one merchant-initiated charge of `agreement`: one line, the plan's.
    func chargeOrder(for agreement: AgreementRecord, currency: Currency, amount: Int, at now: Date) -> OrderRecord {
        var order = OrderRecord(
            id: IDs.make("ord_", now: now, randomDigits: 24),
            status: .created,
            currency: currency,
            countryCode: settings.countryCode.uppercased(),
            lineItems: [ApplePayLineItem(label: agreement.plan.label, amount: currency.format(amount))],
            shippingMethods: [],
            shippingMethod: nil,
            amount: amount,
            applicationData: "",
            createdAt: now
        )
        order.planId = agreement.plan.id
        order.agreementId = agreement.id
        return order
    }

    /// Cancels the agreement `id` (no further charge is made); a canceled one stays canceled.
    func cancelAgreement(_ id: String) async throws -> AgreementRecord {
        for _ in 0..<4 {
            guard let stored = try await store.agreement(id) else { throw ServiceError.notFound("agreement \(id)") }
            var machine = AgreementLifecycle(stored)
            guard let canceled = machine.end(because: nil, at: now()) else { return stored }  // stays canceled
            if let saved = try await store.update(canceled) {
                logger.info("agreement \(id) canceled")
                return saved
            }
        }
        throw ServiceError.conflict("agreement \(id) kept changing; try again")
    }
}
