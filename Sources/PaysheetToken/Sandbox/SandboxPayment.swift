import Foundation
import PaysheetModel
import PaysheetTokenFormat

/// The plaintext of a sandbox token: a test device account number (DPAN), a random cryptogram,
/// the amount and currency. Nothing in it is a real card.
public struct SandboxPayment: Sendable, Equatable {
    /// The test DPAN (Luhn-valid, with the network's prefix).
    public var accountNumber: String
    /// `YYMMDD`.
    public var expirationDate: String
    /// ISO 4217 numeric currency code (`"840"`).
    public var currencyCode: String
    /// Amount in minor units.
    public var transactionAmount: Int
    /// `cardholderName`, if any.
    public var cardholderName: String?
    /// `deviceManufacturerIdentifier`.
    public var deviceManufacturerIdentifier: String = "040010030273"
    /// `paymentData`.
    public var details: DecryptedPaymentData.Details
    /// `merchantTokenIdentifier`, for merchant-token requests.
    public var merchantTokenIdentifier: String?
    /// `merchantTokenMetadata`, for merchant-token requests.
    public var merchantTokenMetadata: MerchantTokenMetadata?
    /// `authenticationResponses`, for multi-merchant requests: one cryptogram per token context.
    public var authenticationResponses: [DecryptedPaymentData.AuthenticationResponse]?

    /// A payment from its parts.
    public init(
        accountNumber: String,
        expirationDate: String,
        currencyCode: String,
        transactionAmount: Int,
        cardholderName: String? = nil,
        details: DecryptedPaymentData.Details,
        merchantTokenIdentifier: String? = nil
    ) {
        self.accountNumber = accountNumber
        self.expirationDate = expirationDate
        self.currencyCode = currencyCode
        self.transactionAmount = transactionAmount
        self.cardholderName = cardholderName
        self.details = details
        self.merchantTokenIdentifier = merchantTokenIdentifier
    }

    /// A realistic payment for `network` (`visa`, `masterCard`, `amex`, `discover`, `jcb`,
    /// `chinaUnionPay`, …) of `amount` (decimal text, as in a line item) in `currency` (ISO
    /// 4217 alphabetic or numeric). China UnionPay payments use the EMV shape.
    /// `accountSuffix` (four digits) makes the DPAN end with them, as a wallet card's
    /// `deviceAccountNumberSuffix` says; the sandbox acquirer's decline rules key on it.
    public static func sample(
        network: String = "visa",
        amount: String,
        currency: String,
        cardholderName: String? = nil,
        accountSuffix: String? = nil,
        now: Date = Date()
    ) throws(PaymentTokenError) -> SandboxPayment {
        let (numeric, minor) = try minorUnits(amount: amount, currency: currency)
        let prefix: String
        var length = 16
        var eci: String? = "7"
        switch network.lowercased() {
        case "mastercard", "maestro":
            prefix = "5204"
            eci = nil
        case "amex":
            prefix = "3715"
            length = 15
            eci = nil
        case "discover":
            prefix = "6011"
            eci = nil
        case "jcb":
            prefix = "3569"
            eci = "7"
        case "chinaunionpay", "unionpay":
            prefix = "6212"
            length = 19
            eci = nil
        default: prefix = "4895"
        }
        var digits = prefix.map { Int(String($0))! }
        if let suffix = accountSuffix, suffix.count == 4, suffix.allSatisfy(\.isASCIIDigit) {
            // Random middle, the suffix last, and one middle digit chosen so the Luhn check holds.
            while digits.count < length - 4 { digits.append(Int.random(in: 0...9)) }
            digits += suffix.map { Int(String($0))! }
            let fix = prefix.count
            for digit in 0...9 {
                digits[fix] = digit
                if Luhn.checkDigit(Array(digits.dropLast())) == digits.last! { break }
            }
        } else {
            // Never "00xx" at the end: those are the sandbox acquirer's decline test cards.
            repeat {
                digits = prefix.map { Int(String($0))! }
                while digits.count < length - 1 { digits.append(Int.random(in: 0...9)) }
                digits.append(Luhn.checkDigit(digits))
            } while digits[length - 4] == 0 && digits[length - 3] == 0
        }
        let dpan = digits.map(String.init).joined()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let expiry = calendar.date(byAdding: .year, value: 3, to: now)!
        let components = calendar.dateComponents([.year, .month], from: expiry)
        let lastDay = calendar.range(of: .day, in: .month, for: expiry)!.count
        let expiration = String(format: "%02d%02d%02d", components.year! % 100, components.month!, lastDay)
        var cryptogram = [UInt8](repeating: 0, count: 20)
        for index in cryptogram.indices { cryptogram[index] = UInt8.random(in: 0...255) }
        let details: DecryptedPaymentData.Details
        if prefix == "6212" {
            var emv = [UInt8](repeating: 0, count: 96)
            for index in emv.indices { emv[index] = UInt8.random(in: 0...255) }
            details = .emv(emvData: Base64.encode(emv), encryptedPINData: nil)
        } else {
            details = .threeDSecure(onlinePaymentCryptogram: Base64.encode(cryptogram), eciIndicator: eci)
        }
        return SandboxPayment(
            accountNumber: dpan,
            expirationDate: expiration,
            currencyCode: numeric,
            transactionAmount: minor,
            cardholderName: cardholderName,
            details: details
        )
    }

