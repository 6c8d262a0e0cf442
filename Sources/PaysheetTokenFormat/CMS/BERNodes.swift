import Foundation

/// Errors and dates for the CMS reader.
enum BERNodes {
    static func fail(_ what: String) -> PaymentTokenError {
        PaymentTokenError(.malformed, "signature: \(what)")
    }

    /// Seconds since 1970 for a proleptic Gregorian UTC date (days-from-civil).
    static func date(_ y: Int, _ m: Int, _ d: Int, _ hh: Int, _ mm: Int, _ ss: Int) -> Date {
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + hh * 3600 + mm * 60 + ss))
    }
}
