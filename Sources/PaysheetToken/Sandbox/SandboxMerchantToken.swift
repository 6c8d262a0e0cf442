import Crypto
import Foundation
import PaysheetModel
import PaysheetTokenFormat

/// Sandbox merchant tokens (MPANs): what the sheet's token carries when the page asks for a
/// recurring, automatic-reload or deferred payment.
///
/// A merchant token is a card number the payment network issues for one card at one merchant:
/// it has the card's network prefix and length and passes the Luhn check, like a device account
/// number, but it is the same every time the same card pays the same merchant, so the merchant
/// can charge it later without the shopper. Here it is derived from the card's identity and the
/// merchant identifier's hash (HMAC-SHA-256), so it is stable per card and merchant and
/// different across merchants. A card whose device account number ends in a sandbox decline
/// code (`00xx`) keeps that ending, so the sandbox acquirer declines its merchant-initiated
/// charges as it declines its shopper-initiated ones. Nothing in it is a real card.
public enum SandboxMerchantToken {
    /// The image Apple's metadata points to; `.invalid` is a reserved domain: nothing is fetched.
    static let cardArtBase = "https://card-art.paysheet.invalid/"

    /// `payment` turned into a merchant-token payment for the card `cardIdentity` (its pass's
    /// primary account identifier, or its name) at the merchant whose identifier hashes to
    /// `merchantIdentifierHash`; `fpanSuffix` is the funding card's last four digits.
    public static func apply(
        to payment: SandboxPayment,
        cardIdentity: String,
        merchantIdentifierHash: [UInt8],
        fpanSuffix: String?,
        network: String
    ) -> SandboxPayment {
        var sample = payment
        let key = SymmetricKey(data: merchantIdentifierHash)
        let mac = Array(HMAC<SHA256>.authenticationCode(for: Data(("mpan|" + cardIdentity).utf8), using: key))
        let dpan = payment.accountNumber
        let length = dpan.count
        // The network's prefix (the device number's first four digits), digits from the MAC, a Luhn digit.
        var digits = dpan.prefix(4).map { Int(String($0))! }
        var index = 0
        while digits.count < length - 1 {
            digits.append(Int(mac[index % mac.count]) % 10)
            index += 1
        }
        let suffix = String(dpan.suffix(4))
        if suffix.hasPrefix("00") {
            digits = Array(digits.prefix(length - 4)) + suffix.map { Int(String($0))! }
            // One middle digit chosen so that the number passes the Luhn check.
            for digit in 0...9 {
                digits[4] = digit
                if Luhn.checkDigit(Array(digits.dropLast())) == digits.last! { break }
            }
        } else {
            // Never a decline ending for a card that is not a decline test card.
            if digits[length - 4] == 0 && digits[length - 3] == 0 { digits[length - 4] = 1 }
            digits = Array(digits.prefix(length - 1))
            digits.append(Luhn.checkDigit(digits))
        }
        sample.accountNumber = digits.map(String.init).joined()
        let idMac = Array(HMAC<SHA256>.authenticationCode(for: Data(("mtid|" + cardIdentity).utf8), using: key))
        sample.merchantTokenIdentifier = "SBXMT" + Hex.encode(Array(idMac.prefix(14))).uppercased().prefix(27)
        let expiry = payment.expirationDate
        sample.merchantTokenMetadata = MerchantTokenMetadata(
            cardArt: [
                MerchantTokenMetadata.CardArt(
                    name: "card-art",
                    type: "image/png",
                    url: cardArtBase + network.lowercased() + ".png"
                )
            ],
            expirationDate: String(expiry.dropFirst(2).prefix(2)) + "/" + String(expiry.prefix(2)),
            fpanSuffix: fpanSuffix
        )
        return sample
    }

    /// `authenticationResponses` for a multi-merchant payment: one random cryptogram per token
    /// context (`merchantIdentifier`, `amount` as the page wrote it).
    public static func authenticationResponses(
        _ contexts: [(merchantIdentifier: String, amount: String)]
    ) -> [DecryptedPaymentData.AuthenticationResponse] {
        contexts.map { c in
            let cryptogram = (0..<20).map { _ in UInt8.random(in: 0...255) }
            return DecryptedPaymentData.AuthenticationResponse(
                merchantIdentifier: c.merchantIdentifier,
                authenticationData: Base64.encode(cryptogram),
                transactionAmount: c.amount
            )
        }
    }
}
