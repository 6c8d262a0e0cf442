import PaysheetPayments
import Crypto
import Foundation
import Metrics
import PaysheetContact
import PaysheetModel
import PaysheetToken
import PaysheetTokenFormat
import Tracing

/// The answer to an authorization: the result for `completePayment`, and the order.
public struct AuthorizationOutcome: Sendable {
    /// What the page passes to `completePayment`.
    public var result: ApplePayPaymentAuthorizationResult
    /// The order after it.
    public var order: OrderRecord
    /// The charge, when one was made.
    public var payment: PaymentRecord?
    /// The order's payments as the authorization left them (for its answer), when it knows them.
    public var payments: [PaymentRecord]?
    /// Why the token was refused, for its sender, when it was (the sheet shows ``result``'s
    /// shopper-facing message).
    public var refusal: TokenRefusal? = nil
}

extension PaymentService {
    /// What the sheet shows for an acquirer's decline code (short noun phrases, sentence case).
    static func sheetMessage(forDecline code: String?) -> String {
        switch code {
        case "63": "Card is frozen or closed"
        case "64": "Insufficient funds"
        case "65": "Card details were not accepted"
        case "67": "Too many PIN attempts"
        case "73": "Card has expired"
        case "60", "78": "Card was declined by the issuer"
        case "61": "Card number is not valid"
        default: "Payment was declined"
        }
    }

    func failure(
        _ message: String,
        _ order: OrderRecord,
        _ payment: PaymentRecord? = nil,
        errors: [ApplePayError]? = nil
    ) -> AuthorizationOutcome {
        AuthorizationOutcome(
            result: ApplePayPaymentAuthorizationResult(
                status: .failure,
                errors: errors ?? [ApplePayError(.unknown, message: message)]
            ),
            order: order,
            payment: payment
        )
    }

    /// Authorizes `payment` for the order `orderId`: validates the full contacts, verifies and
    /// decrypts the token, checks it against the order, rejects a replayed `transactionId`,
    /// charges the order's amount and waits (within the sheet's 30 s) for a certain outcome.
    /// `preloaded` is the order and its payments as just read (checking the caller): the first look uses them.
    public func authorize(
        orderId: String,
        payment: ApplePayPayment,
        preloaded: (OrderRecord, [PaymentRecord])? = nil
    ) async throws -> AuthorizationOutcome {
        try await withSpan("payment.authorize") { span in
            span.attributes["paysheet.order.id"] = orderId
            let outcome = try await authorizeTraced(orderId: orderId, payment: payment, preloaded: preloaded)
            Self.recordOutcome(outcome, on: span)
            return outcome
        }
    }

    /// The payment's outcome on its span: an event `payment.outcome` with the order's status, the
    /// payment's state and result code, and the sheet's status (no card data).
    static func recordOutcome(_ outcome: AuthorizationOutcome, on span: any Span) {
        guard span.isRecording else { return }  // no tracer: nothing to build
        var attributes: SpanAttributes = [:]
        attributes["paysheet.order.id"] = outcome.order.id
        attributes["paysheet.order.status"] = outcome.order.status.rawValue
        attributes["paysheet.sheet.status"] = outcome.result.status
        if let payment = outcome.payment {
            attributes["paysheet.payment.id"] = payment.id
            attributes["paysheet.payment.state"] = payment.lifecycle.state.rawValue
            attributes["paysheet.amount.minor_units"] = payment.amount.minorUnits
            attributes["paysheet.amount.currency"] = payment.amount.currency.code
            if let code = payment.lifecycle.resultCode { attributes["paysheet.acquirer.response_code"] = code }
            span.attributes["paysheet.payment.id"] = payment.id
            span.attributes["paysheet.payment.state"] = payment.lifecycle.state.rawValue
        }
        if let refusal = outcome.refusal { attributes["paysheet.token.refusal"] = refusal.code }
        span.attributes["paysheet.order.status"] = outcome.order.status.rawValue
        span.addEvent(SpanEvent(name: "payment.outcome", attributes: attributes))
    }

