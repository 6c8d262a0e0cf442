import Foundation

/// Postal codes and administrative areas, per country, from Google's address metadata.
enum PostalAddresses {
    /// Full-width letters, digits and dashes to ASCII; trimmed; inner runs of spaces to one.
    static func narrow(_ text: String) -> String {
        var copy = text
        if let ascii = copy.withUTF8({ narrowASCII($0) }) { return ascii ?? text }
        return narrowUnicode(text)
    }

    /// `narrow` over ASCII text on its bytes: `.some(nil)` when the text is already narrow,
    /// `nil` when it is not ASCII (the Unicode path decides).
    static func narrowASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> String?? {
        // Already narrow (the common case): no leading or trailing space or tab, no double space.
        var clean = true
        var previous: UInt8 = 0
        for byte in bytes {
            if byte >= 0x80 { return nil }
            if byte == 0x20 && previous == 0x20 { clean = false }
            previous = byte
        }
        if clean, let first = bytes.first, let last = bytes.last, first != 0x20, first != 0x09, last != 0x20,
            last != 0x09
        {
            return .some(nil)
        }
        if bytes.isEmpty { return .some(nil) }
        var out: [UInt8] = []
        var changed = false
        var lastSpace = false
        for byte in bytes {  // all ASCII: the loop above returned otherwise
            if byte == 0x20 {
                if lastSpace || out.isEmpty {
                    changed = true
                    continue
                }
                lastSpace = true
            } else {
                lastSpace = false
            }
            out.append(byte)
        }
        // Trim spaces and tabs (CharacterSet.whitespaces over ASCII) at both ends.
        var start = 0
        var end = out.count
        while start < end, out[start] == 0x20 || out[start] == 0x09 { start += 1 }
        while end > start, out[end - 1] == 0x20 || out[end - 1] == 0x09 { end -= 1 }
        if !changed, start == 0, end == out.count { return .some(nil) }
        return .some(String(decoding: out[start..<end], as: UTF8.self))
    }

    static func narrowUnicode(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var lastSpace = false
        for scalar in text.unicodeScalars {
            var narrowed = scalar
            switch narrowed.value {
            case 0xFF01...0xFF5E: narrowed = Unicode.Scalar(narrowed.value - 0xFEE0)!
            case 0x3000, 0xA0: narrowed = " "
            case 0x2010...0x2015, 0x2212, 0x30FC: narrowed = "-"
            case 0x3012: continue  // 〒
            default: break
            }
            if narrowed == " " {
                if lastSpace || out.isEmpty { continue }
                lastSpace = true
            } else {
                lastSpace = false
            }
            out.append(narrowed)
        }
        return String(String(out).trimmingCharacters(in: .whitespaces))
    }

    static let canadianFSA = try! Pattern("[A-Z]\\d[A-Z]")
    static let britishOutward = try! Pattern("[A-Z]{1,2}\\d[A-Z\\d]?")

    enum PostalVerdict: Equatable {
        case valid(String)
        case partial(String)  // a redacted prefix that cannot be checked further
        case invalid(String)
    }

    /// The canonical form of `raw` in `rules`' country and whether it is valid.
    static func postalCode(
        _ raw: String,
        _ rules: CountryAddressRules,
        phase: ContactValidationPhase,
        fiveDigitZIP: Bool
    ) -> PostalVerdict {
        var code = narrow(raw)
        let ascii = code.utf8.allSatisfy { $0 < 0x80 }
        if rules.upper.contains("Z"), !ascii || code.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) {
            code = code.uppercased()
        }
        let separated = code.utf8.contains { $0 == 0x20 || $0 == 0x2D }
        let compact =
            !separated
            ? code
            : ascii
                ? String(decoding: code.utf8.filter { $0 != 0x20 && $0 != 0x2D }, as: UTF8.self)
                : code.filter { $0 != " " && $0 != "-" }
        let count = ascii ? compact.utf8.count : compact.count
        let digits = compact.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        // Re-space only codes typed without a space: "OX14 PG" is a typo, not "OX1 4PG".
        let unspaced = !code.utf8.contains(0x20)
        switch rules.code {
        case "US":
            if count == 9, digits {
                code = fiveDigitZIP ? String(compact.prefix(5)) : "\(compact.prefix(5))-\(compact.suffix(4))"
            } else if count == 5 {
                code = compact
            }
            if fiveDigitZIP, code.utf8.count == 10, rules.postalPattern?.matches(code) == true {
                code = String(code.prefix(5))
            }
        case "JP":
            if count == 7, digits { code = "\(compact.prefix(3))-\(compact.suffix(4))" }
        case "CA":
            if count == 6, unspaced { code = "\(compact.prefix(3)) \(compact.suffix(3))" }
            if phase == .redacted, count == 3, canadianFSA.matches(compact) { return .partial(compact) }
        case "GB", "GG", "IM", "JE":
            if count >= 5, unspaced { code = "\(compact.dropLast(3)) \(compact.suffix(3))" }
            if phase == .redacted, (2...4).contains(count), britishOutward.matches(compact) {
                return .partial(compact)
            }
        default:
            break
        }
        guard let pattern = rules.postalPattern else { return .valid(code) }
        if pattern.matches(code) { return .valid(code) }
        if unspaced || !["CA", "GB", "GG", "IM", "JE"].contains(rules.code), pattern.matches(compact) {
            return .valid(compact)
        }
        return .invalid(code)
    }

    /// The subdivision `text` names: by key, name, Latin name or ISO id in any case, width or
    /// accent, else by a unique prefix (`Calif.`, `東京`), else with a Japanese suffix removed.
    static func subdivision(_ text: String, _ rules: CountryAddressRules) -> Int? {
        let folded = TextFolding.fold(text)
        guard !folded.isEmpty else { return nil }
        if let index = rules.lookup[folded] { return index }
        let minimum = folded.utf8.allSatisfy { $0 < 0x80 } ? 4 : 2
        if folded.count >= minimum, let found = rules.prefixes[folded] {
            // A unique prefix names its subdivision; one shared by several names none.
            return found >= 0 ? found : nil
        }
        if rules.code == "JP" {
            for suffix in ["ken", "to", "fu", "do"] where folded.hasSuffix(suffix) {
                if let index = rules.lookup[String(folded.dropLast(suffix.count))] { return index }
            }
        }
        return nil
    }

    /// The subdivisions whose postal-code prefix `code` matches.
    static func subdivisions(forPostalCode code: String, _ rules: CountryAddressRules) -> [Int] {
        rules.subdivisions.indices.filter { rules.subdivisions[$0].postalPrefix?.matchesPrefix(code) == true }
    }

    static let poBox: [String] = [
        "pobox", "postofficebox", "postbox", "私書箱", "邮政信箱", "郵政信箱", "apartado", "boitepostale", "postfach",
    ]

    static func isPOBox(_ lines: [String]) -> Bool {
        lines.contains { line in
            let folded = TextFolding.fold(line)
            return poBox.contains {
                $0.unicodeScalars.allSatisfy(\.isASCII) ? folded.hasPrefix($0) : folded.contains($0)
            }
        }
    }
}
