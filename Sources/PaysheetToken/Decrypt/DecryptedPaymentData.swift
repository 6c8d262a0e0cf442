import PaysheetModel
import PaysheetTokenFormat

/// The decrypted `data` of a payment token: the device account number, its cryptogram and the
/// amount the user saw. It holds a DPAN and a cryptogram: never log or store it; its
/// `description` shows only the last four digits.
public struct DecryptedPaymentData: Sendable, Equatable {
    /// `paymentDataType`.
    public enum DataType: String, Sendable, Equatable {
        /// Card payments outside China: an online cryptogram.
        case threeDSecure = "3DSecure"
        /// China: EMV data (and, with RSA_v1, an encrypted PIN block).
        case emv = "EMV"
    }

    /// `paymentData`, by type.
    public enum Details: Sendable, Equatable {
        /// `onlinePaymentCryptogram` (Base64) and the optional `eciIndicator`, which must be passed on.
        case threeDSecure(onlinePaymentCryptogram: String, eciIndicator: String?)
        /// `emvData` (Base64) and the optional `encryptedPINData` (hexadecimal).
        case emv(emvData: String, encryptedPINData: String?)
    }

    /// One entry of `authenticationResponses` (multi-merchant payments).
    public struct AuthenticationResponse: Sendable, Equatable {
        /// `merchantIdentifier`.
        public var merchantIdentifier: String
        /// `authenticationData` (Base64).
        public var authenticationData: String
        /// `transactionAmount`, as Apple writes it (a string).
        public var transactionAmount: String

        /// A response.
        public init(merchantIdentifier: String, authenticationData: String, transactionAmount: String) {
            self.merchantIdentifier = merchantIdentifier
            self.authenticationData = authenticationData
            self.transactionAmount = transactionAmount
        }
    }

    /// `applicationPrimaryAccountNumber`: the device account number (DPAN) or merchant token.
    public var applicationPrimaryAccountNumber: String
    /// `applicationExpirationDate`, `YYMMDD`.
    public var applicationExpirationDate: String
    /// `currencyCode`: ISO 4217 numeric code, as text (`"840"`).
    public var currencyCode: String
    /// `transactionAmount`, in the currency's minor units.
    public var transactionAmount: Int
    /// `cardholderName`.
    public var cardholderName: String?
    /// `deviceManufacturerIdentifier` (hexadecimal).
    public var deviceManufacturerIdentifier: String
    /// `paymentDataType`.
    public var paymentDataType: DataType
    /// `paymentData`.
    public var details: Details
    /// `authenticationResponses`.
    public var authenticationResponses: [AuthenticationResponse]?
    /// `merchantTokenIdentifier` (merchant-token requests).
    public var merchantTokenIdentifier: String?
    /// `merchantTokenMetadata` (merchant-token requests): card art, the funding card's suffix and expiry.
    public var merchantTokenMetadata: MerchantTokenMetadata?
    /// The decrypted JSON exactly as it was (member order kept), including members not listed here.
    public var json: JSONValue {
        get {
            switch storage {
            case .value(let value): return value
            case .text(let bytes):
                // Text the skim read: the parser accepts whatever the skim does (JSONSkimTests);
                // a debug build says so if that ever stops being true.
                guard let value = try? JSONParser.parse(bytes) else {
                    assertionFailure("the skim read text the parser refuses")
                    return .null
                }
                return value
            }
        }
        set { storage = .value(newValue) }
    }

    /// The decrypted JSON as parsed, or as text when it was read in place (parsed when asked for).
    enum Storage: Sendable {
        case value(JSONValue)
        case text([UInt8])
    }
    var storage: Storage

    /// Whether this is a merchant token (MPAN): the account number is the merchant's own token,
    /// which the merchant may charge later without the shopper (recurring, automatic reload,
    /// deferred payments), and must protect as a card credential.
    public var isMerchantToken: Bool { merchantTokenIdentifier != nil }

    /// The last four digits of the account number.
    public var accountNumberSuffix: String { String(applicationPrimaryAccountNumber.suffix(4)) }