    func authorizeTraced(
        orderId: String,
        payment: ApplePayPayment,
        preloaded: (OrderRecord, [PaymentRecord])?
    ) async throws -> AuthorizationOutcome {
        let started = now()
        let deadline = started.addingTimeInterval(authorizeWait)
        Counter(label: "paysheet_authorizations_total").increment()
        var snapshot = preloaded
        for _ in 0..<4 {
            var loaded = snapshot
            snapshot = nil
            if loaded == nil { loaded = try await store.orderAndPayments(orderId) }
            guard let (order, payments) = loaded else { throw ServiceError.notFound("order \(orderId)") }
            var machine = OrderLifecycle(order: order, payments: payments, configuration: lifecycle)
            // The order's own answer first (a charge in flight, canceled, paid, nothing to pay).
            if let gate = machine.authorizationGate() {
                if case .refused = gate.reply, machine.isCharged,
                    let retried = try await retriedAuthorization(
                        payment,
                        order: order,
                        payments: payments,
                        verifiedAt: started,
                        deadline: deadline
                    )
                {
                    return retried
                }
                if let answer = try await answer(gate, order: order, payments: payments, deadline: deadline) {
                    return answer
                }
            }
            let errors = shippingContactErrors(order, payment)
            if !errors.isEmpty { return failure("", order, errors: errors) }
            let token: AcceptedToken
            switch await acceptToken(payment, for: order, at: started) {
            case .accepted(let accepted): token = accepted
            case .refused(let refusal): return refusal
            }
            let (decrypted, plan) = (token.decrypted, token.plan)

            // The charge: persisted before anything is sent, for the order's amount (never the token's).
            let data = decrypted.paymentData
            let method = payment.token.paymentMethod
            let step = machine.handle(.authorize(charge(of: payment, token: token, at: started)), now: started)
            guard let write = step.write, case .send(.charge(let record)) = step.effects.first else {
                if case .failure(let message) = step.reply { return failure(message, order) }
                throw ServiceError.conflict("order \(orderId) cannot be charged now")
            }
            // The token's first use, the charge and the order's new status commit together.
            let stored: OrderRecord
            switch try await commit(write) {
            case .stored(let inserted): stored = inserted
            case .orderChanged: continue  // an update endpoint or another authorize was first: look again
            case .tokenReplayed:
                // The same token again for this order (its answer lost): the charge it made answers.
                let transactionId = decrypted.verified.token.header.transactionId
                if let retried = try await retriedAuthorization(
                    transactionId: transactionId,
                    order: order,
                    payments: payments,
                    deadline: deadline
                ) {
                    return retried
                }
                Counter(label: "paysheet_tokens_rejected_total", dimensions: [("code", "replayed")]).increment()
                return failure("Payment was already used", order)
            }
            if let plan {
                try await startAgreement(order, plan: plan, payment: record, data: data, network: method.network)
            }
            return try await send(
                record,
                paying: ChargeRequest(
                    identity: record.identity,
                    amount: record.amount,
                    instrument: acquirerPaymentData(data),
                    reference: orderId
                ),
                stored: stored,
                payments: payments,
                deadline: deadline
            )
        }
        throw ServiceError.conflict("order \(orderId) kept changing; try again")
    }

    /// The answer for an authorization the order does not take now (`nil`: it does).
    func answer(
        _ gate: OrderLifecycle.Step,
        order: OrderRecord,
        payments: [PaymentRecord],
        deadline: Date
    ) async throws -> AuthorizationOutcome? {
        switch gate.reply {
        case .awaitOutcome(let open):
            // A charge is already with the acquirer: never a second one; answer with its outcome
            // (counted as paid once, by the request that made it).
            return try await outcome(of: open, deadline: deadline, others: payments, counting: false)
        case .refused(let refusal): throw ServiceError(refusal)
        case .failure(let message):
            logger.error("order \(order.id): its total is \(order.amount); nothing charged")
            return failure(message, order)
        case .none, .order: return nil
        }
    }

    /// The answer to a payment whose token was presented for this order before — an
    /// authorization retried after its answer was lost (a dropped connection, a server error after
    /// the charge was stored): the outcome of the charge that token made, when its first use made
    /// a charge of this order and the token verifies (its signature, chain and age, as for a first
    /// use; checked after the cheap look-up); `nil` otherwise, and the caller's refusal stands.
    /// Nothing is sent to the acquirer and nothing is written: the token is never used twice.
    func retriedAuthorization(
        _ payment: ApplePayPayment,
        order: OrderRecord,
        payments: [PaymentRecord],
        verifiedAt started: Date,
        deadline: Date
    ) async throws -> AuthorizationOutcome? {
        guard let token = try? PaymentTokenData(jsonValue: payment.token.paymentData) else { return nil }
        return try await retriedAuthorization(
            transactionId: token.header.transactionId,
            order: order,
            payments: payments,
            deadline: deadline,
            verifying: (token, started)
        )
    }

