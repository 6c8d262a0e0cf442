import PaysheetPayments
import Foundation
import PaysheetModel
import UnionPay

/// A verified notification from the acquirer.
public struct AcquirerNotification: Sendable, Equatable {
    /// Which transaction.
    public var identity: TransactionIdentity
    /// A key that is equal for duplicates of the same notification.
    public var deduplicationKey: String
    /// What it says.
    public var status: TransactionStatus
    /// The raw body as received (stored; acquirer notifications carry masked account numbers only).
    public var raw: String
}

/// What we ask the acquirer to charge.
public struct ChargeRequest: Sendable {
    /// What a charge is paid with: a card from a decrypted token (DPAN, expiry, cryptogram/ECI or
    /// EMV data/PIN block) or a stored merchant token (MPAN and expiry, `YYMMDD`). Never stored or
    /// logged; its descriptions show the last four digits only.
    public typealias Instrument = PaymentInstrument

    /// Our identity of the transaction.
    public var identity: TransactionIdentity
    /// The amount with its currency (always the order's total).
    public var amount: Money
    /// What is charged. Never stored or logged.
    public var instrument: Instrument
    /// Our order id, echoed back (`reqReserved`).
    public var reference: String

    /// A request.
    public init(
        identity: TransactionIdentity,
        amount: Money,
        instrument: Instrument,
        reference: String
    ) {
        self.identity = identity
        self.amount = amount
        self.instrument = instrument
        self.reference = reference
    }
}

/// An acquirer: charge, query, refund, void, and notifications.
/// One transaction of the acquirer's settlement file for a day.
public struct SettledTransaction: Sendable, Codable, Equatable {
    /// The transaction, as we sent it.
    public var identity: TransactionIdentity
    /// The acquirer's reference (UnionPay `queryId`).
    public var reference: String
    /// The amount, minor units.
    public var amount: Int
    /// The acquirer's transaction type (UnionPay `txnType`: `01`, `04`, `31`).
    public var type: String
}

/// What asking for a day's settlement file found.
public enum SettlementFile: Sendable, Equatable {
    /// The file: its name and transactions.
    case file(name: String, transactions: [SettledTransaction])
    /// The acquirer has no file for the day yet.
    case notReady
    /// The file could not be had or read.
    case failed(String)
}

public protocol Acquirer: Sendable {
    /// A stable name (`unionpay`).
    var name: String { get }
    /// Sends a charge.
    func charge(_ request: ChargeRequest) async -> SubmitAnswer
    /// Asks for the status of `identity`.
    func query(_ identity: TransactionIdentity) async -> TransactionStatus
    /// Refunds `amount` of the charge the acquirer calls `originalReference`.
    func refund(_ identity: TransactionIdentity, amount: Money, originalReference: String) async -> SubmitAnswer
    /// Voids the whole charge `originalReference` (same day only).
    func void(_ identity: TransactionIdentity, amount: Money, originalReference: String) async -> SubmitAnswer
    /// Verifies and reads a notification body.
    func parseNotification(_ body: String) throws -> AcquirerNotification
    /// A new transaction identity at `now` for our payment `paymentId`.
    func newIdentity(paymentId: String, now: Date) -> TransactionIdentity
    /// The settlement (reconciliation) file of the clearing day `day` (`YYYYMMDD`).
    func settlementFile(day: String, now: Date) async -> SettlementFile
}
