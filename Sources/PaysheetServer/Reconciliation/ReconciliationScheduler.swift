import Foundation
import Logging
import ServiceLifecycle
import UnionPay

/// Reconciles the previous clearing day once a day, after `hour` o'clock Beijing time (when
/// UnionPay's file is ready), unless a report of that day is stored already (so several servers
/// on one database do it about once). Checks every `interval` seconds.
struct ReconciliationScheduler: Service {
    let service: ReconciliationService
    let store: PaymentStore
    let hour: Int
    let interval: Double
    let ready: Readiness
    let logger: Logger

    func run() async throws {
        await ready.repeatedly(every: interval) {
            let now = service.now()
            let beijingHour = Int(TransactionTime.format(now).dropFirst(8).prefix(2)) ?? 0
            let day = ReconciliationService.previousDay(now)
            guard beijingHour >= hour else { return }
            do {
                if try await store.reconciliation(day: day) == nil {
                    if case .notReady = try await service.run(day: day) {
                        logger.info("reconciliation \(day): the acquirer's file is not ready yet")
                    }
                }
            } catch {
                logger.error("reconciliation \(day) failed: \(error)")
            }
        }
    }
}
