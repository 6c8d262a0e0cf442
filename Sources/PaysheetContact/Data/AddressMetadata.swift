import Foundation

/// One country's address rules from Google's address metadata.
final class CountryAddressRules: Sendable {
    struct Subdivision: Sendable {
        let key: String
        let name: String
        let latinName: String
        let isoID: String
        let postalPrefix: Pattern?
        /// The folded name and Latin name, for prefix matching.
        let foldedNames: [String]
    }

    let code: String
    let name: String
    let postalPattern: Pattern?
    /// Required fields: A street, C city, S state/province, Z postal code, N name, O organisation.
    let required: AddressFields
    /// Fields written in capitals: C, S, Z, …
    let upper: AddressFields
    /// Fields the country's address format has at all; others are ignored.
    let allowed: AddressFields
    /// `zip`, `postal`, `pin`, `eircode` — the local name of the postal code.
    let postalNameType: String
    /// `state`, `province`, `prefecture`, `county`, … — the local name of the subdivision.
    let areaNameType: String
    let subdivisions: [Subdivision]
    /// Folded names, keys, Latin names and ISO ids → subdivision index.
    let lookup: [String: Int]
    /// Every prefix (two characters or more) of the folded names → the subdivision whose names
    /// have it, or -1 when several do.
    let prefixes: [String: Int]

    init(
        code: String,
        name: String,
        postalPattern: Pattern?,
        required: AddressFields,
        upper: AddressFields,
        allowed: AddressFields,
        postalNameType: String,
        areaNameType: String,
        subdivisions: [Subdivision],
        lookup: [String: Int]
    ) {
        self.code = code
        self.name = name
        self.postalPattern = postalPattern
        self.required = required
        self.upper = upper
        self.allowed = allowed
        self.postalNameType = postalNameType
        self.areaNameType = areaNameType
        self.subdivisions = subdivisions
        self.lookup = lookup
        var prefixes: [String: Int] = [:]
        for (i, s) in subdivisions.enumerated() {
            for name in s.foldedNames {
                var prefix = ""
                for (k, c) in name.enumerated() {
                    prefix.append(c)
                    guard k >= 1 else { continue }
                    if let seen = prefixes[prefix], seen != i { prefixes[prefix] = -1 } else { prefixes[prefix] = i }
                }
            }
        }
        self.prefixes = prefixes
    }
}

/// A set of the address format's field letters (A, C, S, Z, N, O, …) as a bit mask.
struct AddressFields: Sendable {
    private var bits: UInt32 = 0

    init<S: Sequence>(_ letters: S) where S.Element == Character {
        for c in letters { if let a = c.asciiValue, a >= 0x41, a <= 0x5A { bits |= 1 << UInt32(a - 0x41) } }
    }

    func contains(_ c: Character) -> Bool {
        guard let a = c.asciiValue, a >= 0x41, a <= 0x5A else { return false }
        return bits & (1 << UInt32(a - 0x41)) != 0
    }
}

/// The address metadata of every country, parsed on first use.
enum AddressMetadata {
    static let countries: [String: CountryAddressRules] = {
        var out: [String: CountryAddressRules] = [:]
        var header: [Substring]?
        var subs: [CountryAddressRules.Subdivision] = []
        func flush() {
            guard let h = header else { return }
            var lookup: [String: Int] = [:]
            for (i, s) in subs.enumerated() {
                for alias in [s.key, s.name, s.latinName, s.isoID] where !alias.isEmpty {
                    let folded = TextFolding.fold(alias)
                    if lookup[folded] == nil { lookup[folded] = i }
                }
            }
            let code = String(h[0])
            out[code] = CountryAddressRules(
                code: code,
                name: String(h[6]),
                postalPattern: h[1].isEmpty ? nil : try? Pattern(String(h[1])),
                required: AddressFields(h[2]),
                upper: AddressFields(h[3]),
                allowed: AddressFields(h[7]),
                postalNameType: String(h[4]),
                areaNameType: String(h[5]),
                subdivisions: subs,
                lookup: lookup
            )
            subs = []
        }
        for line in AddressDataText.text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if line.first == "\t" {
                subs.append(
                    .init(
                        key: String(fields[1]),
                        name: String(fields[2]),
                        latinName: String(fields[3]),
                        isoID: String(fields[4]),
                        postalPrefix: fields[5].isEmpty ? nil : try? Pattern(String(fields[5])),
                        foldedNames: [fields[2], fields[3]].filter { !$0.isEmpty }.map { TextFolding.fold(String($0)) }
                    )
                )
            } else {
                flush()
                header = fields
            }
        }
        flush()
        return out
    }()

    /// Patterns in the metadata that the pattern engine cannot compile (a test keeps this empty).
    static var uncompilablePatterns: [String] {
        var out: [String] = []
        for line in AddressDataText.text.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            let pattern = line.first == "\t" ? fields[5] : fields[1]
            if !pattern.isEmpty, (try? Pattern(String(pattern))) == nil { out.append(String(pattern)) }
        }
        return out
    }
}

/// Case-, width-, accent- and punctuation-insensitive keys for matching names people type.
enum TextFolding {
    static func fold(_ text: String) -> String {
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII: letters lower-cased and digits kept, written straight into the new string.
            return String(unsafeUninitializedCapacity: utf8.count) { buffer in
                var n = 0
                for b in utf8 {
                    switch b {
                    case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                        buffer[n] = b + 32
                        n += 1
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                        buffer[n] = b
                        n += 1
                    default: break
                    }
                }
                return n
            }
        }
        // Fast path: ASCII and CJK ideographs only (no case, accents or widths to fold).
        var cjk = true
        var kept = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x41...0x5A: kept.append(Unicode.Scalar(scalar.value + 32)!)
            case 0x61...0x7A, 0x30...0x39, 0x3400...0x4DBF, 0x4E00...0x9FFF: kept.append(scalar)
            case 0...0x7F: continue
            default: cjk = false
            }
            if !cjk { break }
        }
        if cjk { return String(kept) }
        return foldUnicode(text)
    }

    /// The general path of `fold`: Foundation's case, accent and width folding, then letters and digits.
    static func foldUnicode(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        var result = ""
        for scalar in folded.unicodeScalars where scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        {
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}
