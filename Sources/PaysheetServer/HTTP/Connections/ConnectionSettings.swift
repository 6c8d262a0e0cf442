#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore

/// The settings of ``GuardedHTTPChannel`` for one server, from ``ServerConfiguration/ConnectionLimits``.
struct ConnectionSettings: Sendable, Equatable {
    var limits: ConnectionLimiter.Limits
    var deadlines: ConnectionDeadlines.Limits

    /// File descriptors kept for what is not a client connection: the database, the acquirer's
    /// connections, files.
    static let reservedFiles = 256

    /// The settings of `configured`, the total cap lowered to what `fileLimit` open files allow.
    init(_ configured: ServerConfiguration.ConnectionLimits, fileLimit: Int) throws {
        for (name, value) in [
            ("connections.idleTimeout", configured.idleTimeout),
            ("connections.headerTimeout", configured.headerTimeout),
            ("connections.bodyTimeout", configured.bodyTimeout),
            ("connections.drainTimeout", configured.drainTimeout),
        ] where !(value > 0 && value.isFinite && value < 86_400) {
            throw ConfigurationError("\(name) \(value) is not a number of seconds between 0 and a day")
        }
        guard configured.maxConnections > 0, configured.maxConnectionsPerAddress > 0 else {
            throw ConfigurationError("connections.maxConnections and maxConnectionsPerAddress must be at least 1")
        }
        let allowed = max(1, fileLimit - Self.reservedFiles)
        limits = .init(
            total: min(configured.maxConnections, allowed),
            perAddress: min(configured.maxConnectionsPerAddress, configured.maxConnections)
        )
        func amount(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64(seconds * 1_000_000_000)) }
        deadlines = .init(
            idle: amount(configured.idleTimeout),
            header: amount(configured.headerTimeout),
            body: amount(configured.bodyTimeout),
            drain: amount(configured.drainTimeout),
            drainBytes: 64 << 20
        )
    }

    /// The process's limit of open files, raised to its hard limit first (as servers do).
    static func openFileLimit() -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, 1 << 20)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The settings for a server from `configured`, its cap lowered (and logged) to the file limit.
    static func forServer(_ configured: ServerConfiguration.ConnectionLimits, logger: Logger) throws -> Self {
        let files = openFileLimit()
        let settings = try Self(configured, fileLimit: files)
        if settings.limits.total < configured.maxConnections {
            logger.warning(
                "connections: at most \(settings.limits.total) open at once (the process may open \(files) files; \(reservedFiles) are kept for the rest)"
            )
        }
        return settings
    }
}
