import Foundation

/// Ids that sort by creation time: a prefix, 12 hexadecimal digits of milliseconds, 8 random.
enum IDs {
    static func make(_ prefix: String, now: Date = Date()) -> String {
        let ms = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        var t = String(ms, radix: 16)
        t = String(repeating: "0", count: max(0, 12 - t.count)) + t
        var r = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        r = String(repeating: "0", count: 8 - r.count) + r
        return prefix + t + r
    }
}
