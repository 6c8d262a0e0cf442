import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// A phone number, as the Contacts framework's `CNPhoneNumber`.
open class CNPhoneNumber: NSObject, @unchecked Sendable {
    /// The number as written.
    public let stringValue: String

    /// A number from its text.
    public required init(stringValue: String) {
        self.stringValue = stringValue
        super.init()
    }

    /// A number from its text (`nil` for none).
    public class func phoneNumber(withStringValue stringValue: String) -> Self {
        Self(stringValue: stringValue)
    }

    public required convenience override init() { self.init(stringValue: "") }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? CNPhoneNumber)?.stringValue == stringValue
    }

    open override var description: String { "<CNPhoneNumber stringValue=\(stringValue)>" }
}
