import PaysheetPayments
import Foundation

/// What one day's reconciliation found: the acquirer's settlement file compared with the ledger.
public struct ReconciliationReport: Sendable, Codable, Equatable {
    /// One difference between the file and the ledger.
    public struct Difference: Sendable, Codable, Equatable {
        /// What kind of difference.
        public enum Kind: String, Sendable, Codable {
            /// In the file, but no payment of ours has that identity: money moved that we do not know of.
            case unknownToUs
            /// In the file (money moved), but our payment did not succeed (failed, held, or still open).
            case notSucceededHere
            /// In the file and ours, with another amount.
            case amountMismatch
            /// Succeeded here, yet in neither this day's file nor the next one's.
            case missingAtAcquirer
        }

        /// The kind.
        public var kind: Kind
        /// Our payment, when there is one.
        public var paymentId: String?
        /// Its order.
        public var orderId: String?
        /// The acquirer's identity of the transaction.
        public var acquirerOrderId: String
        /// `txnTime`.
        public var txnTime: String
        /// The acquirer's reference, when the file has it.
        public var reference: String?
        /// Our amount (minor units), when we have the payment.
        public var amountHere: Int?
        /// The file's amount, when the file has it.
        public var amountInFile: Int?
        /// In words.
        public var detail: String
    }

    /// The clearing day, `YYYYMMDD` (Beijing).
    public var day: String
    /// The file's name.
    public var fileName: String
    /// When the comparison ran.
    public var checkedAt: Date
    /// Transactions in the file.
    public var fileTransactions: Int
    /// Of them, found here as succeeded with the same amount.
    public var matched: Int
    /// Payments of ours that succeeded on the day and could not be checked yet: not in the day's
    /// file, and the next day's file does not exist yet (a payment near the cut-off clears on the next day).
    public var awaitingNextFile: Int
    /// The differences; empty when the day balances.
    public var differences: [Difference]
}

/// The comparison itself, without I/O: the driver (``ReconciliationService``) downloads the files
/// and reads the payments.
enum Reconciliation {
    /// Compares the day's file with the ledger.
    /// - Parameters:
    ///   - file: the day's transactions; `nextDay`: the next day's, or `nil` when that file does not exist yet.
    ///   - known: our payments with the identities in `file` (absent: unknown to us).
    ///   - sentThatDay: our payments sent on `day` (Beijing date of `txnTime`).
    static func compare(
        day: String,
        fileName: String,
        file: [SettledTransaction],
        nextDay: [SettledTransaction]?,
        known: [TransactionIdentity: PaymentRecord],
        sentThatDay: [PaymentRecord],
        at now: Date
    ) -> ReconciliationReport {
        var differences: [ReconciliationReport.Difference] = []
        var matched = 0
        var inFile = Set<TransactionIdentity>()
        for transaction in file {
            inFile.insert(transaction.identity)
            guard let payment = known[transaction.identity] else {
                differences.append(
                    .init(
                        kind: .unknownToUs,
                        paymentId: nil,
                        orderId: nil,
                        acquirerOrderId: transaction.identity.orderId,
                        txnTime: transaction.identity.txnTime,
                        reference: transaction.reference,
                        amountHere: nil,
                        amountInFile: transaction.amount,
                        detail:
                            "the acquirer settled \(transaction.amount) (type \(transaction.type)) that no payment here sent"
                    )
                )
                continue
            }
            let disagreement: (kind: ReconciliationReport.Difference.Kind, detail: String)?
            if payment.lifecycle.state != .succeeded {
                disagreement = (
                    .notSucceededHere,
                    "the acquirer settled it; here the \(payment.kind.rawValue) is \(payment.lifecycle.state.rawValue)"
                )
            } else if payment.amount.minorUnits != transaction.amount {
                disagreement = (
                    .amountMismatch,
                    "the acquirer settled \(transaction.amount), the \(payment.kind.rawValue) here is for \(payment.amount)"
                )
            } else {
                disagreement = nil
            }
            guard let disagreement else {
                matched += 1
                continue
            }
            differences.append(
                .init(
                    kind: disagreement.kind,
                    paymentId: payment.id,
                    orderId: payment.orderId,
                    acquirerOrderId: transaction.identity.orderId,
                    txnTime: transaction.identity.txnTime,
                    reference: transaction.reference,
                    amountHere: payment.amount.minorUnits,
                    amountInFile: transaction.amount,
                    detail: disagreement.detail
                )
            )
        }
        let next = Set(nextDay?.map(\.identity) ?? [])
        var awaiting = 0
        for payment in sentThatDay
        where payment.lifecycle.state == .succeeded && !inFile.contains(payment.identity)
            && !next.contains(payment.identity)
        {
            if nextDay == nil {
                awaiting += 1
            } else {
                differences.append(
                    .init(
                        kind: .missingAtAcquirer,
                        paymentId: payment.id,
                        orderId: payment.orderId,
                        acquirerOrderId: payment.identity.orderId,
                        txnTime: payment.identity.txnTime,
                        reference: payment.lifecycle.reference,
                        amountHere: payment.amount.minorUnits,
                        amountInFile: nil,
                        detail:
                            "the \(payment.kind.rawValue) succeeded here but is in neither \(day)'s settlement file nor the next day's"
                    )
                )
            }
        }
        return ReconciliationReport(
            day: day,
            fileName: fileName,
            checkedAt: now,
            fileTransactions: file.count,
            matched: matched,
            awaitingNextFile: awaiting,
            differences: differences
        )
    }
}
