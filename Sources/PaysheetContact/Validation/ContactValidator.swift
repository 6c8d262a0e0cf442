import Foundation
import PaysheetModel

/// Validates an `ApplePayPaymentContact` the way Apple's guidelines ask: tolerant of formats
/// (ZIP+4, `California`/`CA`/`Calif.`, `東京都`/`東京`/`Tokyo`, phone numbers with or without
/// dashes and country code), inferring what is missing (the state from the ZIP code), and precise
/// when something is wrong: one `ApplePayError` per problem, on the right field, with a short
/// noun-phrase message, most important first.
///
/// Only requested fields are checked, and before authorization only what the redacted contact
/// shows (locality, postal code, area, country).
/// Whether `text` is absent, empty or only white space.
func isBlank(_ text: String?) -> Bool {
    guard let text else { return true }
    // Fast path: the first byte is a visible ASCII character.
    if let first = text.utf8.first, first > 0x20, first < 0x7F { return false }
    for scalar in text.unicodeScalars where !scalar.properties.isWhitespace { return false }
    return true
}

public struct ContactValidator: Sendable {
    /// The merchant's policy.
    public var policy: ContactValidationPolicy

    /// A validator with `policy`.
    public init(policy: ContactValidationPolicy = ContactValidationPolicy()) { self.policy = policy }

    /// Validates `contact` for the fields the page requested.
    public func validate(
        _ contact: ApplePayPaymentContact,
        requiredFields: Set<ApplePayContactField>,
        phase: ContactValidationPhase,
        role: ContactRole = .shipping
    ) -> ContactValidationResult {
        // The requested fields as a bit mask (a Set of a String-backed enum hashes the raw value).
        var mask: UInt8 = 0
        for field in requiredFields { mask |= Self.bit(field) }
        for field in policy.requiredFields { mask |= Self.bit(field) }
        let required = RequiredFields(mask: mask)
        let language = policy.language
        var out = contact
        var problems: [(rank: Int, error: ApplePayError)] = []
        let invalid: ApplePayErrorCode = role == .shipping ? .shippingContactInvalid : .billingContactInvalid
        func add(_ rank: Int, _ code: ApplePayErrorCode, _ field: ApplePayErrorContactField?, _ message: String) {
            problems.append((rank, ApplePayError(code, contactField: field, message: message)))
        }

        // Country: needed for addresses and for reading phone numbers.
        var countryCode: String?
        if !isBlank(contact.countryCode) || !isBlank(contact.country) {
            countryCode = Countries.code(for: contact.countryCode ?? "") ?? Countries.code(for: contact.country ?? "")
        }

        if required.contains(.postalAddress) {
            if let code = countryCode, let rules = AddressMetadata.countries[code] {
                out.countryCode = code
                if role == .shipping, let served = policy.countries, !served.map({ $0.uppercased() }).contains(code) {
                    add(
                        0,
                        .addressUnserviceable,
                        .countryCode,
                        ContactMessages.render(.countryUnserviceable, language, country: Countries.name(code, language))
                    )
                }
                validateAddress(contact, rules, phase: phase, role: role, into: &out, add: add)
            } else if isBlank(contact.countryCode) && isBlank(contact.country) {
                add(3, invalid, .countryCode, ContactMessages.render(.required, language, field: "countryCode"))
            } else {
                add(3, invalid, .countryCode, ContactMessages.render(.countryUnknown, language))
            }
        }

        if phase == .full {
            if required.contains(.name), isBlank(contact.givenName), isBlank(contact.familyName) {
                add(8, invalid, .name, ContactMessages.render(.required, language, field: "name"))
            }
            if required.contains(.phoneticName) {
                if isBlank(contact.phoneticGivenName), isBlank(contact.phoneticFamilyName) {
                    add(9, invalid, .phoneticName, ContactMessages.render(.required, language, field: "phoneticName"))
                } else if countryCode == "JP" || countryCode == nil {
                    // Each present name in katakana; a blank one becomes "", one with other characters fails.
                    func kana(_ name: String?) -> String?? {
                        guard let name else { return .some(nil) }
                        if isBlank(name) { return .some("") }
                        return PhoneticNames.katakana(name).map { .some($0) }
                    }
                    if let given = kana(contact.phoneticGivenName), let family = kana(contact.phoneticFamilyName) {
                        out.phoneticGivenName = given
                        out.phoneticFamilyName = family
                    } else {
                        add(9, invalid, .phoneticName, ContactMessages.render(.phoneticNotKana, language))
                    }
                }
            }
            if required.contains(.phone) {
                if isBlank(contact.phoneNumber) {
                    add(10, invalid, .phoneNumber, ContactMessages.render(.required, language, field: "phoneNumber"))
                } else if let e164 = PhoneNumbers.e164(
                    contact.phoneNumber!,
                    region: countryCode ?? policy.defaultPhoneRegion
                ) {
                    out.phoneNumber = e164
                } else {
                    add(10, invalid, .phoneNumber, ContactMessages.render(.phoneInvalid, language))
                }
            }
            if required.contains(.email) {
                if isBlank(contact.emailAddress) {
                    add(11, invalid, .emailAddress, ContactMessages.render(.required, language, field: "emailAddress"))
                } else if let email = EmailAddresses.normalize(contact.emailAddress!) {
                    out.emailAddress = email
                } else {
                    add(11, invalid, .emailAddress, ContactMessages.render(.emailInvalid, language))
                }
            }
        }
        if problems.isEmpty { return ContactValidationResult(contact: out, errors: []) }
        let sorted = problems.enumerated().sorted { ($0.element.rank, $0.offset) < ($1.element.rank, $1.offset) }.map(
            \.element.error
        )
        return ContactValidationResult(contact: out, errors: sorted)
    }