    /// The outcome of the charge that the token `transactionId` made for `order` (whose payments
    /// were read as `payments`), when it made one and `verifying` (a token not yet verified, and
    /// when) verifies; `nil` otherwise. A success is answered only while the order stands paid
    /// (not canceled, voided or refunded since: then the order's own refusal says so).
    func retriedAuthorization(
        transactionId: String,
        order: OrderRecord,
        payments: [PaymentRecord],
        deadline: Date,
        verifying: (token: PaymentTokenData, at: Date)? = nil
    ) async throws -> AuthorizationOutcome? {
        guard let use = try await store.tokenUse(transactionId), use.orderId == order.id, let paymentId = use.paymentId
        else { return nil }
        var (current, known) = (order, payments)
        if !known.contains(where: { $0.id == paymentId }) {
            // Made by a request that committed after this one read the order.
            guard let read = try await store.orderAndPayments(order.id) else { return nil }
            (current, known) = read
        }
        guard let charge = known.first(where: { $0.id == paymentId && $0.kind == .charge }) else { return nil }
        if charge.lifecycle.state == .succeeded, current.status != .paid || current.canceledAt != nil { return nil }
        if let verifying {
            guard (try? await decryptor.verifier.verify(verifying.token, at: verifying.at)) != nil else { return nil }
        }
        Counter(label: "paysheet_authorizations_retried_total").increment()
        guard charge.lifecycle.state.isTerminal else {
            return try await outcome(of: charge, deadline: deadline, others: known, counting: false)
        }
        var outcome = settledOutcome(charge, current, counting: false)
        outcome.payments = known
        return outcome
    }

    /// The kind of the acquirer's answer, for a span: `accepted`, `declined <code>`, `unknown` or `duplicate`.
    static func answerKind(_ answer: SubmitAnswer) -> String {
        switch answer {
        case .accepted: "accepted"
        case .declined(let code, _): "declined \(code)"
        case .unknown: "unknown"
        case .duplicate: "duplicate"
        }
    }

    /// The core's charge for `payment`, whose token was accepted: a new transaction, the card as
    /// far as it may be kept, the token's `transactionId` (its first use is stored with it).
    func charge(of payment: ApplePayPayment, token: AcceptedToken, at started: Date) -> OrderLifecycle.NewCharge {
        let method = payment.token.paymentMethod
        return OrderLifecycle.NewCharge(
            transaction: newTransaction(at: started),
            card: CardSummary(
                network: method.network,
                type: method.type?.rawValue,
                displayName: method.displayName,
                suffix: token.decrypted.paymentData.accountNumberSuffix
            ),
            tokenTransactionId: token.decrypted.verified.token.header.transactionId
        )
    }

    /// Sends the stored charge `record` (the effect `send(.charge)` of the core's step, with the
    /// card data only this request holds) and waits, within the sheet's time, for its outcome.
    /// The acquirer's acceptance is not an outcome: it is held (``AwaitedCharges``) and stored
    /// with the change that follows, or here when none comes in the sheet's time; any other
    /// answer is stored at once.
    func send(
        _ record: PaymentRecord,
        paying request: ChargeRequest,
        stored: OrderRecord,
        payments: [PaymentRecord],
        deadline: Date
    ) async throws -> AuthorizationOutcome {
        let id = record.id
        // Watched before the acquirer is asked: whatever changes the payment from here on (its
        // notification, here or on another server) is counted, so the wait need not read back
        // what this request commits next.
        let watched = await waiters.watch(id)
        let answer = await withSpan("acquirer.charge") { span in
            span.attributes["paysheet.payment.id"] = id
            span.attributes["paysheet.order.id"] = record.orderId
            span.attributes["paysheet.acquirer"] = acquirer.name
            span.attributes["paysheet.amount.minor_units"] = request.amount.minorUnits
            span.attributes["paysheet.amount.currency"] = request.amount.currency.code
            let answer = await acquirer.charge(request)
            span.attributes["paysheet.acquirer.answer"] = Self.answerKind(answer)
            return answer
        }
        var after = record
        var accepted: (answer: SubmitAnswer, at: Date)?
        if case .accepted = answer {
            let at = now()
            accepted = (answer, at)
            after = OrderLifecycle.advance(record, .answered(answer), now: at, configuration: lifecycle).next ?? record
        } else {
            do {
                after = try await advance(id, .answered(answer), loaded: record) ?? record
            } catch {
                await waiters.unwatch(id)
                throw error
            }
        }
        // The notification is applied from what this request committed (see AwaitedCharges).
        if !after.lifecycle.state.isTerminal {
            awaited.remember(accepted == nil ? after : record, order: stored, payments: payments, accepted: accepted)
        }
        defer { awaited.forget(after) }
        let outcome = try await outcome(of: after, deadline: deadline, others: payments, unchangedSince: watched)
        if let accepted, awaited.acceptance(id) != nil {
            // No change of the payment here in the sheet's time: the acceptance is stored now.
            awaited.acceptanceStored(id)
            do { try await advance(id, .answered(accepted.answer), at: accepted.at) } catch {
                logger.warning("payment \(id): the acquirer's acceptance was not stored (\(error)); it is queried")
            }
        }
        return outcome
    }