    /// An ASCII digit, read on UTF-8 (a `Character` test breaks graphemes first).
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// Reads decrypted JSON. Errors say which member is missing or of the wrong type.
    public init(json value: JSONValue) throws(PaymentTokenError) {
        guard let object = value.objectValue else {
            throw PaymentTokenError(.decryption, "the decrypted data is \(value.kindName), not a JSON object")
        }
        func fail(_ what: String) -> PaymentTokenError {
            PaymentTokenError(.decryption, "the decrypted data's \(what)")
        }
        func string(_ key: String, in members: JSONObject, at prefix: String = "") throws(PaymentTokenError) -> String?
        {
            guard let value = members[key] else { return nil }
            guard let text = value.stringValue else { throw fail("\(prefix)\(key) is \(value.kindName), not a string") }
            return text
        }
        func required(_ key: String, in members: JSONObject, at prefix: String = "") throws(PaymentTokenError) -> String
        {
            guard let text = try string(key, in: members, at: prefix) else { throw fail("\(prefix)\(key) is missing") }
            return text
        }
        applicationPrimaryAccountNumber = try required("applicationPrimaryAccountNumber", in: object)
        guard !applicationPrimaryAccountNumber.isEmpty, applicationPrimaryAccountNumber.utf8.allSatisfy(Self.isDigit)
        else {
            throw fail("applicationPrimaryAccountNumber is not a string of digits")
        }
        applicationExpirationDate = try required("applicationExpirationDate", in: object)
        guard applicationExpirationDate.utf8.count == 6, applicationExpirationDate.utf8.allSatisfy(Self.isDigit) else {
            throw fail("applicationExpirationDate is not YYMMDD")
        }
        currencyCode = try required("currencyCode", in: object)
        guard let amount = object["transactionAmount"] else { throw fail("transactionAmount is missing") }
        guard case .number(let text) = amount, let minor = Int(text), minor >= 0 else {
            throw fail("transactionAmount is not a whole number of minor units")
        }
        transactionAmount = minor
        cardholderName = try string("cardholderName", in: object)
        deviceManufacturerIdentifier = try string("deviceManufacturerIdentifier", in: object) ?? ""
        let typeText = try required("paymentDataType", in: object)
        guard let type = DataType(rawValue: typeText) else {
            throw fail("paymentDataType is \"\(typeText)\", expected 3DSecure or EMV")
        }
        paymentDataType = type
        guard let detailsValue = object["paymentData"] else { throw fail("paymentData is missing") }
        guard let details = detailsValue.objectValue else {
            throw fail("paymentData is \(detailsValue.kindName), not an object")
        }
        switch type {
        case .threeDSecure:
            self.details = .threeDSecure(
                onlinePaymentCryptogram: try required("onlinePaymentCryptogram", in: details, at: "paymentData."),
                eciIndicator: try string("eciIndicator", in: details, at: "paymentData.")
            )
        case .emv:
            self.details = .emv(
                emvData: try required("emvData", in: details, at: "paymentData."),
                encryptedPINData: try string("encryptedPINData", in: details, at: "paymentData.")
            )
        }
        if let list = object["authenticationResponses"] {
            guard let array = list.arrayValue else { throw fail("authenticationResponses is not an array") }
            var responses: [AuthenticationResponse] = []
            for (index, item) in array.enumerated() {
                guard let members = item.objectValue else {
                    throw fail("authenticationResponses[\(index)] is not an object")
                }
                let path = "authenticationResponses[\(index)]."
                let amountText: String
                switch members["transactionAmount"] {
                case .string(let text): amountText = text
                case .number(let digits): amountText = digits
                default: throw fail("\(path)transactionAmount is missing")
                }
                responses.append(
                    AuthenticationResponse(
                        merchantIdentifier: try required("merchantIdentifier", in: members, at: path),
                        authenticationData: try required("authenticationData", in: members, at: path),
                        transactionAmount: amountText
                    )
                )
            }
            authenticationResponses = responses
        }
        merchantTokenIdentifier = try string("merchantTokenIdentifier", in: object)
        merchantTokenMetadata = try object["merchantTokenMetadata"].map { v throws(PaymentTokenError) in
            try MerchantTokenMetadata(json: v)
        }
        storage = .value(value)
    }

    /// The same data, member for member (``json`` compared as JSON, however it is held).
    public static func == (lhs: DecryptedPaymentData, rhs: DecryptedPaymentData) -> Bool {
        lhs.applicationPrimaryAccountNumber == rhs.applicationPrimaryAccountNumber
            && lhs.applicationExpirationDate == rhs.applicationExpirationDate && lhs.currencyCode == rhs.currencyCode
            && lhs.transactionAmount == rhs.transactionAmount && lhs.cardholderName == rhs.cardholderName
            && lhs.deviceManufacturerIdentifier == rhs.deviceManufacturerIdentifier
            && lhs.paymentDataType == rhs.paymentDataType && lhs.details == rhs.details
            && lhs.authenticationResponses == rhs.authenticationResponses
            && lhs.merchantTokenIdentifier == rhs.merchantTokenIdentifier
            && lhs.merchantTokenMetadata == rhs.merchantTokenMetadata && lhs.json == rhs.json
    }
}

extension DecryptedPaymentData: CustomStringConvertible, CustomDebugStringConvertible {
    /// A summary without the account number or cryptogram.
    public var description: String {
        "DecryptedPaymentData(account: ••••\(accountNumberSuffix), amount: \(transactionAmount), currency: \(currencyCode), type: \(paymentDataType.rawValue)\(isMerchantToken ? ", merchant token" : ""))"
    }
    public var debugDescription: String { description }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) && isASCII }
}
