import Foundation

/// Ids that sort by creation time: a prefix, 12 hexadecimal digits of milliseconds, then random
/// hexadecimal digits (`randomDigits`; an order id's 24 are 96 bits, so it cannot be guessed).
///
/// No id holds 13 decimal digits in a row: a run of 13–19 digits is what log scanners (and our
/// trace check, `Tools/otlp_trace_check.py`) take for a card number, and ids are in paths, logs
/// and trace attributes. An id that would (about 2 in 100 of random hexadecimal) is drawn again.
package enum IDs {
    /// The longest run of decimal digits an id may hold.
    static let longestDigitRun = 12

    static func make(_ prefix: String, now: Date = Date(), randomDigits: Int = 8) -> String {
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        var hex = String(milliseconds, radix: 16)
        hex = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        return drawn { prefix + hex + Secrets.hex(randomDigits) }
    }

    /// `draw()`'s first value without a run of more than ``longestDigitRun`` decimal digits
    /// (after 64 draws, the last: only a caller whose fixed part alone holds such a run gets one).
    package static func drawn(_ draw: () -> String) -> String {
        var id = draw()
        for _ in 0..<64 where longestRunOfDigits(id) > longestDigitRun { id = draw() }
        return id
    }

    /// The length of the longest run of ASCII decimal digits in `text`.
    static func longestRunOfDigits(_ text: String) -> Int {
        var longest = 0
        var run = 0
        for byte in text.utf8 {
            if byte >= 0x30 && byte <= 0x39 {
                run += 1
                longest = max(longest, run)
            } else {
                run = 0
            }
        }
        return longest
    }
}
