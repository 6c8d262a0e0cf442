/// An error the page reports to the sheet (`ApplePayError`).
public struct ApplePayError: Codable, Sendable, Hashable {
    /// What kind of problem.
    public var code: ApplePayErrorCode
    /// The contact field at fault, if any.
    public var contactField: ApplePayErrorContactField?
    /// The text the sheet shows under the field; `""` by default.
    public var message: String

    /// `new ApplePayError(code, contactField, message)`.
    public init(_ code: ApplePayErrorCode, contactField: ApplePayErrorContactField? = nil, message: String = "") {
        self.code = code
        self.contactField = contactField
        self.message = message
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        code = try c.decode(ApplePayErrorCode.self, forKey: .code)
        contactField = try c.decodeIfPresent(ApplePayErrorContactField.self, forKey: .contactField)
        message = try c.decodeIfPresent(String.self, forKey: .message) ?? ""
    }
}

/// Why a session ended, carried by the `cancel` event (`ApplePaySessionError`).
public struct ApplePaySessionError: Codable, Sendable, Hashable {
    /// `"unknown"` in every case Paysheet simulates.
    public var code: String
    /// Extra information; empty.
    public var info: [String: String]
    /// A session error.
    public init(code: String = "unknown", info: [String: String] = [:]) {
        self.code = code
        self.info = info
    }
}
