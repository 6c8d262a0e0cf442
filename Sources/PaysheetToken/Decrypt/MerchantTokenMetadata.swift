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
        guard let members = value.objectValue else { throw fail("is not an object") }
        var art: [CardArt] = []
        if let list = members["cardArt"] {
            guard let items = list.arrayValue else { throw fail("cardArt is not an array") }
            for (index, item) in items.enumerated() {
                guard let artMembers = item.objectValue else { throw fail("cardArt[\(index)] is not an object") }
                art.append(
                    CardArt(
                        name: artMembers["name"]?.stringValue,
                        type: artMembers["type"]?.stringValue,
                        url: artMembers["url"]?.stringValue
                    )
                )
            }
        }
        var expiry: String?
        var suffix: String?
        if let metadataValue = members["cardMetadata"] {
            guard let metadata = metadataValue.objectValue else { throw fail("cardMetadata is not an object") }
            expiry = metadata["expirationDate"]?.stringValue
            suffix = metadata["fpanSuffix"]?.stringValue
        }
        self.init(cardArt: art, expirationDate: expiry, fpanSuffix: suffix)
    }

    /// The member as Apple writes it.
    public var jsonValue: JSONValue {
        var card = JSONObject()
        if let expirationDate { card["expirationDate"] = .string(expirationDate) }
        if let fpanSuffix { card["fpanSuffix"] = .string(fpanSuffix) }
        var members = JSONObject()
        members["cardArt"] = .array(
            cardArt.map { art in
                var artMembers = JSONObject()
                if let name = art.name { artMembers["name"] = .string(name) }
                if let type = art.type { artMembers["type"] = .string(type) }
                if let url = art.url { artMembers["url"] = .string(url) }
                return .object(artMembers)
            }
        )
        members["cardMetadata"] = .object(card)
        return .object(members)
    }
}
