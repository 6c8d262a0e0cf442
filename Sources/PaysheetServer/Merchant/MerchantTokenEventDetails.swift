import Foundation
import PaysheetModel
import PaysheetPayments

/// A merchant token's life-cycle event as the token gateway describes it: Apple Pay's
/// `MerchantTokenEventResponse` (Apple Pay Merchant Token Management API, "Get Details of a
/// Merchant Token Event"), with Apple's member names: `eventType`, `merchantTokenIdentifier`,
/// `merchantTokenMetadata` (`cardArt`, `cardMetadata`: `cardCountry`, `expirationDate`,
/// `fpanSuffix`, `longDescription`, `shortDescription`) and `reason` (who originated it).
package struct MerchantTokenEventDetails: Sendable, Equatable {
    /// `eventType` as the gateway wrote it (see ``MerchantTokenEventType``).
    package var eventType: String
    /// `merchantTokenIdentifier`: the token the event is about.
    package var merchantTokenIdentifier: String
    /// `reason`: who originated the event, the user or the card issuer.
    package var reason: String
    /// `merchantTokenMetadata`, as given.
    package var merchantTokenMetadata: JSONValue?
    /// When the event was issued, when the gateway tells it. Apple's documented answer does not;
    /// the sandbox's source (in the same process) does, so that stale events can be refused.
    package var issuedAt: Date?

    /// Details.
    package init(
        eventType: String,
        merchantTokenIdentifier: String,
        reason: String,
        merchantTokenMetadata: JSONValue? = nil,
        issuedAt: Date? = nil
    ) {
        self.eventType = eventType
        self.merchantTokenIdentifier = merchantTokenIdentifier
        self.reason = reason
        self.merchantTokenMetadata = merchantTokenMetadata
        self.issuedAt = issuedAt
    }

    /// The details of Apple's JSON answer; `nil` when a required member is missing or not a string.
    package init?(json: JSONValue) {
        guard let type = json["eventType"]?.stringValue, !type.isEmpty,
            let token = json["merchantTokenIdentifier"]?.stringValue, !token.isEmpty,
            let reason = json["reason"]?.stringValue
        else { return nil }
        self.init(
            eventType: type,
            merchantTokenIdentifier: token,
            reason: reason,
            merchantTokenMetadata: json["merchantTokenMetadata"].flatMap { $0.isNull ? nil : $0 }
        )
    }

    /// Apple's JSON answer (without ``issuedAt``, which Apple's answer does not carry).
    package var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("eventType", .string(eventType)), ("merchantTokenIdentifier", .string(merchantTokenIdentifier)),
        ]
        if let merchantTokenMetadata { members.append(("merchantTokenMetadata", merchantTokenMetadata)) }
        members.append(("reason", .string(reason)))
        return .object(JSONObject(members))
    }

    /// The event as the payment core takes it, with the notification's `eventId`.
    package func event(id: String) -> MerchantTokenEvent {
        let card = merchantTokenMetadata?["cardMetadata"]
        return MerchantTokenEvent(
            id: id,
            kind: MerchantTokenEventType.kind(of: eventType),
            reason: reason,
            issuedAt: issuedAt,
            cardSuffix: card?["fpanSuffix"]?.stringValue,
            cardExpiration: card?["expirationDate"]?.stringValue
        )
    }
}

/// The event types. Apple's published material names `UNLINK` (the token deleted, by the user or
/// the card issuer) and describes, without naming them, events for a changed card (a new
/// expiration date) and suspensions; the sandbox names those `METADATA_UPDATE`, `SUSPEND` and
/// `RESUME` (docs/decisions.md). The server reads them case-insensitively, with the sandbox
/// command's words (`deleted`, `suspended`, `resumed`, `updated`) as aliases.
package enum MerchantTokenEventType {
    /// The sandbox's name of each kind of event.
    package static func eventType(for kind: MerchantTokenEvent.Kind) -> String {
        switch kind {
        case .deleted: return "UNLINK"
        case .suspended: return "SUSPEND"
        case .resumed: return "RESUME"
        case .updated: return "METADATA_UPDATE"
        case .other(let type): return type
        }
    }

    /// The kind of event `eventType` names.
    package static func kind(of eventType: String) -> MerchantTokenEvent.Kind {
        switch eventType.uppercased() {
        case "UNLINK", "UNLINKED", "DELETE", "DELETED": return .deleted
        case "SUSPEND", "SUSPENDED": return .suspended
        case "RESUME", "RESUMED": return .resumed
        case "METADATA_UPDATE", "UPDATE", "UPDATED": return .updated
        default: return .other(eventType)
        }
    }

    /// The sandbox's `reason` values: who originated an event.
    package static let reasons = ["USER", "ISSUER"]
}

/// Where the server learns what a merchant-token notification is about. Apple Pay's notification
/// names only an event identifier (`GET {tokenNotificationURL}/notification/merchantToken/{eventId}`);
/// the merchant asks the gateway for the event's details with its merchant identifier, over mutual
/// TLS with its merchant identity certificate (``AppleMerchantTokenGateway``), or asks the sandbox's
/// token gateway. What the gateway does not confirm never changes anything.
package protocol MerchantTokenEventSource: Sendable {
    /// The details of event `eventId` of the merchant `merchantIdentifier`; `nil` when the gateway
    /// does not know that event for that merchant. Throws when the gateway cannot be asked.
    func details(ofEvent eventId: String, merchantIdentifier: String) async throws -> MerchantTokenEventDetails?
}
