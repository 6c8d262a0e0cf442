import Foundation
import Logging
import Metrics
import PaysheetPayments

/// Receives Apple Pay's merchant-token life-cycle notifications at the `tokenNotificationURL` the
/// plans' payment requests name: `GET {tokenNotificationURL}/notification/merchantToken/{eventId}`
/// ("Send Merchant Token Event"). The notification carries nothing but the event's identifier and
/// anyone may send one; what it is about comes only from the token gateway (``MerchantTokenEventSource``),
/// asked with this merchant's identifier. So:
///
/// - forged: an event the gateway does not confirm for this merchant → `token_event_unknown` (404);
/// - replayed: an event received before → `token_event_replayed` (409);
/// - stale: an event the gateway says was issued more than ``maxAge`` seconds before now (or in
///   the future), or before the last event applied to the token → `token_event_stale` (409);
///
/// and nothing changes. A confirmed event is applied to the agreements charged with its token
/// (`PaymentService.apply(_:toToken:)`) and answered 200 — also when no agreement has that token,
/// as Apple asks ("even if your endpoint can't find the related merchant token").
package struct MerchantTokenNotifications: Sendable {
    /// Where events are confirmed and described.
    let source: any MerchantTokenEventSource
    let payments: PaymentService
    /// This merchant's identifier (the gateway answers only about its own tokens).
    let merchantIdentifier: String
    /// Seconds after its issue an event is stale (when the gateway tells when it was issued).
    let maxAge: Double
    let logger: Logger

    /// Seconds an event may seem issued in the future (clocks differ).
    static let futureSkew: Double = 300

    /// A receiver of this merchant's notifications.
    package init(
        source: any MerchantTokenEventSource,
        payments: PaymentService,
        merchantIdentifier: String,
        maxAge: Double = 3_600,
        logger: Logger
    ) {
        self.source = source
        self.payments = payments
        self.merchantIdentifier = merchantIdentifier
        self.maxAge = maxAge
        self.logger = logger
    }

    /// The answer to a notification that was acted on.
    struct Receipt: Encodable, Sendable {
        var eventId: String
        var eventType: String
        /// `applied` (agreements changed), `unchanged` (nothing to change), `already_applied`, or
        /// `unknown_token` (no agreement is charged with that token).
        var result: String
        /// How many agreements are charged with the token.
        var agreements: Int
        /// How many it changed.
        var changed: Int
    }

    /// Whether `eventId` can be an event identifier: 1 to 128 characters, letters, digits and `-._~`.
    static func isEventId(_ eventId: String) -> Bool {
        (1...128).contains(eventId.utf8.count)
            && eventId.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            }
    }

    /// Acts on the notification of event `eventId`.
    func receive(eventId: String) async throws -> Receipt {
        guard Self.isEventId(eventId) else {
            throw ServiceError.invalid(
                "eventId",
                "an event identifier is 1 to 128 letters, digits, '-', '.', '_' or '~'"
            )
        }
        if let seen = try await payments.store.receivedTokenEvent(eventId) {
            count("replayed")
            throw ServiceError(
                .conflict,
                code: "token_event_replayed",
                message:
                    "event \(eventId) (\(seen.eventType)) was received at \(Timestamp.text(seen.receivedAt)) and acted on (\(seen.result)); a notification is acted on once: nothing changed"
            )
        }
        let details = try await confirmed(eventId)
        let now = payments.now()
        try await checkFresh(details, eventId: eventId, now: now)
        let report = try await payments.apply(details.event(id: eventId), toToken: details.merchantTokenIdentifier)
        let result = Self.result(of: report)
        _ = try await payments.store.recordTokenEvent(
            eventId,
            eventType: details.eventType,
            result: result,
            agreements: report.agreements.count,
            at: now
        )
        count(result)
        logger.info(
            "merchant token notification \(eventId) (\(details.eventType), \(details.reason)): \(result), \(report.changed.count) of \(report.agreements.count) agreement(s) changed"
        )
        if result == "stale" {
            throw ServiceError(
                .conflict,
                code: "token_event_stale",
                message:
                    "event \(eventId) (\(details.eventType)) is older than the last event applied to its token (\(report.stale.joined(separator: "; "))); nothing changed"
            )
        }
        return Receipt(
            eventId: eventId,
            eventType: details.eventType,
            result: result,
            agreements: report.agreements.count,
            changed: report.changed.count
        )
    }

    /// The event `eventId` as the token gateway describes it for this merchant; refused
    /// (`token_event_unknown`) when the gateway does not confirm it.
    func confirmed(_ eventId: String) async throws -> MerchantTokenEventDetails {
        let details: MerchantTokenEventDetails?
        do {
            details = try await source.details(ofEvent: eventId, merchantIdentifier: merchantIdentifier)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(
                .upstreamFailure,
                code: "token_gateway_unavailable",
                message: "the token gateway could not be asked about event \(eventId): \(error)"
            )
        }
        guard let details else {
            count("unknown")
            logger.warning("merchant token notification \(eventId): the token gateway does not confirm it")
            throw ServiceError(
                .notFound,
                code: "token_event_unknown",
                message:
                    "the token gateway does not confirm event \(eventId) for merchant \(merchantIdentifier): not a notification it sent; nothing changed"
            )
        }
        return details
    }

    /// Refuses (`token_event_stale`, recorded so that it is not acted on later) an event the
    /// gateway says was issued more than ``maxAge`` before `now`, or too far ahead of it.
    func checkFresh(_ details: MerchantTokenEventDetails, eventId: String, now: Date) async throws {
        guard let issued = details.issuedAt,
            now.timeIntervalSince(issued) > maxAge || issued.timeIntervalSince(now) > Self.futureSkew
        else { return }
        _ = try await payments.store.recordTokenEvent(
            eventId,
            eventType: details.eventType,
            result: "stale",
            agreements: 0,
            at: now
        )
        count("stale")
        throw ServiceError(
            .conflict,
            code: "token_event_stale",
            message:
                "event \(eventId) (\(details.eventType)) was issued at \(Timestamp.text(issued)), not within \(Int(maxAge)) s of now (\(Timestamp.text(now))): too old to act on; nothing changed"
        )
    }

    /// The receipt's `result` for what the event did (`stale` when it was too late for every agreement).
    static func result(of report: PaymentService.TokenEventReport) -> String {
        if report.agreements.isEmpty { return "unknown_token" }
        if !report.changed.isEmpty { return "applied" }
        if report.stale.count == report.agreements.count { return "stale" }
        if !report.alreadyApplied.isEmpty { return "already_applied" }
        return "unchanged"
    }

    private func count(_ result: String) {
        Counter(label: "paysheet_merchant_token_events_total", dimensions: [("result", result)]).increment()
    }
}
