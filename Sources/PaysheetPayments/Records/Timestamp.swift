import Foundation

/// Instants as the server writes them: UTC, to the second (`2027-01-01T02:00:00Z`), the
/// millisecond rounded first, as ISO 8601 formatters do.
package enum Timestamp {
    /// `date` as text.
    package static func text(_ date: Date) -> String {
        var seconds = time_t(((date.timeIntervalSince1970 * 1000).rounded() / 1000).rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
