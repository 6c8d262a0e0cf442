import Foundation

/// ACP transaction types (`txnType`).
public enum TransactionType: String, Sendable, Codable, CaseIterable {
    /// `00`: status query.
    case query = "00"
    /// `01`: consume (charge).
    case consume = "01"
    /// `04`: refund (partial or full, repeatable up to the original amount).
    case refund = "04"
    /// `31`: consume void (same clearing day, full amount).
    case void = "31"
    /// `76`: file transfer (the daily reconciliation file).
    case fileTransfer = "76"
    /// `95`: the gateway's current encryption certificate.
    case encryptionCertificate = "95"
}

/// The ACP endpoints (paths on the gateway host).
public enum ACPPath {
    /// Back-end money transactions: consume, refund, void.
    public static let backTransaction = "/gateway/api/backTransReq.do"
    /// Single transaction query.
    public static let query = "/gateway/api/queryTrans.do"
    /// File transfer: UnionPay serves it at the root of its file download host
    /// (`https://filedownload.95516.com/`); the sandbox serves it at its own root.
    public static let fileTransfer = "/"
}

/// `txnTime`: `YYYYMMDDhhmmss` in Beijing time (UTC+8, no daylight saving).
public enum TransactionTime {
    /// `date` as `txnTime`.
    public static func format(_ date: Date) -> String {
        var seconds = time_t(Int(date.timeIntervalSince1970.rounded(.down)) + 8 * 3600)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)" + two(parts.tm_mon + 1) + two(parts.tm_mday) + two(parts.tm_hour)
            + two(parts.tm_min)
            + two(parts.tm_sec)
    }

    /// The instant of a `txnTime`, or `nil` when it is not 14 digits of a valid time.
    public static func parse(_ text: String) -> Date? {
        let digits = Array(text.utf8)
        guard digits.count == 14, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        func n(_ a: Int, _ b: Int) -> Int32 { Int32(String(decoding: digits[a..<b], as: UTF8.self))! }
        var parts = tm()
        parts.tm_year = n(0, 4) - 1900
        parts.tm_mon = n(4, 6) - 1
        parts.tm_mday = n(6, 8)
        parts.tm_hour = n(8, 10)
        parts.tm_min = n(10, 12)
        parts.tm_sec = n(12, 14)
        guard (0...11).contains(parts.tm_mon), (1...31).contains(parts.tm_mday), parts.tm_hour < 24, parts.tm_min < 60,
            parts.tm_sec < 61
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts) - 8 * 3600))
    }

    /// The clearing day (`MMDD`, Beijing) of `date`, as `settleDate` carries it.
    public static func clearingDay(_ date: Date) -> String { String(format(date).dropFirst(4).prefix(4)) }

    /// The `YYYYMMDD` of a date given without its year (`MMDD`, as `settleDate` and the
    /// reconciliation file give it): the latest such date no later than the day after `date`
    /// (Beijing), so that clocks a little apart agree.
    public static func day(monthAndDay mmdd: String, before date: Date) -> String {
        let limit = String(format(date.addingTimeInterval(86_400)).prefix(8))
        let year = Int(limit.prefix(4)) ?? 1970
        return [year, year - 1].map { String($0) + mmdd }.first { $0 <= limit } ?? String(year - 1) + mmdd
    }

    /// Whether `a` and `b` fall on the same Beijing date: voids are allowed on the clearing day only.
    public static func sameClearingDay(_ a: Date, _ b: Date) -> Bool { format(a).prefix(8) == format(b).prefix(8) }
}
