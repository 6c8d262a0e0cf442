import Foundation

/// Email syntax as mail systems accept it (RFC 5321/5322 dot-atom, domain names with a
/// top-level label), normalised by trimming and lower-casing the domain.
public enum EmailAddresses {
    private static let atext: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for b in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~.".utf8 {
            table[Int(b)] = true
        }
        for b in 0x80...0xFF { table[b] = true }
        return table
    }()

    /// The normalised address, or `nil` when its syntax is invalid.
    public static func normalize(_ text: String) -> String? {
        var copy = text
        switch copy.withUTF8({ asciiVerdict($0) }) {
        case .unchanged: return text
        case .lowercasedDomain(let s): return s
        case .invalid: return nil
        case .notASCII: return unicodeNormalize(text)
        }
    }

    enum ASCIIVerdict {
        case unchanged
        case lowercasedDomain(String)
        case invalid
        case notASCII
    }

    /// The same rules over an all-ASCII address, in one pass over its bytes without allocating
    /// unless the domain needs lower-casing or white space trimming.
    static func asciiVerdict(_ all: UnsafeBufferPointer<UInt8>) -> ASCIIVerdict {
        @inline(__always) func space(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
        var lo = 0
        var hi = all.count
        for b in all where b >= 0x80 { return .notASCII }
        while lo < hi, space(all[lo]) { lo += 1 }
        while hi > lo, space(all[hi - 1]) { hi -= 1 }
        guard hi - lo <= 254 else { return .invalid }
        var at = -1
        for k in lo..<hi where all[k] == UInt8(ascii: "@") {
            guard at < 0 else { return .invalid }
            at = k
        }
        guard at >= 0 else { return .invalid }
        // Local part: dot-atom.
        let localCount = at - lo
        guard (1...64).contains(localCount), all[lo] != UInt8(ascii: "."), all[at - 1] != UInt8(ascii: ".") else {
            return .invalid
        }
        var previous: UInt8 = 0
        for k in lo..<at {
            let b = all[k]
            guard atext[Int(b)], !(b == UInt8(ascii: ".") && previous == UInt8(ascii: ".")) else { return .invalid }
            previous = b
        }
        // Domain: labels of letters, digits and hyphens; at least two; a top-level label of letters or "xn--".
        var needsLower = false
        var labels = 0
        var labelStart = at + 1
        var k = at + 1
        while k <= hi {
            if k == hi || all[k] == UInt8(ascii: ".") {
                let length = k - labelStart
                guard (1...63).contains(length), all[labelStart] != UInt8(ascii: "-"), all[k - 1] != UInt8(ascii: "-")
                else { return .invalid }
                labels += 1
                if k == hi {
                    // The top-level label.
                    guard length >= 2 else { return .invalid }
                    var xn = false
                    if length >= 4 {
                        let p = (
                            all[labelStart] | 0x20, all[labelStart + 1] | 0x20, all[labelStart + 2], all[labelStart + 3]
                        )
                        xn = p == (UInt8(ascii: "x"), UInt8(ascii: "n"), UInt8(ascii: "-"), UInt8(ascii: "-"))
                    }
                    if !xn {
                        for j in labelStart..<k where !((all[j] | 0x20) >= 0x61 && (all[j] | 0x20) <= 0x7A) {
                            return .invalid
                        }
                    }
                }
                labelStart = k + 1
            } else {
                let b = all[k]
                if b >= 0x41 && b <= 0x5A {
                    needsLower = true
                } else if !((b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D) {
                    return .invalid
                }
            }
            k += 1
        }
        guard labels >= 2 else { return .invalid }
        if !needsLower, lo == 0, hi == all.count { return .unchanged }
        var bytes = Array(all[lo..<hi])
        for j in (at - lo + 1)..<bytes.count where bytes[j] >= 0x41 && bytes[j] <= 0x5A { bytes[j] += 32 }
        return .lowercasedDomain(String(decoding: bytes, as: UTF8.self))
    }

    /// The rules for an address with non-ASCII characters (internationalised local parts or domains).
    static func unicodeNormalize(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, trimmed.utf8.count <= 254 else { return nil }
        let local = parts[0]
        let domain = parts[1].lowercased()
        guard (1...64).contains(local.utf8.count), !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..")
        else { return nil }
        guard local.utf8.allSatisfy({ atext[Int($0)] }) else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return nil }
        for label in labels {
            guard (1...63).contains(label.utf8.count), !label.hasPrefix("-"), !label.hasSuffix("-"),
                label.utf8.allSatisfy({
                    ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 >= 0x80
                })
            else { return nil }
        }
        // The top-level label: letters (or an internationalised "xn--" label).
        guard let tld = labels.last, tld.count >= 2, tld.hasPrefix("xn--") || tld.allSatisfy(\.isLetter) else {
            return nil
        }
        return "\(local)@\(domain)"
    }
}
