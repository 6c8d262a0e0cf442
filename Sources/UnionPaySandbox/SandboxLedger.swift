import UnionPay
import Foundation

/// One transaction in the sandbox gateway's ledger. It holds no card data: the account number
/// is kept masked.
public struct SandboxLedgerEntry: Sendable, Codable, Equatable {
    /// `orderId`.
    public var orderId: String
    /// `txnTime`.
    public var txnTime: String
    /// `txnType`.
    public var txnType: TransactionType
    /// `txnAmt`, minor units.
    public var amount: Int
    /// `currencyCode`.
    public var currencyCode: String
    /// `queryId`.
    public var queryId: String
    /// `origQryId` of a refund or void.
    public var originalQueryId: String?
    /// The final `respCode`.
    public var respCode: ResponseCode
    /// When the result becomes final (queries answer `05` before).
    public var finalAt: Date
    /// The masked account number.
    public var maskedAccount: String?
    /// `backUrl`.
    var notificationURL: String?
    /// `merId`.
    var merchantId: String
    /// The request's `signMethod` (answers and notifications are signed the same way).
    var signMethod: String?
    /// `reqReserved`, echoed in the reconciliation file.
    public var reserved: String?
    /// Refunded and voided amounts (succeeded or in progress), for consumes.
    public var reversed: Int = 0

    /// `success`, `failed` or `processing` at `now`.
    public func status(at now: Date) -> String {
        if now < finalAt { return "processing" }
        return respCode.kind == .success ? "success" : "failed"
    }
}
