import Foundation
import Logging
import ServiceLifecycle

/// Runs due queries (docs/payment-rules.md R4) and resumes unfinished payments after a restart (R7): scans the store
/// every `interval` seconds, from start to shutdown. Also prunes old idempotency keys and
/// deletes expired orders that took no payment.
struct QueryPoller: Service {
    let payments: PaymentService
    let store: PaymentStore
    let interval: Double
    /// Deletes expired orders every `purgeInterval` seconds (with old idempotency keys).
    let orders: OrderService
    let purgeInterval: Double
    let ready: Readiness
    let logger: Logger

    func run() async throws {
        await withDiscardingTaskGroup { group in
            // Beside the rounds, owned by this service: the unwinds that follow a settled charge.
            group.addTask { [payments, logger] in
                await payments.followUps.run { orderId in
                    do { try await payments.unwind(orderId) } catch {
                        logger.error("the cancel of order \(orderId) did not progress: \(error)")
                    }
                }
            }
            await rounds()
            group.cancelAll()
        }
    }

    /// The periodic rounds, until shutdown.
    func rounds() async {
        await ready.repeatedly(every: interval, state: Date.distantPast) { lastPrune in
            do {
                let n = try await payments.runDueQueries()
                if n > 0 { logger.debug("queried \(n) payments") }
                try await payments.runCancellations()
                if Date().timeIntervalSince(lastPrune) >= purgeInterval {
                    try await store.pruneIdempotency(now: Date())
                    let purged = try await orders.purgeExpired()
                    if purged > 0 { logger.info("deleted \(purged) expired orders that took no payment") }
                    lastPrune = Date()
                }
            } catch {
                logger.error("query scan failed: \(error)")
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

    /// The shape of every periodic service here: once open, `tick` runs, then `seconds` pass,
    /// again and again until the service is cancelled or the server shuts down gracefully.
    /// `state` carries what one tick leaves for the next.
    nonisolated func repeatedly<State: Sendable>(
        every seconds: Double,
        state initial: State,
        _ tick: @escaping @Sendable (inout State) async -> Void
    ) async {
        guard await waitUntilOpen() else { return }  // after the migrations; or shut down first
        await cancelWhenGracefulShutdown {
            var state = initial
            while !Task.isCancelled {
                await tick(&state)
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            }
        }
    }

    /// ``repeatedly(every:state:_:)`` with nothing carried from one tick to the next.
    nonisolated func repeatedly(every seconds: Double, _ tick: @escaping @Sendable () async -> Void) async {
        await repeatedly(every: seconds, state: ()) { _ in await tick() }
    }
}
