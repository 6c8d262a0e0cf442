import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// A postal address, as the Contacts framework's `CNPostalAddress` (immutable).
open class CNPostalAddress: NSObject, @unchecked Sendable {
    /// The street name (lines separated by newlines).
    open internal(set) var street: String = ""
    /// The sub-locality (district).
    open internal(set) var subLocality: String = ""
    /// The city.
    open internal(set) var city: String = ""
    /// The sub-administrative area (county).
    open internal(set) var subAdministrativeArea: String = ""
    /// The state or province.
    open internal(set) var state: String = ""
    /// The postal code.
    open internal(set) var postalCode: String = ""
    /// The country's name.
    open internal(set) var country: String = ""
    /// The ISO 3166-1 alpha-2 country code.
    open internal(set) var isoCountryCode: String = ""

    public override init() { super.init() }

    /// The localized name of a `CNPostalAddress…Key`.
    open class func localizedString(forKey key: String) -> String {
        switch key {
        case CNPostalAddressStreetKey: return "Street"
        case CNPostalAddressSubLocalityKey: return "Sub-locality"
        case CNPostalAddressCityKey: return "City"
        case CNPostalAddressSubAdministrativeAreaKey: return "Sub-administrative area"
        case CNPostalAddressStateKey: return "State"
        case CNPostalAddressPostalCodeKey: return "Postal code"
        case CNPostalAddressCountryKey: return "Country"
        case CNPostalAddressISOCountryCodeKey: return "ISO country code"
        default: return key
        }
    }

    /// A mutable copy.
    open override func mutableCopy() -> Any {
        let copy = CNMutablePostalAddress()
        copy.copyFields(from: self)
        return copy
    }

    open override func copy() -> Any {
        let copy = CNPostalAddress()
        copy.copyFields(from: self)
        return copy
    }

    func copyFields(from other: CNPostalAddress) {
        street = other.street
        subLocality = other.subLocality
        city = other.city
        subAdministrativeArea = other.subAdministrativeArea
        state = other.state
        postalCode = other.postalCode
        country = other.country
        isoCountryCode = other.isoCountryCode
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CNPostalAddress else { return false }
        return street == other.street && subLocality == other.subLocality && city == other.city
            && subAdministrativeArea == other.subAdministrativeArea && state == other.state
            && postalCode == other.postalCode && country == other.country && isoCountryCode == other.isoCountryCode
    }

    open override var description: String {
        "<CNPostalAddress street=\(street) city=\(city) state=\(state) postalCode=\(postalCode) country=\(country) isoCountryCode=\(isoCountryCode)>"
    }
}

/// A postal address that can be changed, as `CNMutablePostalAddress`.
open class CNMutablePostalAddress: CNPostalAddress, @unchecked Sendable {
    open override var street: String {
        get { super.street }
        set { super.street = newValue }
    }
    open override var subLocality: String {
        get { super.subLocality }
        set { super.subLocality = newValue }
    }
    open override var city: String {
        get { super.city }
        set { super.city = newValue }
    }
    open override var subAdministrativeArea: String {
        get { super.subAdministrativeArea }
        set { super.subAdministrativeArea = newValue }
    }
    open override var state: String {
        get { super.state }
        set { super.state = newValue }
    }
    open override var postalCode: String {
        get { super.postalCode }
        set { super.postalCode = newValue }
    }
    open override var country: String {
        get { super.country }
        set { super.country = newValue }
    }
    open override var isoCountryCode: String {
        get { super.isoCountryCode }
        set { super.isoCountryCode = newValue }
    }
}

/// The keys of a postal address's fields (`paymentShippingAddressInvalidError(withKey:…)`).
public let CNPostalAddressStreetKey = "street"
/// See ``CNPostalAddressStreetKey``.
public let CNPostalAddressSubLocalityKey = "subLocality"
/// See ``CNPostalAddressStreetKey``.
public let CNPostalAddressCityKey = "city"
/// See ``CNPostalAddressStreetKey``.
public let CNPostalAddressSubAdministrativeAreaKey = "subAdministrativeArea"
/// See ``CNPostalAddressStreetKey``.
public let CNPostalAddressStateKey = "state"
/// See ``CNPostalAddressStreetKey``.
public let CNPostalAddressPostalCodeKey = "postalCode"
/// See ``CNPostalAddressStreetKey``.
public let CNPostalAddressCountryKey = "country"
/// See ``CNPostalAddressStreetKey``.
public let CNPostalAddressISOCountryCodeKey = "ISOCountryCode"
