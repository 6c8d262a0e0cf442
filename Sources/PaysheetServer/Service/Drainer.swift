import Foundation
import Logging
import ServiceLifecycle

/// Whether the server is draining (shutting down): `/health` then answers 503.
final class HealthState: @unchecked Sendable {
    private let lock = NSLock()
    private var isDraining = false
    var draining: Bool { lock.withLock { isDraining } }
    func startDraining() { lock.withLock { isDraining = true } }
}

/// The first service to stop on SIGTERM: marks the server draining, waits `seconds` (requests are
/// still served; a load balancer's health checks see 503 and stop sending new ones), then lets the
/// other services stop, the HTTP server finishing the requests in flight.
struct Drainer: Service {
    let state: HealthState
    let seconds: Double
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        state.startDraining()
        if seconds > 0 {
            logger.info("draining: /health answers 503 for \(seconds) s before the server stops")
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        }
    }
}
