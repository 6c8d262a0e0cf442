import Foundation
import Logging
import PaysheetServer
import Prometheus

/// `paysheet serve` as a library: the merchant server with Paysheet's sandbox composed in
/// (`BuiltInSandbox`) for whatever its configuration leaves unset, so that it runs with nothing
/// configured. A production configuration names every part itself and is checked before anything
/// of the sandbox is made (`ProductionCheck`).
public enum SandboxServer {
    /// A merchant server built from `configuration` with the sandbox standing in
    /// (`MerchantServer.init(_:logger:clock:metrics:)` otherwise).
    public static func make(
        _ configuration: ServerConfiguration,
        logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        metrics: PrometheusCollectorRegistry? = nil
    ) async throws -> MerchantServer {
        try await MerchantServer(
            configuration,
            logger: logger,
            clock: clock,
            metrics: metrics,
            sandbox: BuiltInSandbox()
        )
    }

    /// Builds a server as ``make(_:logger:clock:metrics:)`` does and runs it until shutdown.
    public static func run(
        _ configuration: ServerConfiguration,
        logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        metrics: PrometheusCollectorRegistry? = nil,
        onStarted: @escaping @Sendable (MerchantServer.Started) async -> Void = { _ in }
    ) async throws {
        try await make(configuration, logger: logger, clock: clock, metrics: metrics).run(onStarted: onStarted)
    }
}
