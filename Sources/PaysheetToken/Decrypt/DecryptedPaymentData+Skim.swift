import PaysheetModel
import PaysheetTokenFormat

extension DecryptedPaymentData {
    /// Decrypted JSON read into typed data: in place (``JSONSkim``) when the document is plain
    /// and holds nothing the skim leaves to the parser, else parsed by ``init(json:)``, whose
    /// errors say what is wrong.
    package static func read(_ plaintext: [UInt8]) throws(PaymentTokenError) -> DecryptedPaymentData {
        if let data = DecryptedPaymentData(skimming: plaintext) { return data }
        let json: JSONValue
        do { json = try JSONParser.parse(plaintext) } catch {
            throw PaymentTokenError(.decryption, "the decrypted data is not JSON (\(error.description))")
        }
        return try DecryptedPaymentData(json: json)
    }

    /// `plaintext` read in place, or `nil` when it is not of the skim's plain shape, has
    /// `authenticationResponses` or `merchantTokenMetadata` (left to the parser), or is not data
    /// ``init(json:)`` accepts. Where it answers, it answers what that initializer does
    /// (`TokenSkimTests`), by the same rules; ``json`` is parsed from the text when asked for.
    init?(skimming plaintext: [UInt8]) {
        guard let skim = JSONSkim.read(plaintext), case .object(let object) = skim.root,
            skim.member("authenticationResponses", of: object) == nil,
            skim.member("merchantTokenMetadata", of: object) == nil
        else { return nil }
        /// A string member: `nil` when absent, `.none` (fail) when of another type.
        func string(_ key: StaticString, in object: JSONSkim.Object) -> String?? {
            switch skim.member(key, of: object) {
            case nil: return .some(nil)
            case .string(let range)?: return .some(skim.text(range))
            default: return .none
            }
        }
        func digits(_ text: String) -> Bool { text.utf8.allSatisfy(Self.isDigit) }
        guard let accountNumber = string("applicationPrimaryAccountNumber", in: object) ?? nil,
            !accountNumber.isEmpty, digits(accountNumber),
            let expiration = string("applicationExpirationDate", in: object) ?? nil,
            expiration.utf8.count == 6, digits(expiration),
            let currencyCode = string("currencyCode", in: object) ?? nil,
            case .number(let amountText)? = skim.member("transactionAmount", of: object),
            let amount = Int(skim.text(amountText)), amount >= 0,
            let cardholderName = string("cardholderName", in: object),
            let manufacturer = string("deviceManufacturerIdentifier", in: object),
            let typeText = string("paymentDataType", in: object) ?? nil,
            let type = DataType(rawValue: typeText),
            case .object(let details)? = skim.member("paymentData", of: object),
            let merchantTokenIdentifier = string("merchantTokenIdentifier", in: object)
        else { return nil }
        switch type {
        case .threeDSecure:
            guard let cryptogram = string("onlinePaymentCryptogram", in: details) ?? nil,
                let eci = string("eciIndicator", in: details)
            else { return nil }
            self.details = .threeDSecure(onlinePaymentCryptogram: cryptogram, eciIndicator: eci)
        case .emv:
            guard let emvData = string("emvData", in: details) ?? nil,
                let pin = string("encryptedPINData", in: details)
            else { return nil }
            self.details = .emv(emvData: emvData, encryptedPINData: pin)
        }
        applicationPrimaryAccountNumber = accountNumber
        applicationExpirationDate = expiration
        self.currencyCode = currencyCode
        transactionAmount = amount
        self.cardholderName = cardholderName
        deviceManufacturerIdentifier = manufacturer ?? ""
        paymentDataType = type
        authenticationResponses = nil
        self.merchantTokenIdentifier = merchantTokenIdentifier
        merchantTokenMetadata = nil
        storage = .text(plaintext)
    }
}
