import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// A contact of the sheet (`PKContact`): name (with its phonetic representation), postal
/// address, email, phone. Before the shopper authorizes, a shipping contact the delegate receives
/// is redacted as iOS redacts it (see docs/passkit.md).
open class PKContact: NSObject, @unchecked Sendable {
    /// The name; `phoneticRepresentation` carries the phonetic name when the sheet asked for it.
    open var name: PersonNameComponents?
    /// The postal address.
    open var postalAddress: CNPostalAddress?
    /// The email address.
    open var emailAddress: String?
    /// The phone number.
    open var phoneNumber: CNPhoneNumber?
    /// Deprecated: part of `postalAddress.subLocality`.
    @available(*, deprecated, message: "Use postalAddress.subLocality")
    open var supplementarySubLocality: String? {
        get { postalAddress?.subLocality }
        set {}
    }

    public override init() { super.init() }

    open override var description: String {
        var parts: [String] = []
        if let name {
            parts.append("name=\([name.givenName, name.familyName].compactMap { $0 }.joined(separator: " "))")
        }
        if let postalAddress { parts.append("postalAddress=\(postalAddress.city), \(postalAddress.isoCountryCode)") }
        if let emailAddress { parts.append("email=\(emailAddress)") }
        if let phoneNumber { parts.append("phone=\(phoneNumber.stringValue)") }
        return "<PKContact \(parts.joined(separator: " "))>"
    }
}
