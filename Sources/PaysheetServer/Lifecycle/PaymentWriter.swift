import Foundation
import Metrics
import PaysheetModel
import PaysheetPayments

/// The writer: the one place where the core's steps (`OrderLifecycle` (PaysheetPayments)) reach the store. Each
/// order input is applied to the order as read, its write stored checked against the versions
/// read — when another writer was first, nothing is written and the input is applied again to
/// what is stored then — and its effects are carried out in order by the drivers (the acquirer
/// client, the agreements, the unwind). The same read–apply–store loop runs, step by step, in
/// the deterministic simulation (PaysheetSimulation).
extension PaymentService {
    /// What storing a step's write came to.
    enum Committed {
        /// Stored; the order as stored now.
        case stored(OrderRecord)
        /// Another writer changed the order first: nothing was written.
        case orderChanged
        /// The token's `transactionId` was used before: nothing was written.
        case tokenReplayed
    }

    /// Stores `write`, all or nothing.
    func commit(_ write: OrderLifecycle.Write) async throws -> Committed {
        switch write {
        case .insertPayment(let payment, let creation, let order, let token):
            switch try await store.insert(payment, cause: creation.cause, order: order, tokenTransactionId: token) {
            case .inserted(let stored): return .stored(stored)
            case .orderChanged: return .orderChanged
            case .tokenReplayed: return .tokenReplayed
            }
        case .updateOrder(let order):
            guard let stored = try await store.update(order) else { return .orderChanged }
            return .stored(stored)
        }
    }

    /// The machine of the order `orderId` as stored (`preloaded`: as just read).
    func machine(_ orderId: String, preloaded: (OrderRecord, [PaymentRecord])? = nil) async throws -> OrderLifecycle? {
        var loaded = preloaded
        if loaded == nil { loaded = try await store.orderAndPayments(orderId) }
        guard let (order, payments) = loaded else { return nil }
        return OrderLifecycle(order: order, payments: payments, configuration: lifecycle)
    }

    /// A new transaction at `at`: a random id (the core prefixes it by kind) and the acquirer's
    /// identity of it.
    func newTransaction(at: Date) -> OrderLifecycle.NewTransaction {
        let id = IDs.make("", now: at)
        return OrderLifecycle.NewTransaction(id: id, identity: acquirer.newIdentity(paymentId: id, now: at))
    }

    /// Applies `input` (made anew for each try from the order as read) to the order `orderId`
    /// and stores its write: the step, with the order as stored, or `nil` when the order does
    /// not exist. A refusal is thrown as the service's error; nothing is written then.
    func apply(
        _ orderId: String,
        at time: @autoclosure () -> Date,
        _ input: (OrderLifecycle) -> OrderLifecycle.Input
    ) async throws -> (step: OrderLifecycle.Step, order: OrderRecord)? {
        for _ in 0..<4 {
            guard var machine = try await machine(orderId) else { return nil }
            let step = machine.handle(input(machine), now: time())
            if case .refused(let refusal) = step.reply { throw ServiceError(refusal) }
            guard let write = step.write else { return (step, machine.order) }
            switch try await commit(write) {
            case .stored(let order): return (step, order)
            case .orderChanged, .tokenReplayed: continue  // another writer was first: look again
            }
        }
        throw ServiceError.conflict("order \(orderId) kept changing; try again")
    }

    /// Carries out the effects of a stored step other than a charge's sending (the authorization
    /// sends its charge itself, with the card data it alone holds): ends the agreement, unwinds,
    /// sends a refund or void and waits (up to 10 s) for its outcome, which it returns.
    @discardableResult
    func perform(_ effects: [OrderLifecycle.Effect], of order: OrderRecord) async throws -> PaymentRecord? {
        var last: PaymentRecord?
        for effect in effects {
            switch effect {
            case .endAgreement(let reason): await endAgreement(startedBy: order, because: reason)
            case .unwind: try await unwind(order.id)
            case .send(let request): last = try await sendReversal(request)
            }
        }
        return last
    }

    /// Sends a refund or void the store holds (R1) and stores its answer; waits for its outcome.
    func sendReversal(_ request: OrderLifecycle.Request) async throws -> PaymentRecord {
        let record = request.payment
        let amount = record.amount
        let answer: SubmitAnswer
        switch request {
        case .charge:
            // A charge is sent by its authorization, which alone holds the card data; the core
            // asks for one only in answer to `authorize`. Never sent from here.
            throw ServiceError(
                .internalFailure,
                code: "internal_error",
                message: "payment \(record.id): a charge cannot be sent without its card data"
            )
        case .refund(_, let reference):
            answer = await acquirer.refund(record.identity, amount: amount, originalReference: reference)
        case .void(_, let reference):
            answer = await acquirer.void(record.identity, amount: amount, originalReference: reference)
        }
        let after = try await advance(record.id, .answered(answer), loaded: record) ?? record
        let deadline = record.createdAt.addingTimeInterval(min(authorizeWait, 10))
        return try await waitForOutcome(after.id, until: deadline)?.payment ?? after
    }
}

extension ServiceError {
    /// The core's refusal as the service's error.
    init(_ refusal: PaymentRefusal) {
        let kind: Kind =
            switch refusal.kind {
            case .conflict: .conflict
            case .invalid: .invalid
            case .unprocessable: .unprocessable
            }
        self.init(kind, code: refusal.code, field: refusal.field, message: refusal.message)
    }
}
