/// What a consume charges: a card from a decrypted Apple Pay token, or a merchant token stored
/// under an agreement the shopper made.
///
/// It holds a DPAN or MPAN and a cryptogram: it is built in memory, handed to
/// ``UnionPayClient/consume(orderId:txnTime:amount:currencyCode:instrument:reserved:)``, and never
/// stored or logged. Its descriptions (`print`, string interpolation, `dump`, `debugPrint`) show
/// the kind and the last four digits only.
public enum PaymentInstrument: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// A card in a decrypted Apple Pay token: sent as UnionPay's payment data field
    /// (``UnionPayConfiguration/paymentDataField``), encrypted to UnionPay's encryption
    /// certificate when the client has one.
    case card(CardData)
    /// A merchant token (MPAN) the merchant charges without the shopper: UnionPay's token payment
    /// (`bizType` `000902`), the token in `tokenPayData` with its expiry (`YYMMDD`).
    case merchantToken(token: String, expiration: String)

    /// The kind and the last four digits; no card data.
    public var description: String {
        switch self {
        case .card(let card): card.description
        case .merchantToken(let token, _): "merchant token \(CardData.lastFour(token)) (redacted)"
        }
    }

    /// As ``description``.
    public var debugDescription: String { description }

    /// A mirror with ``description`` only, so that `dump` shows no card data.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description]) }
}

/// A card's data from a decrypted Apple Pay token: the account number (DPAN), its expiry and how
/// the payment was authenticated. Its descriptions show the last four digits only.
public struct CardData: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// How the shopper's device authenticated the payment.
    public enum Authentication: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// 3-D Secure: the online payment cryptogram and, when the network gives one, the ECI.
        case threeDSecure(cryptogram: String, eci: String?)
        /// EMV (China): the EMV data and, when the device took a PIN, the encrypted PIN block.
        case emv(data: String, pinBlock: String?)

        /// The kind only.
        public var description: String {
            switch self {
            case .threeDSecure: "3-D Secure"
            case .emv: "EMV"
            }
        }

        /// As ``description``.
        public var debugDescription: String { description }

        /// A mirror with ``description`` only.
        public var customMirror: Mirror { Mirror(self, children: ["redacted": description]) }
    }

    /// The account number (the DPAN).
    public var accountNumber: String
    /// The expiry, `YYMM`.
    public var expiration: String
    /// The cryptogram and ECI, or the EMV data and PIN block.
    public var authentication: Authentication

    /// A card. `expiration` is `YYMM`; a `YYMMDD` date (Apple Pay's `applicationExpirationDate`)
    /// is cut to its month.
    public init(accountNumber: String, expiration: String, authentication: Authentication) {
        self.accountNumber = accountNumber
        self.expiration = String(expiration.prefix(4))
        self.authentication = authentication
    }

    /// The kind and the last four digits of the account number; no card data.
    public var description: String { "card \(Self.lastFour(accountNumber)) (\(authentication), redacted)" }

    /// As ``description``.
    public var debugDescription: String { description }

    /// A mirror with ``description`` only, so that `dump` shows no card data.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description]) }

    /// `…1234`, or `…` for a number shorter than ten digits (whose last four would say too much).
    static func lastFour(_ number: String) -> String {
        number.count >= 10 ? "…" + String(number.suffix(4)) : "…"
    }

    /// UnionPay's payment data field of the card, in clear: `accNo`, `expired` and either
    /// `cryptogram` + `eci` or `emvData` + `pinBlock` (empty values left out). Refuses a value the
    /// `{key=value&…}` syntax cannot carry (``PaymentDataField/checkCarriable()``).
    func field() throws(ACPError) -> PaymentDataField {
        var values = ["accNo": accountNumber, "expired": expiration]
        switch authentication {
        case .threeDSecure(let cryptogram, let eci):
            values["cryptogram"] = cryptogram
            values["eci"] = eci ?? ""
        case .emv(let data, let pinBlock):
            values["emvData"] = data
            values["pinBlock"] = pinBlock ?? ""
        }
        let field = PaymentDataField(values)
        try field.checkCarriable()
        return field
    }
}
