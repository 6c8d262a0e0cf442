import Foundation

/// The acquirer's clearing day: the calendar day in its time zone (UnionPay: Beijing, UTC+8),
/// computed without a calendar or a clock. A void is only for a charge of the same clearing day.
public struct ClearingDay: Sendable, Equatable, Codable {
    /// Seconds east of UTC of the acquirer's day.
    public var offset: Double

    /// Beijing time (UTC+8, no daylight saving), UnionPay's.
    public init(offset: Double = 8 * 3600) { self.offset = offset }

    /// The day number of `date`.
    public func day(_ date: Date) -> Int { Int(((date.timeIntervalSince1970 + offset) / 86_400).rounded(.down)) }

    /// Whether `a` and `b` fall on the same clearing day.
    public func same(_ a: Date, _ b: Date) -> Bool { day(a) == day(b) }
}
