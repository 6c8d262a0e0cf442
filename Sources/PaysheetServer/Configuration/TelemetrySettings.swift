/// Traces and the log's format (docs/server.md, "Tracing").
///
/// Spans are made through the `Tracing` API everywhere; they cost nothing until an exporter is
/// bootstrapped, which `paysheet serve` does only when ``otlpEndpoint`` is set.
public struct TelemetrySettings: Sendable, Codable, Equatable {
    /// How log lines are written.
    public enum LogFormat: String, Sendable, Codable, Equatable, CaseIterable {
        /// swift-log's plain lines (the default).
        case text
        /// One JSON object a line, with `trace_id` and `span_id` while a span is active.
        case json
    }

    /// The OTLP/HTTP (protobuf) collector's base URL (`http://127.0.0.1:4318`); traces are posted
    /// to its `/v1/traces`. Empty: no traces are exported (the default). `PAYSHEET_OTLP_ENDPOINT`.
    public var otlpEndpoint: String = ""
    /// The `service.name` resource attribute of exported spans. `PAYSHEET_OTEL_SERVICE_NAME`.
    public var serviceName: String = "paysheet"
    /// The log format. `PAYSHEET_LOG_FORMAT` (`text`, `json`).
    public var logFormat: LogFormat = .text

    /// The defaults: nothing exported, plain logs.
    public init() {}

    /// Applies `PAYSHEET_OTLP_ENDPOINT`, `PAYSHEET_OTEL_SERVICE_NAME` and `PAYSHEET_LOG_FORMAT`.
    public mutating func apply(environment: [String: String]) throws {
        if let value = environment["PAYSHEET_OTLP_ENDPOINT"] { otlpEndpoint = value }
        if let value = environment["PAYSHEET_OTEL_SERVICE_NAME"] { serviceName = value }
        if let value = environment["PAYSHEET_LOG_FORMAT"] {
            guard let format = LogFormat(rawValue: value) else {
                throw ConfigurationError("PAYSHEET_LOG_FORMAT=\(value) is neither text nor json")
            }
            logFormat = format
        }
        if !otlpEndpoint.isEmpty, !(otlpEndpoint.hasPrefix("http://") || otlpEndpoint.hasPrefix("https://")) {
            throw ConfigurationError("the OTLP endpoint \(otlpEndpoint) is not an http:// or https:// URL")
        }
    }
}
