import Foundation

/// Ids that sort by creation time: a prefix, 12 hexadecimal digits of milliseconds, then random
/// hexadecimal digits (`randomDigits`; an order id's 24 are 96 bits, so it cannot be guessed).
enum IDs {
    static func make(_ prefix: String, now: Date = Date(), randomDigits: Int = 8) -> String {
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        var hex = String(milliseconds, radix: 16)
        hex = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        return prefix + hex + Secrets.hex(randomDigits)
    }
}
