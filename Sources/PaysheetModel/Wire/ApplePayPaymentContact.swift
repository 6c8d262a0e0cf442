/// A shipping or billing contact (`ApplePayPaymentContact`).
///
/// `addressLines` holds the street and an optional building or room line, as PassKit splits the
/// street on newlines.
public struct ApplePayPaymentContact: Codable, Sendable, Hashable {
    /// Phone number as the user typed it.
    public var phoneNumber: String?
    /// Email address.
    public var emailAddress: String?
    /// Given name.
    public var givenName: String?
    /// Family name.
    public var familyName: String?
    /// Phonetic given name (API version 3+).
    public var phoneticGivenName: String?
    /// Phonetic family name (API version 3+).
    public var phoneticFamilyName: String?
    /// Street lines.
    public var addressLines: [String]?
    /// District or neighbourhood.
    public var subLocality: String?
    /// City.
    public var locality: String?
    /// Postal code.
    public var postalCode: String?
    /// County or similar.
    public var subAdministrativeArea: String?
    /// State, province or prefecture.
    public var administrativeArea: String?
    /// Country name.
    public var country: String?
    /// ISO 3166 country code.
    public var countryCode: String?

    /// A contact; every field is optional.
    public init(
        phoneNumber: String? = nil,
        emailAddress: String? = nil,
        givenName: String? = nil,
        familyName: String? = nil,
        phoneticGivenName: String? = nil,
        phoneticFamilyName: String? = nil,
        addressLines: [String]? = nil,
        subLocality: String? = nil,
        locality: String? = nil,
        postalCode: String? = nil,
        subAdministrativeArea: String? = nil,
        administrativeArea: String? = nil,
        country: String? = nil,
        countryCode: String? = nil
    ) {
        self.phoneNumber = phoneNumber
        self.emailAddress = emailAddress
        self.givenName = givenName
        self.familyName = familyName
        self.phoneticGivenName = phoneticGivenName
        self.phoneticFamilyName = phoneticFamilyName
        self.addressLines = addressLines
        self.subLocality = subLocality
        self.locality = locality
        self.postalCode = postalCode
        self.subAdministrativeArea = subAdministrativeArea
        self.administrativeArea = administrativeArea
        self.country = country
        self.countryCode = countryCode
    }

    /// Whether the contact has a postal address (street or city or postal code).
    public var hasPostalAddress: Bool {
        !(addressLines ?? []).isEmpty || !(locality ?? "").isEmpty || !(postalCode ?? "").isEmpty
    }
}