    /// The numeric code of `currency` and `amount` in its minor units (`"1.00"`, `USD` → 100).
    public static func minorUnits(amount: String, currency: String) throws(PaymentTokenError) -> (String, Int) {
        guard let entry = Currency(currency) else {
            throw PaymentTokenError(.malformed, "\(currency) is not an ISO 4217 currency code")
        }
        do throws(AmountError) {
            return (entry.numeric, try entry.minor(amount))
        } catch {
            throw PaymentTokenError(.malformed, error.message)
        }
    }

    /// The plaintext JSON, members in Apple's order.
    public var jsonValue: JSONValue {
        var members = JSONObject()
        members["applicationPrimaryAccountNumber"] = .string(accountNumber)
        members["applicationExpirationDate"] = .string(expirationDate)
        members["currencyCode"] = .string(currencyCode)
        members["transactionAmount"] = .number(String(transactionAmount))
        if let cardholderName { members["cardholderName"] = .string(cardholderName) }
        members["deviceManufacturerIdentifier"] = .string(deviceManufacturerIdentifier)
        switch details {
        case .threeDSecure(let cryptogram, let eci):
            members["paymentDataType"] = "3DSecure"
            var paymentData = JSONObject()
            paymentData["onlinePaymentCryptogram"] = .string(cryptogram)
            if let eci { paymentData["eciIndicator"] = .string(eci) }
            members["paymentData"] = .object(paymentData)
        case .emv(let emv, let pin):
            members["paymentDataType"] = "EMV"
            var paymentData = JSONObject()
            paymentData["emvData"] = .string(emv)
            if let pin { paymentData["encryptedPINData"] = .string(pin) }
            members["paymentData"] = .object(paymentData)
        }
        if let authenticationResponses {
            members["authenticationResponses"] = .array(
                authenticationResponses.map { r in
                    [
                        "merchantIdentifier": .string(r.merchantIdentifier),
                        "authenticationData": .string(r.authenticationData),
                        "transactionAmount": .string(r.transactionAmount),
                    ]
                }
            )
        }
        if let merchantTokenIdentifier { members["merchantTokenIdentifier"] = .string(merchantTokenIdentifier) }
        if let merchantTokenMetadata { members["merchantTokenMetadata"] = merchantTokenMetadata.jsonValue }
        return .object(members)
    }
}

extension SandboxPayment: CustomStringConvertible {
    /// A summary without the account number or cryptogram.
    public var description: String {
        "SandboxPayment(account: ••••\(accountNumber.suffix(4)), amount: \(transactionAmount), currency: \(currencyCode))"
    }
}
