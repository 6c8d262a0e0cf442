import Foundation

/// One life-cycle event of a merchant token, as the token gateway (Apple Pay's "Get Details of a
/// Merchant Token Event", or the sandbox's) described it after a notification named its
/// `eventId`: the input of ``AgreementLifecycle/applying(_:at:)``.
public struct MerchantTokenEvent: Sendable, Equatable {
    /// What happened to the token.
    public enum Kind: Sendable, Equatable {
        /// Deleted (unlinked) by the user or the card issuer: no charge ever again.
        case deleted
        /// Suspended: no charge until it is resumed.
        case suspended
        /// Usable again after a suspension.
        case resumed
        /// Its card's metadata changed (a new expiration date, a new card number's suffix).
        case updated
        /// An event type this server does not act on (recorded, nothing changes).
        case other(String)
    }

    /// The gateway's `eventId`.
    public var id: String
    /// What happened.
    public var kind: Kind
    /// Who originated it, as the gateway's `reason` says (the user, the card issuer).
    public var reason: String?
    /// When it was issued, when the gateway tells it (Apple's documented answer does not).
    public var issuedAt: Date?
    /// The funding card's last four digits after the event (`cardMetadata.fpanSuffix`), if given.
    public var cardSuffix: String?
    /// The funding card's expiration date after the event (`cardMetadata.expirationDate`), if given.
    public var cardExpiration: String?

    /// An event.
    public init(
        id: String,
        kind: Kind,
        reason: String? = nil,
        issuedAt: Date? = nil,
        cardSuffix: String? = nil,
        cardExpiration: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.reason = reason
        self.issuedAt = issuedAt
        self.cardSuffix = cardSuffix
        self.cardExpiration = cardExpiration
    }

    /// Who originated it, in words: "the user", "the card issuer", or `nil` when the gateway's
    /// `reason` is neither.
    public var originator: String? {
        switch reason?.lowercased() {
        case "user"?: return "the user"
        case "issuer"?, "card_issuer"?, "cardissuer"?: return "the card issuer"
        default: return nil
        }
    }
}
