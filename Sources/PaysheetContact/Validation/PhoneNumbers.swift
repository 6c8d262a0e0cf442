/// Phone numbers as people type them (spaces, dashes, dots, brackets, with or without the
/// country code, `+`, `00` or `011`, full-width digits) to E.164, with libphonenumber's
/// metadata deciding which numbers are valid.
public enum PhoneNumbers {
    /// The E.164 form of `text` (`+14085550100`), or `nil` when it is not a valid number.
    /// Numbers without a country code are read in `region` (ISO code).
    public static func e164(_ text: String, region: String) -> String? {
        guard let (plus, digits) = digitsOnly(text) else { return nil }
        guard !digits.isEmpty, digits.count <= 17 else { return nil }
        let home = PhoneMetadata.regions[region] ?? PhoneMetadata.regions[region.uppercased()]
        if plus {
            return international(digits[...])
        }
        if let home, let prefix = home.internationalPrefix {
            // 00 / 011 / … followed by a country code.
            for cut in 2...4 where digits.count > cut {
                if prefix.matches(digits[..<cut]), let number = international(digits[cut...]) { return number }
            }
        }
        guard let home else { return nil }
        if let number = national(digits[...], home) { return number }
        // The country code typed without "+".
        let countryCode = home.countryCodeDigits
        if digits.starts(with: countryCode), let number = national(digits[countryCode.count...], home) { return number }
        return nil
    }

    /// The ASCII digits of `text` (ASCII or full-width) and whether a `+` led them; `nil` when
    /// letters or other marks appear.
    static func digitsOnly(_ text: String) -> (plus: Bool, digits: [UInt8])? {
        var digits: [UInt8] = []
        digits.reserveCapacity(text.utf8.count)
        var plus = false
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x30...0x39: digits.append(UInt8(scalar.value))
            case 0xFF10...0xFF19: digits.append(UInt8(scalar.value - 0xFF10 + 0x30))
            case 0x2B, 0xFF0B:
                guard digits.isEmpty, !plus else { return nil }
                plus = true
            case 0x20, 0x2D, 0x2E, 0x28, 0x29, 0x2F, 0xA0, 0x2010...0x2015, 0x3000, 0xFF0D, 0xFF08, 0xFF09, 0x30FC:
                continue
            default: return nil
            }
        }
        return (plus, digits)
    }

    /// `+`, the calling code and the national number.
    private static func format(_ cc: [UInt8], _ national: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = [UInt8(ascii: "+")]
        out.reserveCapacity(1 + cc.count + national.count)
        out.append(contentsOf: cc)
        out.append(contentsOf: national)
        return String(decoding: out, as: UTF8.self)
    }

    private static func international(_ digits: ArraySlice<UInt8>) -> String? {
        var countryCode = 0
        for length in 1...3 where digits.count > length {
            countryCode = countryCode * 10 + Int(digits[digits.startIndex + length - 1] - 0x30)
            guard let regions = PhoneMetadata.regionsByCallingCode[countryCode] else { continue }
            let national = digits.dropFirst(length)
            if regions.contains(where: { isValid(national, $0) }) {
                return format(regions[0].countryCodeDigits, national)
            }
            // Some people keep the national prefix after the country code: +44 (0)20 ….
            if let first = regions.first, !first.nationalPrefixDigits.isEmpty,
                national.starts(with: first.nationalPrefixDigits)
            {
                let stripped = national.dropFirst(first.nationalPrefixDigits.count)
                if regions.contains(where: { isValid(stripped, $0) }) {
                    return format(first.countryCodeDigits, stripped)
                }
            }
            return nil
        }
        return nil
    }

    private static func national(_ digits: ArraySlice<UInt8>, _ home: RegionPhoneRules) -> String? {
        // The home region first: most numbers belong to it, and shared calling codes (+1) have many.
        let shared = PhoneMetadata.regionsByCallingCode[home.countryCode] ?? []
        func valid(_ n: ArraySlice<UInt8>) -> Bool {
            isValid(n, home) || shared.contains { $0 !== home && isValid(n, $0) }
        }
        if let parsing = home.nationalPrefixForParsing, digits.count > 1 {
            // The prefixes the region strips when reading national numbers ("8", "80", "0", …).
            for length in stride(from: min(5, digits.count - 1), through: 1, by: -1)
            where parsing.matches(digits.prefix(length)) {
                let stripped = digits.dropFirst(length)
                if valid(stripped) { return format(home.countryCodeDigits, stripped) }
            }
        }
        if !home.nationalPrefixDigits.isEmpty, digits.starts(with: home.nationalPrefixDigits) {
            let stripped = digits.dropFirst(home.nationalPrefixDigits.count)
            if valid(stripped) { return format(home.countryCodeDigits, stripped) }
        }
        if valid(digits) { return format(home.countryCodeDigits, digits) }
        return nil
    }

    static func isValid(_ national: ArraySlice<UInt8>, _ rules: RegionPhoneRules) -> Bool {
        guard
            rules.possibleLengths == 0
                || (national.count < 64 && rules.possibleLengths & (1 << UInt64(national.count)) != 0)
        else { return false }
        guard let general = rules.general, general.matches(national) else { return false }
        return rules.valid?.matches(national) ?? false
    }
}