    /// A token that passed every check against its order: verified and decrypted, in the
    /// order's currency, for the total the shopper saw, and (for a plan) a merchant token.
    struct AcceptedToken {
        let decrypted: DecryptedPaymentToken
        let currency: Currency
        let plan: SubscriptionPlan?
    }

    /// The outcome of checking a token against its order: accepted, or refused with the
    /// answer the sheet shows.
    enum TokenCheck {
        case accepted(AcceptedToken)
        case refused(AuthorizationOutcome)
    }

    /// The shipping contact's errors, as the page asked for it and now unredacted; none when the
    /// order ships nothing.
    func shippingContactErrors(_ order: OrderRecord, _ payment: ApplePayPayment) -> [ApplePayError] {
        guard !order.shippingMethods.isEmpty else { return [] }
        let validator = ContactValidator(policy: settings.shipping)
        let contact = payment.shippingContact ?? ApplePayPaymentContact()
        return validator.validate(
            contact,
            requiredFields: Set(OrderService.shippingFields),
            phase: .full,
            role: .shipping
        )
        .errors
    }

    /// Verifies and decrypts `payment`'s token and checks it against `order`: the application
    /// data is this order's, the currency and the amount are the order's (the shopper pays what
    /// the shopper saw), and a plan's first payment carries a merchant token.
    func acceptToken(_ payment: ApplePayPayment, for order: OrderRecord, at started: Date) async -> TokenCheck {
        let orderId = order.id
        let decrypted: DecryptedPaymentToken
        do {
            // The body was parsed once already: the token is read from that value, not re-parsed.
            let token = try PaymentTokenData(jsonValue: payment.token.paymentData)
            let verified = try await withSpan("token.verify") { span in
                span.attributes["paysheet.order.id"] = orderId
                do { return try await decryptor.verifier.verify(token, at: started) } catch {
                    span.attributes["paysheet.token.error"] = (error as? PaymentTokenError)?.code.rawValue
                    throw error
                }
            }
            decrypted = try withSpan("token.decrypt") { span in
                span.attributes["paysheet.order.id"] = orderId
                do { return try decryptor.decrypt(verified: verified, at: started) } catch {
                    span.attributes["paysheet.token.error"] = (error as? PaymentTokenError)?.code.rawValue
                    throw error
                }
            }
        } catch let error as PaymentTokenError {
            return refused(order, tokenTrust.refusal(for: error), counted: error.code.rawValue)
        } catch {
            return refused(
                order,
                tokenTrust.refusal(for: PaymentTokenError(.malformed, "\(error)")),
                counted: "malformed"
            )
        }
        let expectedHash = Array(SHA256.hash(data: Data(base64Encoded: order.applicationData) ?? Data()))
        guard decrypted.verified.token.header.applicationData == expectedHash else {
            let refusal = TokenRefusal(
                code: "token_other_order",
                message:
                    "the token was made for another payment request than order \(orderId)'s (its applicationData hash is not this order's): pay with the order's own paymentRequest"
            )
            return refused(order, refusal, shopperMessage: "Payment is not for this order")
        }
        guard let currency = Currency(order.currencyCode), decrypted.paymentData.currencyCode == currency.numeric
        else {
            logger.warning(
                "order \(orderId): token currency \(decrypted.paymentData.currencyCode) is not the order's \(order.currencyCode)"
            )
            return .refused(failure("Payment currency is not the order's", order))
        }

        // The shopper pays what the shopper saw: the token's amount is the total the sheet
        // showed when the shopper approved. When the order's total has changed since (a coupon
        // removed, a method changed by another caller), nothing is sent; the sheet says so.
        // (An order with pending lines would allow a difference; the server's orders have none.)
        let pendingLines = order.lineItems.contains { $0.isPending }
        guard decrypted.paymentData.transactionAmount == order.amount.minorUnits || pendingLines else {
            logger.warning(
                "order \(orderId): the token's amount \(decrypted.paymentData.transactionAmount) is not the order's total \(order.amount.minorUnits); nothing charged"
            )
            Counter(label: "paysheet_tokens_rejected_total", dimensions: [("code", "amount_changed")]).increment()
            return .refused(
                failure(
                    "The total changed to \(currency.format(order.amount.minorUnits)) \(order.currencyCode) after you approved \(currency.format(decrypted.paymentData.transactionAmount)); review it and pay again",
                    order
                )
            )
        }

        // A plan's first payment starts an agreement: it needs a merchant token to charge later.
        let plan = order.planId.flatMap { id in settings.plans.first { $0.id == id } }
        if order.planId != nil {
            guard plan != nil else { return .refused(failure("This plan is no longer offered", order)) }
            guard decrypted.paymentData.isMerchantToken else {
                logger.warning("order \(orderId): a plan's payment without a merchant token; nothing charged")
                return .refused(failure("This card cannot be used for a subscription; choose another card", order))
            }
        }
        return .accepted(AcceptedToken(decrypted: decrypted, currency: currency, plan: plan))
    }

