import Foundation
import PaysheetModel
import PaysheetPayments

/// The acquirer in memory: what it holds is the truth the store is checked against. It takes
/// each transaction once (a repeated identity answers "duplicate"), processes it for a while,
/// then notifies; it answers queries from what it holds. It trusts the merchant on refund
/// totals (as a permissive acquirer would): the core alone must keep them.
struct SimulatedAcquirer {
    enum Kind: Equatable { case charge, refund, void }
    enum State: Equatable { case processing, succeeded, failed }

    struct Transaction {
        var kind: Kind
        var order: String
        var amount: Int
        var state: State
        var reference: String
        var original: String?
        var sentAt: Date
    }

    var transactions: [TransactionIdentity: Transaction] = [:]
    var byReference: [String: TransactionIdentity] = [:]
    private var references = 0

    /// Receives a request: the synchronous answer, and whether it is new (to be processed).
    mutating func receive(_ request: OrderLifecycle.Request, declines: Bool, at now: Date) -> (SubmitAnswer, Bool) {
        let payment = request.payment
        if transactions[payment.identity] != nil { return (.duplicate, false) }
        references += 1
        let reference = "Q\(references)"
        var transaction = Transaction(
            kind: .charge,
            order: payment.orderId,
            amount: payment.amount.minorUnits,
            state: .processing,
            reference: reference,
            original: nil,
            sentAt: now
        )
        switch request {
        case .charge:
            if declines || payment.amount.minorUnits <= 0 {
                transaction.state = .failed
                transactions[payment.identity] = transaction
                return (.declined(code: "64", message: "insufficient funds"), false)
            }
        case .refund(_, let original), .void(_, let original):
            transaction.kind = request.isVoid ? .void : .refund
            transaction.original = original
            // The original must be a succeeded charge of the acquirer's (a void: not voided already).
            guard let id = byReference[original], let charge = transactions[id], charge.state == .succeeded,
                charge.kind == .charge
            else {
                transaction.state = .failed
                transactions[payment.identity] = transaction
                return (.declined(code: "35", message: "no such original transaction"), false)
            }
        }
        transactions[payment.identity] = transaction
        byReference[reference] = payment.identity
        return (.accepted(reference: reference), true)
    }

    /// Finishes processing `identity`: a charge succeeds unless `fails`; a reversal succeeds.
    mutating func settle(_ identity: TransactionIdentity, fails: Bool) -> TransactionStatus? {
        guard var t = transactions[identity], t.state == .processing else { return nil }
        t.state = fails && t.kind == .charge ? .failed : .succeeded
        transactions[identity] = t
        return status(identity)
    }

    func status(_ identity: TransactionIdentity) -> TransactionStatus {
        guard let t = transactions[identity] else { return .notFound }
        switch t.state {
        case .processing: return .pending(reason: "05 being processed")
        case .succeeded: return .succeeded(amount: Money(t.amount, currencyCode: "156")!, reference: t.reference)
        case .failed: return .failed(code: "64", message: "insufficient funds")
        }
    }

    /// What the acquirer holds of `order`'s money: succeeded charges less succeeded reversals.
    func net(order: String) -> (charged: Int, consumes: Int, reversed: Int) {
        var charged = 0
        var consumes = 0
        var reversed = 0
        for t in transactions.values where t.order == order && t.state == .succeeded {
            if t.kind == .charge {
                charged += t.amount
                consumes += 1
            } else {
                reversed += t.amount
            }
        }
        return (charged, consumes, reversed)
    }
}

extension OrderLifecycle.Request {
    var isVoid: Bool {
        if case .void = self { return true }
        return false
    }
}
