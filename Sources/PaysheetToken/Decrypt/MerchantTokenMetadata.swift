import PaysheetModel
import PaysheetTokenFormat

/// `merchantTokenMetadata` of a merchant-token payment (Apple's `MerchantTokenMetadata`): the
/// card's art and the funding card's last digits and expiry, for showing the stored card to
/// the shopper. It holds no account number.
public struct MerchantTokenMetadata: Sendable, Equatable {
    /// One image of the card.
    public struct CardArt: Sendable, Equatable {
        /// `name`.
        public var name: String?
        /// `type` (a media type, `image/png`).
        public var type: String?
        /// `url`.
        public var url: String?

        /// An image.
        public init(name: String?, type: String?, url: String?) {
            self.name = name
            self.type = type
            self.url = url
        }
    }

    /// `cardArt`.
    public var cardArt: [CardArt]
    /// `cardMetadata.expirationDate` of the funding card.
    public var expirationDate: String?
    /// `cardMetadata.fpanSuffix`: the funding card's last four digits.
    public var fpanSuffix: String?

    /// Metadata from its parts.
    public init(cardArt: [CardArt], expirationDate: String?, fpanSuffix: String?) {
        self.cardArt = cardArt
        self.expirationDate = expirationDate
        self.fpanSuffix = fpanSuffix
    }

    /// Reads the member; unknown members are ignored, a wrong shape is an error naming it.
    public init(json value: JSONValue) throws(PaymentTokenError) {
        func fail(_ what: String) -> PaymentTokenError {
            PaymentTokenError(.decryption, "the decrypted data's merchantTokenMetadata.\(what)")
        }
        guard let o = value.objectValue else { throw fail("is not an object") }
        var art: [CardArt] = []
        if let list = o["cardArt"] {
            guard let items = list.arrayValue else { throw fail("cardArt is not an array") }
            for (i, item) in items.enumerated() {
                guard let a = item.objectValue else { throw fail("cardArt[\(i)] is not an object") }
                art.append(
                    CardArt(name: a["name"]?.stringValue, type: a["type"]?.stringValue, url: a["url"]?.stringValue)
                )
            }
        }
        var expiry: String?
        var suffix: String?
        if let m = o["cardMetadata"] {
            guard let c = m.objectValue else { throw fail("cardMetadata is not an object") }
            expiry = c["expirationDate"]?.stringValue
            suffix = c["fpanSuffix"]?.stringValue
        }
        self.init(cardArt: art, expirationDate: expiry, fpanSuffix: suffix)
    }

    /// The member as Apple writes it.
    public var jsonValue: JSONValue {
        var card = JSONObject()
        if let expirationDate { card["expirationDate"] = .string(expirationDate) }
        if let fpanSuffix { card["fpanSuffix"] = .string(fpanSuffix) }
        var o = JSONObject()
        o["cardArt"] = .array(
            cardArt.map { a in
                var x = JSONObject()
                if let n = a.name { x["name"] = .string(n) }
                if let t = a.type { x["type"] = .string(t) }
                if let u = a.url { x["url"] = .string(u) }
                return .object(x)
            }
        )
        o["cardMetadata"] = .object(card)
        return .object(o)
    }
}
