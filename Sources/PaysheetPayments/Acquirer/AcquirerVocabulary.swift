import Foundation
import PaysheetModel

/// The acquirer's identity of one transaction: UnionPay's `orderId` + `txnTime` (docs/payment-rules.md R1),
/// chosen and stored by us before anything is sent.
public struct TransactionIdentity: Sendable, Codable, Hashable {
    /// `orderId`.
    public var orderId: String
    /// `txnTime`.
    public var txnTime: String

    /// An identity.
    public init(orderId: String, txnTime: String) {
        self.orderId = orderId
        self.txnTime = txnTime
    }
}

/// The synchronous answer to a charge, refund or void.
public enum SubmitAnswer: Sendable, Equatable {
    /// Accepted (UnionPay `00`): not yet paid (R5). `reference` is the acquirer's id (`queryId`).
    case accepted(reference: String?)
    /// Declined at once, for good.
    case declined(code: String, message: String)
    /// No usable answer, or "query later" (`03`/`04`/`05`, timeout, 5xx): the outcome is unknown.
    case unknown(reason: String)
    /// The acquirer already has this transaction (`12`): query it, never re-send (R4).
    case duplicate
}

/// What a notification or query says about a transaction.
public enum TransactionStatus: Sendable, Equatable {
    /// Succeeded for `amount` (minor units in the acquirer's currency).
    case succeeded(amount: Money, reference: String?)
    /// Failed for good.
    case failed(code: String, message: String)
    /// Still being processed (`05`).
    case pending(reason: String)
    /// The acquirer does not know it (`34`): not proof of failure early on.
    case notFound
    /// The query itself failed or was throttled; ask again later.
    case unknown(reason: String, throttled: Bool)
    /// Money was taken but the transaction is not clean (`42`, `74`, `75`): hold for a person.
    case moneyTaken(code: String, message: String)
}
