import Logging
import OTel
import PaysheetServer
import ServiceLifecycle
import Tracing

/// What `paysheet serve` bootstraps for traces and logs (docs/server.md, "Tracing"): the library
/// only makes spans through the `Tracing` API; the process chooses where they go.
enum Telemetry {
    /// Bootstraps the log's format (plain lines, or JSON lines) with the active span's `trace_id`
    /// and `span_id` in each entry's metadata, and, when ``TelemetrySettings/otlpEndpoint`` is
    /// set, swift-otel's tracer exporting over OTLP/HTTP (protobuf) to `<endpoint>/v1/traces`:
    /// the service returned runs beside the server and flushes the last spans when it stops.
    /// Nothing set: no tracer (spans are no-ops), plain logs, `nil`.
    static func bootstrap(_ settings: TelemetrySettings) throws -> (any Service)? {
        let exporting = !settings.otlpEndpoint.isEmpty
        let provider: Logger.MetadataProvider? = exporting ? OTel.makeLoggingMetadataProvider() : nil
        switch settings.logFormat {
        case .json:
            LoggingSystem.bootstrap(
                { label, provider in JSONLogHandler(label: label, metadataProvider: provider) },
                metadataProvider: provider
            )
        case .text:
            if let provider {
                LoggingSystem.bootstrap(
                    { label, provider in StreamLogHandler.standardError(label: label, metadataProvider: provider) },
                    metadataProvider: provider
                )
            }
        }
        guard exporting else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = settings.serviceName
        // Metrics stay Prometheus's (/metrics) and logs stay local: only traces are exported.
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        let base =
            settings.otlpEndpoint.hasSuffix("/") ? String(settings.otlpEndpoint.dropLast()) : settings.otlpEndpoint
        configuration.traces.otlpExporter.endpoint = base + "/v1/traces"
        // W3C trace context in and out (`traceparent`, `tracestate`).
        configuration.propagators = [.traceContext]
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }
}
