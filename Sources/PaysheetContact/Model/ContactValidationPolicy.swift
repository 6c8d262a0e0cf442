import PaysheetModel

/// When a contact is validated: before authorization (the redacted contact the sheet gives
/// `shippingcontactselected`: locality, postal code, area, country only, postal codes possibly
/// shortened) or after it (the full contact of `paymentauthorized`).
public enum ContactValidationPhase: String, Sendable, Codable, CaseIterable {
    /// Before authorization.
    case redacted
    /// After authorization.
    case full
}

/// Whether the contact is where goods go (errors `shippingContactInvalid`, and the policy's
/// service area applies) or the card's billing address (`billingContactInvalid`).
public enum ContactRole: String, Sendable, Codable {
    /// The shipping contact.
    case shipping
    /// The billing contact.
    case billing
}

/// What a merchant decides: where it ships, whether P.O. boxes are refused, which fields it
/// requires and how postal codes and messages are written. Decodable from the JSON of
/// `paysheet contact validate --country-policy FILE`.
public struct ContactValidationPolicy: Sendable, Codable, Equatable {
    /// ISO country codes shipped to; `nil` ships everywhere.
    public var countries: [String]?
    /// Per country, the subdivision keys shipped to (`{"US": ["CA", "OR"]}`); a country absent
    /// here ships to all its subdivisions.
    public var regions: [String: [String]]?
    /// Refuse P.O. boxes in shipping addresses.
    public var refusePOBoxes: Bool
    /// Fields always required, beside those the page requests.
    public var requiredFields: [ApplePayContactField]
    /// Shorten US ZIP+4 codes to five digits.
    public var fiveDigitZIP: Bool
    /// The language of messages.
    public var language: ContactMessageLanguage
    /// The region assumed for phone numbers without a country code when the contact names none.
    public var defaultPhoneRegion: String

    /// A policy; by default everything is served and messages are in English.
    public init(
        countries: [String]? = nil,
        regions: [String: [String]]? = nil,
        refusePOBoxes: Bool = false,
        requiredFields: [ApplePayContactField] = [],
        fiveDigitZIP: Bool = true,
        language: ContactMessageLanguage = .en,
        defaultPhoneRegion: String = "US"
    ) {
        self.countries = countries
        self.regions = regions
        self.refusePOBoxes = refusePOBoxes
        self.requiredFields = requiredFields
        self.fiveDigitZIP = fiveDigitZIP
        self.language = language
        self.defaultPhoneRegion = defaultPhoneRegion
    }

    enum CodingKeys: String, CodingKey {
        case countries, regions, refusePOBoxes, requiredFields, fiveDigitZIP, language, defaultPhoneRegion
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            countries: try c.decodeIfPresent([String].self, forKey: .countries),
            regions: try c.decodeIfPresent([String: [String]].self, forKey: .regions),
            refusePOBoxes: try c.decodeIfPresent(Bool.self, forKey: .refusePOBoxes) ?? false,
            requiredFields: try c.decodeIfPresent([ApplePayContactField].self, forKey: .requiredFields) ?? [],
            fiveDigitZIP: try c.decodeIfPresent(Bool.self, forKey: .fiveDigitZIP) ?? true,
            language: try c.decodeIfPresent(ContactMessageLanguage.self, forKey: .language) ?? .en,
            defaultPhoneRegion: try c.decodeIfPresent(String.self, forKey: .defaultPhoneRegion) ?? "US"
        )
    }
}

/// A validated contact: normalised, with the errors to give the sheet, most important first.
public struct ContactValidationResult: Sendable, Equatable {
    /// The contact with every field in its canonical form (postal code, area key, country code,
    /// E.164 phone, trimmed email, katakana phonetic names).
    public var contact: ApplePayPaymentContact
    /// The problems, most important first; empty when the contact is good.
    public var errors: [ApplePayError]
}
