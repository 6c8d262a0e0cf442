import PaysheetModel

/// What the page may see of a contact before and after authorization (`docs/payment-sheet.md` §5).
public enum Redaction {
    /// The contact as the page sees it before authorization: locality, administrative area,
    /// redacted postal code, country and country code only.
    public static func redacted(_ c: ApplePayPaymentContact) -> ApplePayPaymentContact {
        ApplePayPaymentContact(
            locality: c.locality,
            postalCode: c.postalCode.map { redactedPostalCode($0, countryCode: c.countryCode, country: c.country) },
            administrativeArea: c.administrativeArea,
            country: c.country,
            countryCode: c.countryCode
        )
    }

    /// US ZIP+4 → the first five digits; Canada and the UK → without the last three characters
    /// (`SW1A 1AA` → `SW1A`, `K1A 0B1` → `K1A`); other countries unchanged.
    public static func redactedPostalCode(_ code: String, countryCode: String?, country: String?) -> String {
        let isoCode = countryCode?.uppercased() ?? ""
        let name = country?.lowercased() ?? ""
        if isoCode == "US" || (isoCode.isEmpty && (name == "united states" || name == "usa")) {
            let digits = code.filter(\.isNumber)
            return digits.count >= 5 ? String(digits.prefix(5)) : code
        }
        if ["CA", "GB", "UK"].contains(isoCode) || (isoCode.isEmpty && ["canada", "united kingdom"].contains(name)) {
            let compact = code.filter { !$0.isWhitespace }
            guard compact.count > 3 else { return code }
            return String(compact.dropLast(3))
        }
        return code
    }

    /// The full contact after authorization, limited to the requested fields. `postalAddress`
    /// also yields the name; `email` and `phone` come from the CONTACT module; versions 1–2 never
    /// see phonetic names. `nil` when nothing was requested.
    public static func authorized(
        _ c: ApplePayPaymentContact?,
        fields: [ApplePayContactField]?,
        email: String?,
        phone: String?,
        version: Int
    ) -> ApplePayPaymentContact? {
        let requested = Set(fields ?? [])
        if requested.isEmpty { return nil }
        let c = c ?? ApplePayPaymentContact()
        var out = ApplePayPaymentContact()
        if requested.contains(.postalAddress) {
            out.addressLines = c.addressLines
            out.subLocality = c.subLocality
            out.locality = c.locality
            out.postalCode = c.postalCode
            out.subAdministrativeArea = c.subAdministrativeArea
            out.administrativeArea = c.administrativeArea
            out.country = c.country
            out.countryCode = c.countryCode
        }
        if requested.contains(.name) || requested.contains(.postalAddress) {
            out.givenName = c.givenName
            out.familyName = c.familyName
        }
        if requested.contains(.phoneticName), version >= 3 {
            out.phoneticGivenName = c.phoneticGivenName
            out.phoneticFamilyName = c.phoneticFamilyName
        }
        if requested.contains(.email) { out.emailAddress = email ?? c.emailAddress }
        if requested.contains(.phone) { out.phoneNumber = phone ?? c.phoneNumber }
        return out
    }
}
