/// Phone numbers as people type them (spaces, dashes, dots, brackets, with or without the
/// country code, `+`, `00` or `011`, full-width digits) to E.164, with libphonenumber's
/// metadata deciding which numbers are valid.
public enum PhoneNumbers {
    /// The E.164 form of `text` (`+14085550100`), or `nil` when it is not a valid number.
    /// Numbers without a country code are read in `region` (ISO code).
    public static func e164(_ text: String, region: String) -> String? {
        guard var digits = digitsOnly(text) else { return nil }
        let plus = digits.hasPrefix("+")
        if plus { digits.removeFirst() }
        guard !digits.isEmpty, digits.count <= 17 else { return nil }
        let home = PhoneMetadata.regions[region.uppercased()]
        if plus {
            return international(digits)
        }
        if let home, let prefix = home.internationalPrefix {
            // 00 / 011 / … followed by a country code.
            for cut in 2...4 where digits.count > cut {
                let head = String(digits.prefix(cut))
                if prefix.matches(head), let number = international(String(digits.dropFirst(cut))) { return number }
            }
        }
        guard let home else { return nil }
        if let number = national(digits, home) { return number }
        // The country code typed without "+".
        let cc = String(home.countryCode)
        if digits.hasPrefix(cc), let number = national(String(digits.dropFirst(cc.count)), home) { return number }
        return nil
    }

    /// Digits (ASCII or full-width) and a leading `+`; `nil` when letters or other marks appear.
    static func digitsOnly(_ text: String) -> String? {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x30...0x39: out.unicodeScalars.append(scalar)
            case 0xFF10...0xFF19: out.unicodeScalars.append(Unicode.Scalar(scalar.value - 0xFF10 + 0x30)!)
            case 0x2B, 0xFF0B:
                guard out.isEmpty else { return nil }
                out = "+"
            case 0x20, 0x2D, 0x2E, 0x28, 0x29, 0x2F, 0xA0, 0x2010...0x2015, 0x3000, 0xFF0D, 0xFF08, 0xFF09, 0x30FC: continue
            default: return nil
            }
        }
        return out
    }

    private static func international(_ digits: String) -> String? {
        for length in 1...3 where digits.count > length {
            guard let cc = Int(digits.prefix(length)), let regions = PhoneMetadata.regionsByCallingCode[cc] else { continue }
            let national = String(digits.dropFirst(length))
            if regions.contains(where: { isValid(national, $0) }) { return "+\(cc)\(national)" }
            // Some people keep the national prefix after the country code: +44 (0)20 ….
            if let first = regions.first, !first.nationalPrefix.isEmpty, national.hasPrefix(first.nationalPrefix) {
                let stripped = String(national.dropFirst(first.nationalPrefix.count))
                if regions.contains(where: { isValid(stripped, $0) }) { return "+\(cc)\(stripped)" }
            }
            return nil
        }
        return nil
    }

    private static func national(_ digits: String, _ home: RegionPhoneRules) -> String? {
        // The home region first: most numbers belong to it, and shared calling codes (+1) have many.
        let regions = [home] + (PhoneMetadata.regionsByCallingCode[home.countryCode] ?? []).filter { $0.region != home.region }
        if let parsing = home.nationalPrefixForParsing {
            // The prefixes the region strips when reading national numbers ("8", "80", "0", …).
            for length in stride(from: min(5, digits.count - 1), through: 1, by: -1) where parsing.matches(String(digits.prefix(length))) {
                let stripped = String(digits.dropFirst(length))
                if regions.contains(where: { isValid(stripped, $0) }) { return "+\(home.countryCode)\(stripped)" }
            }
        }
        if !home.nationalPrefix.isEmpty, digits.hasPrefix(home.nationalPrefix) {
            let stripped = String(digits.dropFirst(home.nationalPrefix.count))
            if regions.contains(where: { isValid(stripped, $0) }) { return "+\(home.countryCode)\(stripped)" }
        }
        if regions.contains(where: { isValid(digits, $0) }) { return "+\(home.countryCode)\(digits)" }
        return nil
    }

    static func isValid(_ national: String, _ rules: RegionPhoneRules) -> Bool {
        guard rules.possibleLengths.isEmpty || rules.possibleLengths.contains(national.count) else { return false }
        guard let general = rules.general, general.matches(national) else { return false }
        return rules.valid?.matches(national) ?? false
    }
}
