import Foundation

/// Email syntax as mail systems accept it (RFC 5321/5322 dot-atom, domain names with a
/// top-level label), normalised by trimming and lower-casing the domain.
public enum EmailAddresses {
    private static let atext: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~.".utf8 {
            table[Int(byte)] = true
        }
        for byte in 0x80...0xFF { table[byte] = true }
        return table
    }()

    /// The normalised address, or `nil` when its syntax is invalid.
    public static func normalize(_ text: String) -> String? {
        var copy = text
        switch copy.withUTF8({ asciiVerdict($0) }) {
        case .unchanged: return text
        case .lowercasedDomain(let normalized): return normalized
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
    static func asciiVerdict(_ address: UnsafeBufferPointer<UInt8>) -> ASCIIVerdict {
        @inline(__always) func space(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        var start = 0
        var end = address.count
        for byte in address where byte >= 0x80 { return .notASCII }
        while start < end, space(address[start]) { start += 1 }
        while end > start, space(address[end - 1]) { end -= 1 }
        guard end - start <= 254 else { return .invalid }
        var atIndex = -1
        for position in start..<end where address[position] == UInt8(ascii: "@") {
            guard atIndex < 0 else { return .invalid }
            atIndex = position
        }
        guard atIndex >= 0 else { return .invalid }
        // Local part: dot-atom.
        let localCount = atIndex - start
        guard (1...64).contains(localCount), address[start] != UInt8(ascii: "."),
            address[atIndex - 1] != UInt8(ascii: ".")
        else {
            return .invalid
        }
        var previous: UInt8 = 0
        for position in start..<atIndex {
            let byte = address[position]
            guard atext[Int(byte)], !(byte == UInt8(ascii: ".") && previous == UInt8(ascii: ".")) else {
                return .invalid
            }
            previous = byte
        }
        // Domain: labels of letters, digits and hyphens; at least two; a top-level label of letters or "xn--".
        var needsLower = false
        var labels = 0
        var labelStart = atIndex + 1
        var position = atIndex + 1
        while position <= end {
            if position == end || address[position] == UInt8(ascii: ".") {
                let length = position - labelStart
                guard (1...63).contains(length), address[labelStart] != UInt8(ascii: "-"),
                    address[position - 1] != UInt8(ascii: "-")
                else { return .invalid }
                labels += 1
                if position == end {
                    // The top-level label.
                    guard length >= 2 else { return .invalid }
                    var isPunycode = false
                    if length >= 4 {
                        let prefix = (
                            address[labelStart] | 0x20, address[labelStart + 1] | 0x20, address[labelStart + 2],
                            address[labelStart + 3]
                        )
                        isPunycode =
                            prefix == (UInt8(ascii: "x"), UInt8(ascii: "n"), UInt8(ascii: "-"), UInt8(ascii: "-"))
                    }
                    if !isPunycode {
                        for position in labelStart..<position
                        where !((address[position] | 0x20) >= 0x61 && (address[position] | 0x20) <= 0x7A) {
                            return .invalid
                        }
                    }
                }
                labelStart = position + 1
            } else {
                let byte = address[position]
                if byte >= 0x41 && byte <= 0x5A {
                    needsLower = true
                } else if !((byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D) {
                    return .invalid
                }
            }
            position += 1
        }
        guard labels >= 2 else { return .invalid }
        if !needsLower, start == 0, end == address.count { return .unchanged }
        var bytes = Array(address[start..<end])
        for position in (atIndex - start + 1)..<bytes.count where bytes[position] >= 0x41 && bytes[position] <= 0x5A {
            bytes[position] += 32
        }
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
