import Foundation
import Logging
import ServiceLifecycle

/// Runs due queries (docs/payment-rules.md R4) and resumes unfinished payments after a restart (R7): scans the store
/// every `interval` seconds, from start to shutdown. Also prunes old idempotency keys.
struct QueryPoller: Service {
    let payments: PaymentService
    let store: PaymentStore
    let interval: Double
    let ready: Readiness
    let logger: Logger

    func run() async throws {
        guard await ready.waitUntilOpen() else { return }  // after the migrations; or shut down first
        await cancelWhenGracefulShutdown {
            var lastPrune = Date.distantPast
            while !Task.isCancelled {
                do {
                    let n = try await payments.runDueQueries()
                    if n > 0 { logger.debug("queried \(n) payments") }
                    try await payments.runCancellations()
                    if Date().timeIntervalSince(lastPrune) > 3600 {
                        try await store.pruneIdempotency(now: Date())
                        lastPrune = Date()
                    }
                } catch {
                    logger.error("query scan failed: \(error)")
                }
                try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
            }
        }
    }
}

/// Opens once, after the migrations.
actor Readiness {
    private(set) var isOpen = false
    func signal() { isOpen = true }

    /// Waits until open (`true`), or until the service is cancelled or shutting down (`false`).
    nonisolated func waitUntilOpen() async -> Bool {
        while await !isOpen {
            if Task.isCancelled || Task.isShuttingDownGracefully { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}
