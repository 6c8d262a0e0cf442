import Foundation

/// Postal codes and administrative areas, per country, from Google's address metadata.
enum PostalAddresses {
    /// Full-width letters, digits and dashes to ASCII; trimmed; inner runs of spaces to one.
    static func narrow(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var lastSpace = false
        for scalar in text.unicodeScalars {
            var s = scalar
            switch s.value {
            case 0xFF01...0xFF5E: s = Unicode.Scalar(s.value - 0xFEE0)!
            case 0x3000, 0xA0: s = " "
            case 0x2010...0x2015, 0x2212, 0x30FC: s = "-"
            case 0x3012: continue   // 〒
            default: break
            }
            if s == " " {
                if lastSpace || out.isEmpty { continue }
                lastSpace = true
            } else {
                lastSpace = false
            }
            out.append(s)
        }
        return String(String(out).trimmingCharacters(in: .whitespaces))
    }

    static let canadianFSA = try! Pattern("[A-Z]\\d[A-Z]")
    static let britishOutward = try! Pattern("[A-Z]{1,2}\\d[A-Z\\d]?")

    enum PostalVerdict: Equatable {
        case valid(String)
        case partial(String)     // a redacted prefix that cannot be checked further
        case invalid(String)
    }

    /// The canonical form of `raw` in `rules`' country and whether it is valid.
    static func postalCode(_ raw: String, _ rules: CountryAddressRules, phase: ContactValidationPhase,
                           fiveDigitZIP: Bool) -> PostalVerdict {
        var code = narrow(raw)
        if rules.upper.contains("Z") { code = code.uppercased() }
        let compact = code.filter { $0 != " " && $0 != "-" }
        // Re-space only codes typed without a space: "OX14 PG" is a typo, not "OX1 4PG".
        let unspaced = !code.contains(" ")
        switch rules.code {
        case "US":
            if compact.count == 9, compact.allSatisfy(\.isASCIIDigit) {
                code = fiveDigitZIP ? String(compact.prefix(5)) : "\(compact.prefix(5))-\(compact.suffix(4))"
            } else if compact.count == 5 {
                code = compact
            }
            if fiveDigitZIP, code.count == 10, rules.postalPattern?.matches(code) == true { code = String(code.prefix(5)) }
        case "JP":
            if compact.count == 7, compact.allSatisfy(\.isASCIIDigit) { code = "\(compact.prefix(3))-\(compact.suffix(4))" }
        case "CA":
            if compact.count == 6, unspaced { code = "\(compact.prefix(3)) \(compact.suffix(3))" }
            if phase == .redacted, compact.count == 3, canadianFSA.matches(compact) { return .partial(compact) }
        case "GB", "GG", "IM", "JE":
            if compact.count >= 5, unspaced { code = "\(compact.dropLast(3)) \(compact.suffix(3))" }
            if phase == .redacted, (2...4).contains(compact.count), britishOutward.matches(compact) {
                return .partial(compact)
            }
        default:
            break
        }
        guard let pattern = rules.postalPattern else { return .valid(code) }
        if pattern.matches(code) { return .valid(code) }
        if unspaced || !["CA", "GB", "GG", "IM", "JE"].contains(rules.code), pattern.matches(compact) { return .valid(compact) }
        return .invalid(code)
    }

    /// The subdivision `text` names: by key, name, Latin name or ISO id in any case, width or
    /// accent, else by a unique prefix (`Calif.`, `東京`), else with a Japanese suffix removed.
    static func subdivision(_ text: String, _ rules: CountryAddressRules) -> Int? {
        let folded = TextFolding.fold(text)
        guard !folded.isEmpty else { return nil }
        if let i = rules.lookup[folded] { return i }
        let minimum = folded.unicodeScalars.allSatisfy(\.isASCII) ? 4 : 2
        if folded.count >= minimum {
            var found: Int?
            for (i, s) in rules.subdivisions.enumerated() {
                if s.foldedNames.contains(where: { $0.hasPrefix(folded) }) {
                    if found != nil, found != i { return nil }
                    found = i
                }
            }
            if let found { return found }
        }
        if rules.code == "JP" {
            for suffix in ["ken", "to", "fu", "do"] where folded.hasSuffix(suffix) {
                if let i = rules.lookup[String(folded.dropLast(suffix.count))] { return i }
            }
        }
        return nil
    }

    /// The subdivisions whose postal-code prefix `code` matches.
    static func subdivisions(forPostalCode code: String, _ rules: CountryAddressRules) -> [Int] {
        rules.subdivisions.indices.filter { rules.subdivisions[$0].postalPrefix?.matchesPrefix(code) == true }
    }

    static let poBox: [String] = ["pobox", "postofficebox", "postbox", "私書箱", "邮政信箱", "郵政信箱", "apartado", "boitepostale", "postfach"]

    static func isPOBox(_ lines: [String]) -> Bool {
        lines.contains { line in
            let folded = TextFolding.fold(line)
            return poBox.contains { $0.unicodeScalars.allSatisfy(\.isASCII) ? folded.hasPrefix($0) : folded.contains($0) }
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
