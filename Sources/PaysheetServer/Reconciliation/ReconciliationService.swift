import Foundation
import Logging
import Metrics
import UnionPay

/// Reconciles a clearing day: downloads the acquirer's settlement file (and the next day's, for
/// payments near the cut-off), compares it with the ledger (``Reconciliation``), stores the
/// report, and alerts on differences: an error in the log per difference and the metric
/// `paysheet_reconciliation_differences_total`.
struct ReconciliationService: Sendable {
    let store: PaymentStore
    let acquirer: any Acquirer
    let logger: Logger
    let now: @Sendable () -> Date

    enum Outcome: Sendable {
        case report(ReconciliationReport)
        /// The acquirer has no file for the day yet.
        case notReady
        /// The file could not be had or read.
        case failed(String)
    }

    /// The day before `date`'s Beijing date, `YYYYMMDD`.
    static func previousDay(_ date: Date) -> String {
        String(TransactionTime.format(date.addingTimeInterval(-86_400)).prefix(8))
    }

    /// Whether `day` is a `YYYYMMDD` date.
    static func isDay(_ day: String) -> Bool {
        day.utf8.count == 8 && day.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
            && TransactionTime.parse(day + "000000") != nil
    }

    /// Reconciles `day` (`YYYYMMDD`).
    func run(day: String) async throws -> Outcome {
        let checkedAt = now()
        let file: (name: String, transactions: [SettledTransaction])
        switch await acquirer.settlementFile(day: day, now: checkedAt) {
        case .notReady: return .notReady
        case .failed(let why):
            logger.error("reconciliation \(day): the settlement file could not be had: \(why)")
            return .failed(why)
        case .file(let name, let transactions): file = (name, transactions)
        }
        var next: [SettledTransaction]?
        if let dayStart = TransactionTime.parse(day + "000000") {
            let nextDay = String(TransactionTime.format(dayStart.addingTimeInterval(86_400 + 3_600)).prefix(8))
            if case .file(_, let transactions) = await acquirer.settlementFile(day: nextDay, now: checkedAt) {
                next = transactions
            }
        }
        // The file's transactions were sent that day or, near the cut-off, the day before: read
        // both days at once; only a transaction in neither is looked up by itself.
        let sentThatDay = try await store.payments(sentOn: day)
        var known: [TransactionIdentity: PaymentRecord] = [:]
        for payment in sentThatDay { known[payment.identity] = payment }
        if let dayStart = TransactionTime.parse(day + "000000") {
            let dayBefore = String(TransactionTime.format(dayStart.addingTimeInterval(-3_600)).prefix(8))
            for payment in try await store.payments(sentOn: dayBefore) { known[payment.identity] = payment }
        }
        for transaction in file.transactions where known[transaction.identity] == nil {
            if let payment = try await store.payment(transaction.identity) { known[transaction.identity] = payment }
        }
        let report = Reconciliation.compare(
            day: day,
            fileName: file.name,
            file: file.transactions,
            nextDay: next,
            known: known,
            sentThatDay: sentThatDay,
            at: checkedAt
        )
        try await store.save(report)
        if report.differences.isEmpty {
            logger.info("reconciliation \(day): \(report.matched) of \(report.fileTransactions) transactions balance")
        } else {
            Counter(label: "paysheet_reconciliation_differences_total").increment(by: report.differences.count)
            for difference in report.differences {
                logger.error(
                    "reconciliation \(day): \(difference.kind.rawValue) \(difference.acquirerOrderId) \(difference.txnTime): \(difference.detail)"
                )
            }
        }
        return .report(report)
    }
}
