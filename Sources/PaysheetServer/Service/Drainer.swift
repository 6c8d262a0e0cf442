import Foundation
import Logging
import ServiceLifecycle

/// The first service to stop on SIGTERM: marks the server draining, waits `seconds` (requests are
/// still served; a load balancer's health checks see 503 and stop sending new ones), then lets the
/// other services stop, the HTTP server finishing the requests in flight.
struct Drainer: Service {
    /// Raised when draining starts: `/health` then answers 503.
    let draining: Flag
    let seconds: Double
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        draining.raise()
        if seconds > 0 {
            logger.info("draining: /health answers 503 for \(seconds) s before the server stops")
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        }
    }
}
