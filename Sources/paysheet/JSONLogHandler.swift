import Foundation
import Logging

/// Writes each log entry as one JSON object a line on standard error: `time`, `level`, `label`,
/// `message`, and the metadata (`trace_id` and `span_id` while a span is active, from the
/// metadata provider `paysheet serve` bootstraps).
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, metadataProvider: Logger.MetadataProvider?) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let given = event.metadata { merged.merge(given) { $1 } }
        var object: [String: Any] = [
            "time": ISO8601DateFormatter.string(
                from: Date(),
                timeZone: TimeZone(identifier: "UTC")!,
                formatOptions: [.withInternetDateTime, .withFractionalSeconds]
            ),
            "level": event.level.rawValue,
            "label": label,
            "message": "\(event.message)",
        ]
        for (key, value) in merged where object[key] == nil { object[key] = Self.json(value) }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        line.append(0x0A)
        FileHandle.standardError.write(line)
    }

    static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }
}