    private struct RequiredFields {
        let mask: UInt8
        func contains(_ f: ApplePayContactField) -> Bool { mask & ContactValidator.bit(f) != 0 }
    }

    private static func bit(_ f: ApplePayContactField) -> UInt8 {
        switch f {
        case .email: return 1
        case .name: return 2
        case .phone: return 4
        case .phoneticName: return 8
        case .postalAddress: return 16
        }
    }

    private func validateAddress(
        _ contact: ApplePayPaymentContact,
        _ rules: CountryAddressRules,
        phase: ContactValidationPhase,
        role: ContactRole,
        into out: inout ApplePayPaymentContact,
        add: (Int, ApplePayErrorCode, ApplePayErrorContactField?, String) -> Void
    ) {
        let language = policy.language
        let invalid: ApplePayErrorCode = role == .shipping ? .shippingContactInvalid : .billingContactInvalid
        func render(_ key: MessageKey, _ field: String? = nil) -> String {
            ContactMessages.render(
                key,
                language,
                field: field,
                postalType: rules.postalNameType,
                areaType: rules.areaNameType,
                country: Countries.name(rules.code, language)
            )
        }

        // Postal code.
        var postal: String?
        var postalIsPartial = false
        if !rules.allowed.contains("Z") {
            // The country has no postal codes: whatever was typed is irrelevant.
        } else if isBlank(contact.postalCode) {
            if rules.required.contains("Z") { add(4, invalid, .postalCode, render(.required, "postalCode")) }
        } else {
            switch PostalAddresses.postalCode(
                contact.postalCode!,
                rules,
                phase: phase,
                fiveDigitZIP: policy.fiveDigitZIP
            ) {
            case .valid(let code):
                postal = code
                out.postalCode = code
            case .partial(let code):
                postal = code
                postalIsPartial = true
                out.postalCode = code
            case .invalid:
                add(4, invalid, .postalCode, render(.postalCodeInvalid))
            }
        }

        // Administrative area: named, or inferred from the postal code.
        var area: Int?
        if !rules.allowed.contains("S") {
            // No administrative area in this country's addresses: ignore it.
        } else if !rules.subdivisions.isEmpty {
            if !isBlank(contact.administrativeArea) {
                area = PostalAddresses.subdivision(contact.administrativeArea!, rules)
                if area == nil {
                    add(5, invalid, .administrativeArea, render(.areaUnknown))
                }
            }
            if let postal, !postalIsPartial || rules.code == "CA" {
                if let areaIndex = area {
                    if let prefix = rules.subdivisions[areaIndex].postalPrefix, !prefix.matchesPrefix(postal) {
                        add(4, invalid, .postalCode, render(.postalCodeMismatch))
                    }
                } else if isBlank(contact.administrativeArea) {
                    let candidates = PostalAddresses.subdivisions(forPostalCode: postal, rules)
                    if candidates.count == 1 { area = candidates[0] }
                }
            }
            if let areaIndex = area {
                out.administrativeArea = rules.subdivisions[areaIndex].key
                if role == .shipping, let served = policy.regions?[rules.code],
                    !served.contains(where: { PostalAddresses.subdivision($0, rules) == areaIndex })
                {
                    add(1, .addressUnserviceable, .administrativeArea, render(.areaUnserviceable))
                }
            } else if isBlank(contact.administrativeArea), rules.required.contains("S") {
                add(5, invalid, .administrativeArea, render(.required, "administrativeArea"))
            }
        } else if isBlank(contact.administrativeArea), rules.required.contains("S") {
            add(5, invalid, .administrativeArea, render(.required, "administrativeArea"))
        }

        // City.
        if rules.allowed.contains("C"), isBlank(contact.locality), rules.required.contains("C") {
            add(6, invalid, .locality, render(.required, "locality"))
        }

        // Street: only after authorization.
        if phase == .full {
            let lines = (contact.addressLines ?? []).filter { !isBlank($0) }
            if lines.isEmpty, rules.required.contains("A") {
                add(7, invalid, .addressLines, render(.required, "addressLines"))
            } else if role == .shipping, policy.refusePOBoxes, PostalAddresses.isPOBox(lines) {
                add(2, .addressUnserviceable, .addressLines, render(.poBox))
            }
        }
    }
}
