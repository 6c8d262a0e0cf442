import PaysheetModel

/// An error a sheet module shows: a title in capitals and a message.
public struct ModuleError: Sendable, Hashable, Codable {
    /// e.g. `SHIPPING ADDRESS INVALID`.
    public var title: String
    /// e.g. `Zip code doesn't match city`.
    public var message: String

    /// A module error.
    public init(title: String, message: String) {
        self.title = title
        self.message = message
    }
}

/// The sheet's modules (`docs/payment-sheet.md` §1), plus the coupon field of newer versions.
public enum SheetModule: String, Sendable, Hashable, CaseIterable {
    case card, shipping, method, contact, coupon, summary

    /// The module that shows an error on `field` (`docs/payment-sheet.md` §2).
    public static func owner(of field: ApplePayErrorContactField) -> SheetModule {
        switch field {
        case .phoneNumber, .emailAddress, .postalAddress: return .contact
        default: return .shipping
        }
    }
}
