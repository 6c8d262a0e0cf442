import Foundation

/// Email syntax as mail systems accept it (RFC 5321/5322 dot-atom, domain names with a
/// top-level label), normalised by trimming and lower-casing the domain.
public enum EmailAddresses {
    private static let atext: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for b in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~.".utf8 { table[Int(b)] = true }
        for b in 0x80...0xFF { table[b] = true }
        return table
    }()

    /// The normalised address, or `nil` when its syntax is invalid.
    public static func normalize(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, trimmed.utf8.count <= 254 else { return nil }
        let local = parts[0], domain = parts[1].lowercased()
        guard (1...64).contains(local.utf8.count), !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else { return nil }
        guard local.utf8.allSatisfy({ atext[Int($0)] }) else { return nil }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return nil }
        for label in labels {
            guard (1...63).contains(label.utf8.count), !label.hasPrefix("-"), !label.hasSuffix("-"),
                  label.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 >= 0x80 }) else { return nil }
        }
        // The top-level label: letters (or an internationalised "xn--" label).
        guard let tld = labels.last, tld.count >= 2, tld.hasPrefix("xn--") || tld.allSatisfy(\.isLetter) else { return nil }
        return "\(local)@\(domain)"
    }
}