    /// A token refused before anything is charged: the sheet gets `shopperMessage`, the token's
    /// sender and the log `refusal`; `counted`: the token error's code, counted in
    /// `paysheet_tokens_rejected_total`.
    func refused(
        _ order: OrderRecord,
        _ refusal: TokenRefusal,
        shopperMessage: String = "Payment could not be verified",
        counted: String? = nil
    ) -> TokenCheck {
        logger.warning("order \(order.id): token rejected: \(refusal.code): \(refusal.message)")
        if let counted {
            Counter(label: "paysheet_tokens_rejected_total", dimensions: [("code", counted)]).increment()
        }
        var outcome = failure(shopperMessage, order)
        outcome.refusal = refusal
        return .refused(outcome)
    }

    /// The card the acquirer is sent for a decrypted token: the account number and expiry with the
    /// 3-D Secure cryptogram and ECI, or with the EMV data and PIN.
    func acquirerPaymentData(_ data: DecryptedPaymentData) -> ChargeRequest.Instrument {
        let (number, expiry) = (data.applicationPrimaryAccountNumber, data.applicationExpirationDate)
        return switch data.details {
        case .threeDSecure(let cryptogram, let eci):
            .card(
                .init(
                    accountNumber: number,
                    expiration: expiry,
                    authentication: .threeDSecure(cryptogram: cryptogram, eci: eci)
                )
            )
        case .emv(let emv, let pin):
            .card(.init(accountNumber: number, expiration: expiry, authentication: .emv(data: emv, pinBlock: pin)))
        }
    }

    /// `others`: the order's payments as last read; the answer's view shows them with this charge as
    /// it ended. `unchangedSince`: the payment's generation when this request started watching it,
    /// `charge` being what it committed since (see ``waitForOutcome(_:until:known:)``). `counting`:
    /// whether a success counts as a payment made (only for the request that made the charge).
    func outcome(
        of charge: PaymentRecord,
        deadline: Date,
        others: [PaymentRecord]? = nil,
        unchangedSince: Int? = nil,
        counting: Bool = true
    ) async throws -> AuthorizationOutcome {
        let known = unchangedSince.map { (payment: charge, generation: $0) }
        let waited = try await waitForOutcome(charge.id, until: deadline, known: known)
        let final = waited?.payment ?? charge
        // The order as the change that settled the payment committed it, else as stored now.
        var order = waited?.order
        if order == nil { order = try await store.order(final.orderId) }
        guard let order else { throw ServiceError.notFound("order \(final.orderId)") }
        var outcome = settledOutcome(final, order, counting: counting)
        // Known only when the settling change was committed here (the order came with it).
        if waited?.order != nil, let others { outcome.payments = others.filter { $0.id != final.id } + [final] }
        return outcome
    }

    /// The answer for the charge `final`, ended; `counting` it in `paysheet_payments_paid_total`
    /// when it succeeded (an answer given again is not counted again).
    func settledOutcome(_ final: PaymentRecord, _ order: OrderRecord, counting: Bool = true) -> AuthorizationOutcome {
        switch final.lifecycle.state {
        case .succeeded:
            if counting { Counter(label: "paysheet_payments_paid_total").increment() }
            return AuthorizationOutcome(
                result: ApplePayPaymentAuthorizationResult(status: .success),
                order: order,
                payment: final
            )
        case .failed:
            return failure(Self.sheetMessage(forDecline: final.lifecycle.resultCode), order, final)
        case .held:
            return failure("Payment needs review; you have not been charged twice", order, final)
        case .submitting, .accepted, .unknown:
            // Not certain within the sheet's time: the sheet says so; the order stays pending and
            // is settled by notification or query (a retry never charges again).
            return failure("Payment is still processing; check your order status", order, final)
        }
    }
}
