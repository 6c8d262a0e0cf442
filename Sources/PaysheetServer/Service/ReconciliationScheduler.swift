import Foundation
import Logging
import ServiceLifecycle
import UnionPay

/// Reconciles the clearing days of the past week that are not reconciled yet, after `hour`
/// o'clock Beijing time (when UnionPay's file of the previous day is ready). Checks every
/// `interval` seconds. A day is reconciled when its report exists and is complete; a day whose
/// file was missing (or late) has no report and is tried again, and so is a report made while
/// the next day's file was missing (payments near the cut-off awaiting it) once that file is due.
/// Several servers on one database read the same reports, so they do each day about once.
struct ReconciliationScheduler: Service {
    let service: ReconciliationService
    let store: PaymentStore
    let hour: Int
    let interval: Double
    let ready: Readiness
    let logger: Logger

    /// How many days back a day is tried again: after that, a day without a complete report is
    /// left to a person (`POST /v1/reconciliations`), as the last try's error says.
    static let lookback = 7

    func run() async throws {
        await ready.repeatedly(every: interval, state: Set<String>()) { await reconcileDue(alerted: &$0) }
    }

    /// The clearing days to look at on `date`'s Beijing date: the `lookback` days before it, oldest first.
    static func days(before date: Date) -> [String] {
        (1...lookback).reversed().map {
            String(TransactionTime.format(date.addingTimeInterval(Double(-$0) * 86_400)).prefix(8))
        }
    }

    /// One check: reconciles every day of the past week that has no complete report. `alerted`:
    /// the days whose last try was already reported as an error (once a day, not once a check).
    func reconcileDue(alerted: inout Set<String>) async {
        let now = service.now()
        let beijingHour = Int(TransactionTime.format(now).dropFirst(8).prefix(2)) ?? 0
        guard beijingHour >= hour else { return }
        let days = Self.days(before: now)
        let yesterday = days.last
        for day in days {
            do {
                if let report = try await store.reconciliation(day: day) {
                    // Complete; or yesterday's, whose next file (today's) cannot exist before tomorrow.
                    if report.awaitingNextFile == 0 || day == yesterday { continue }
                }
                let last = day == days.first && !alerted.contains(day)
                switch try await service.run(day: day) {
                case .notReady:
                    if last {
                        alerted.insert(day)
                        logger.error(
                            "reconciliation \(day): the acquirer still has no file after \(Self.lookback) days; tried again today only; reconcile it with POST /v1/reconciliations"
                        )
                    } else {
                        logger.info("reconciliation \(day): the acquirer's file is not ready yet")
                    }
                case .failed: break  // logged by the service; tried again at the next check
                case .report(let report):
                    if last, report.awaitingNextFile > 0 {
                        alerted.insert(day)
                        logger.error(
                            "reconciliation \(day): \(report.awaitingNextFile) payments still await the next day's file after \(Self.lookback) days; tried again today only; reconcile it with POST /v1/reconciliations"
                        )
                    }
                }
            } catch {
                logger.error("reconciliation \(day) failed: \(error)")
            }
        }
        alerted = alerted.filter { $0 >= days[0] }
    }

    /// ``reconcileDue(alerted:)`` as one check on its own.
    func reconcileDue() async {
        var alerted = Set<String>()
        await reconcileDue(alerted: &alerted)
    }
}
