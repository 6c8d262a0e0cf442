/// One region's telephone numbering metadata from libphonenumber.
final class RegionPhoneRules: Sendable {
    let region: String
    let countryCode: Int
    let internationalPrefix: Pattern?
    let nationalPrefix: String
    let nationalPrefixForParsing: Pattern?
    /// The lengths a national number may have, as bits (bit n: length n); 0 when unknown.
    let possibleLengths: UInt64
    let general: Pattern?
    let valid: Pattern?
    /// The calling code's and the national prefix's ASCII digits.
    let countryCodeDigits: [UInt8]
    let nationalPrefixDigits: [UInt8]

    init(
        region: String,
        countryCode: Int,
        internationalPrefix: Pattern?,
        nationalPrefix: String,
        nationalPrefixForParsing: Pattern?,
        possibleLengths: Set<Int>,
        general: Pattern?,
        valid: Pattern?
    ) {
        self.region = region
        self.countryCode = countryCode
        self.internationalPrefix = internationalPrefix
        self.nationalPrefix = nationalPrefix
        self.nationalPrefixForParsing = nationalPrefixForParsing
        self.possibleLengths = possibleLengths.reduce(0) { $1 >= 0 && $1 < 64 ? $0 | (1 << UInt64($1)) : $0 }
        self.general = general
        self.valid = valid
        self.countryCodeDigits = Array(String(countryCode).utf8)
        self.nationalPrefixDigits = Array(nationalPrefix.utf8)
    }
}

/// The numbering metadata of every region, parsed on first use.
enum PhoneMetadata {
    static let regions: [String: RegionPhoneRules] = {
        var out: [String: RegionPhoneRules] = [:]
        for line in PhoneDataText.text.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 8, let cc = Int(f[1]) else { continue }
            out[f[0]] = RegionPhoneRules(
                region: f[0],
                countryCode: cc,
                internationalPrefix: f[2].isEmpty ? nil : try? Pattern(f[2]),
                nationalPrefix: f[3],
                nationalPrefixForParsing: f[4].isEmpty ? nil : try? Pattern(f[4]),
                possibleLengths: Set(f[5].split(separator: ",").compactMap { Int($0) }),
                general: f[6].isEmpty ? nil : try? Pattern(f[6]),
                valid: f[7].isEmpty ? nil : try? Pattern(f[7])
            )
        }
        return out
    }()

    /// Calling code → the regions that share it.
    static let regionsByCallingCode: [Int: [RegionPhoneRules]] = {
        Dictionary(grouping: regions.values, by: \.countryCode).mapValues { $0.sorted { $0.region < $1.region } }
    }()

    static var uncompilablePatterns: [String] {
        var out: [String] = []
        for line in PhoneDataText.text.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            for p in [f[2], f[4], f[6], f[7]] where !p.isEmpty && (try? Pattern(p)) == nil {
                out.append(f[0] + ": " + p)
            }
        }
        return out
    }
}
