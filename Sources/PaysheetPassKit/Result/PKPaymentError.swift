import Foundation

/// PassKit's payment error domain.
public let PKPaymentErrorDomain = "PKPaymentErrorDomain"

/// The `userInfo` keys of a ``PKPaymentError``.
public struct PKPaymentErrorKey: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The ``PKContactField`` at fault.
    public static let contactFieldUserInfoKey = PKPaymentErrorKey(rawValue: "PKPaymentErrorContactField")
    /// The `CNPostalAddress…Key` at fault.
    public static let postalAddressUserInfoKey = PKPaymentErrorKey(rawValue: "PKPaymentErrorPostalAddress")
}

/// An error of the payment sheet (`PKPaymentError`), in `PKPaymentErrorDomain`.
public struct PKPaymentError: Error, CustomNSError, Hashable, @unchecked Sendable {
    // `@unchecked`: immutable, but its `userInfo` is `[String: Any]`, as `CustomNSError`'s is.
    /// The codes.
    public enum Code: Int, Sendable, Hashable {
        case unknownError = -1
        case shippingContactInvalidError = 1
        case billingContactInvalidError = 2
        case shippingAddressUnserviceableError = 3
        case couponCodeInvalidError = 4
        case couponCodeExpiredError = 5
    }

    public static var errorDomain: String { PKPaymentErrorDomain }
    public static var unknownError: Code { .unknownError }
    public static var shippingContactInvalidError: Code { .shippingContactInvalidError }
    public static var billingContactInvalidError: Code { .billingContactInvalidError }
    public static var shippingAddressUnserviceableError: Code { .shippingAddressUnserviceableError }
    public static var couponCodeInvalidError: Code { .couponCodeInvalidError }
    public static var couponCodeExpiredError: Code { .couponCodeExpiredError }

    /// The code.
    public let code: Code
    /// What the error carries (``PKPaymentErrorKey``s, `NSLocalizedDescriptionKey`).
    public let userInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    init(_ code: Code, userInfo: [String: Any], localizedDescription: String?) {
        var info = userInfo
        if let localizedDescription { info[NSLocalizedDescriptionKey] = localizedDescription }
        self.init(code, userInfo: info)
    }

    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }

    /// The contact field at fault.
    public var contactField: PKContactField? {
        (userInfo[PKPaymentErrorKey.contactFieldUserInfoKey.rawValue] as? String).map(PKContactField.init(rawValue:))
    }
    /// The postal address field at fault.
    public var postalAddressField: String? { userInfo[PKPaymentErrorKey.postalAddressUserInfoKey.rawValue] as? String }
    /// The message the sheet shows.
    public var localizedDescription: String? { userInfo[NSLocalizedDescriptionKey] as? String }

    public static func == (a: PKPaymentError, b: PKPaymentError) -> Bool {
        a.code == b.code && a.contactField == b.contactField && a.postalAddressField == b.postalAddressField
            && a.localizedDescription == b.localizedDescription
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(contactField)
        hasher.combine(postalAddressField)
    }
}

/// The outcome a delegate reports (`PKPaymentAuthorizationStatus`); the values after `failure`
/// are deprecated in favour of errors.
public enum PKPaymentAuthorizationStatus: Int, Sendable {
    case success = 0
    case failure = 1
    @available(*, deprecated, message: "Use errors")
    case invalidBillingPostalAddress = 2
    @available(*, deprecated, message: "Use errors")
    case invalidShippingPostalAddress = 3
    @available(*, deprecated, message: "Use errors")
    case invalidShippingContact = 4
    case pinRequired = 5
    case pinIncorrect = 6
    case pinLockout = 7
}
