import PaysheetPayments
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

    /// Whether `day` is a `YYYYMMDD` date of the calendar (not 20260230 or 20261301).
    static func isDay(_ day: String) -> Bool {
        guard day.utf8.count == 8, day.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let start = TransactionTime.parse(day + "000000")
        else { return false }
        // `parse` lets the C library carry an overflowing day into the next month: read it back.
        return TransactionTime.format(start).prefix(8) == day
    }

    /// The clearing day (`YYYYMMDD`) a settlement file's name says it is of: UnionPay's archive
    /// `{merId}_{YYYYMMDD}.zip`, or its `ZM` file `INN{yymmdd}88ZM_{merId}`; `nil` when it says none.
    static func fileDay(_ name: String) -> String? {
        let base = String(name.split(separator: "/").last ?? "")
        func digits(_ text: Substring) -> Bool { text.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }
        if base.hasSuffix(".zip"), let underscore = base.lastIndex(of: "_") {
            let date = base[base.index(after: underscore)...].dropLast(4)
            if date.count == 8, digits(date), isDay(String(date)) { return String(date) }
        }
        if base.hasPrefix("INN"), base.dropFirst(9).hasPrefix("88ZM_") {
            let date = base.dropFirst(3).prefix(6)
            if digits(date), isDay("20" + date) { return "20" + date }
        }
        return nil
    }

    /// Reconciles `day` (`YYYYMMDD`). Throws `invalid_request` for a day that is not a date, and
    /// `settlement_file_mismatch` when the acquirer's file is of another day: UnionPay's file
    /// transfer names the day by month and day only (`settleDate` MMDD), so its answer for a day
    /// more than a year ago is another year's file; the file's own name says its full date.
    func run(day: String) async throws -> Outcome {
        guard Self.isDay(day) else {
            throw ServiceError.invalid("day", "\(day) is not a day of the calendar; a clearing day is YYYYMMDD")
        }
        let checkedAt = now()
        // A day that has not come has no file (asked by month and day, UnionPay would answer with a year-old one).
        guard day <= String(TransactionTime.format(checkedAt).prefix(8)) else { return .notReady }
        let file: (name: String, transactions: [SettledTransaction])
        switch await acquirer.settlementFile(day: day, now: checkedAt) {
        case .notReady: return .notReady
        case .failed(let why):
            logger.error("reconciliation \(day): the settlement file could not be had: \(why)")
            return .failed(why)
        case .file(let name, let transactions): file = (name, transactions)
        }
        guard let fileDay = Self.fileDay(file.name), fileDay == day else {
            let what = Self.fileDay(file.name).map { "the file of \($0)" } ?? "a file whose name says no date"
            logger.error("reconciliation \(day): the acquirer answered with \(what) (\(file.name)); nothing compared")
            throw ServiceError(
                .unprocessable,
                code: "settlement_file_mismatch",
                field: "day",
                message:
                    "the acquirer answered for \(day) with \(what) (\(file.name)); nothing was compared or stored. UnionPay names a clearing day by month and day only: a day more than a year ago cannot be reconciled"
            )
        }
        var next: [SettledTransaction]?
        if let dayStart = TransactionTime.parse(day + "000000") {
            let nextDay = String(TransactionTime.format(dayStart.addingTimeInterval(86_400 + 3_600)).prefix(8))
            if nextDay <= String(TransactionTime.format(checkedAt).prefix(8)),
                case .file(let name, let transactions) = await acquirer.settlementFile(day: nextDay, now: checkedAt)
            {
                // Another year's file is no next day's: the payments wait for the right one.
                if Self.fileDay(name) == nextDay {
                    next = transactions
                } else {
                    logger.warning("reconciliation \(day): the file answered for \(nextDay) is \(name); not used")
                }
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
