import AsyncHTTPClient
import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PaysheetModel
import PaysheetServer
import PaysheetSheetTokens
import PaysheetToken

/// The sandbox's stand-in for Apple Pay's merchant-token life-cycle service. It remembers the
/// merchant tokens the sandbox's sheets issued and where their requests asked to be notified
/// (`tokenNotificationURL`), makes life-cycle events (a token deleted, suspended, resumed, its
/// card updated), sends their notifications as Apple Pay does — `GET
/// {tokenNotificationURL}/notification/merchantToken/{eventId}`, nothing else — and describes an
/// event to the merchant who asks with its merchant identifier: in this process
/// (``details(ofEvent:merchantIdentifier:)``, the merchant server's source) and over HTTP, as
/// Apple's "Get Details of a Merchant Token Event" (`SandboxTokenEventRoutes`). Events are kept
/// in memory by the server that made them (the last ``keptEvents``), as its merchant sessions are.
package final class SandboxMerchantTokenEvents: MerchantTokenEventSource, Sendable {
    /// Most events kept (the oldest are forgotten first).
    package static let keptEvents = 10_000
    /// Most issued tokens remembered.
    package static let keptTokens = 10_000

    /// An event the sandbox made.
    struct Event: Sendable {
        var merchantIdentifierHash: [UInt8]
        var details: MerchantTokenEventDetails
    }

    struct State: Sendable {
        var tokens: [String: SandboxIssuedMerchantToken] = [:]
        var tokenOrder: [String] = []
        /// The last merchant token each page's sheet issued.
        var pageTokens: [String: String] = [:]
        var pageOrder: [String] = []
        var events: [String: Event] = [:]
        var eventOrder: [String] = []
    }
    let state = NIOLockedValueBox(State())

    /// An empty sandbox.
    package init() {}

    /// The SHA-256 of `merchantIdentifier` (how tokens name their merchant).
    package static func hash(_ merchantIdentifier: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(merchantIdentifier.utf8)))
    }

    /// Remembers `token`, issued by the sheet of page `page` (its last).
    package func issued(_ token: SandboxIssuedMerchantToken, page: String?) {
        state.withLockedValue { state in
            if state.tokens.updateValue(token, forKey: token.merchantTokenIdentifier) == nil {
                state.tokenOrder.append(token.merchantTokenIdentifier)
            }
            if let page {
                if state.pageTokens.updateValue(token.merchantTokenIdentifier, forKey: page) == nil {
                    state.pageOrder.append(page)
                }
            }
            Self.trim(&state.tokenOrder, &state.tokens, to: Self.keptTokens)
            Self.trim(&state.pageOrder, &state.pageTokens, to: Self.keptTokens)
        }
    }

    /// The merchant token `identifier`, if a sandbox sheet issued it.
    package func token(_ identifier: String) -> SandboxIssuedMerchantToken? {
        state.withLockedValue { $0.tokens[identifier] }
    }

    /// The last merchant token the sheet of page `page` issued.
    package func token(page: String) -> SandboxIssuedMerchantToken? {
        state.withLockedValue { state in state.pageTokens[page].flatMap { state.tokens[$0] } }
    }

    /// A new event about the token `merchantTokenIdentifier` of the merchant whose identifier
    /// hashes to `merchantIdentifierHash`, issued at `now`; returns its `eventId`.
    package func make(
        eventType: String,
        merchantTokenIdentifier: String,
        merchantIdentifierHash: [UInt8],
        reason: String,
        metadata: JSONValue?,
        at now: Date
    ) -> String {
        let id = "SBXEV" + (0..<16).map { _ in String(format: "%02X", UInt8.random(in: 0...255)) }.joined()
        let details = MerchantTokenEventDetails(
            eventType: eventType,
            merchantTokenIdentifier: merchantTokenIdentifier,
            reason: reason,
            merchantTokenMetadata: metadata,
            issuedAt: now
        )
        state.withLockedValue { state in
            state.events[id] = Event(merchantIdentifierHash: merchantIdentifierHash, details: details)
            state.eventOrder.append(id)
            Self.trim(&state.eventOrder, &state.events, to: Self.keptEvents)
        }
        return id
    }

    /// The details of event `eventId` when `merchantIdentifier` is its token's merchant (with the
    /// time it was issued); `nil` otherwise.
    package func details(ofEvent eventId: String, merchantIdentifier: String) async throws -> MerchantTokenEventDetails?
    {
        let hash = Self.hash(merchantIdentifier)
        return state.withLockedValue { state in
            guard let event = state.events[eventId], constantTimeEqual(event.merchantIdentifierHash, hash) else {
                return nil
            }
            return event.details
        }
    }

    /// The notification of event `eventId` for a token whose `tokenNotificationURL` is `base`:
    /// Apple Pay appends `notification/merchantToken/{eventId}` to it.
    package static func notificationURL(base: String, eventId: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/notification/merchantToken/" + eventId
    }

    /// What the merchant answered a notification.
    package struct Delivery: Sendable {
        /// Its HTTP status, or `nil` when it could not be reached.
        package var status: Int?
        /// Its body (at most 64 KiB).
        package var body: [UInt8]
        /// Why it could not be reached.
        package var failure: String?
    }

    /// Sends the notification `url` (a `GET`, as Apple Pay does) through `http`.
    package static func send(_ url: String, http: HTTPClient) async -> Delivery {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        do {
            let response = try await http.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 64 * 1024)
            return Delivery(status: Int(response.status.code), body: Array(buffer: body), failure: nil)
        } catch {
            return Delivery(status: nil, body: [], failure: "\(error)")
        }
    }

    /// Drops the oldest of `order` (and their entries) beyond `limit`.
    private static func trim<Value>(_ order: inout [String], _ entries: inout [String: Value], to limit: Int) {
        guard order.count > limit else { return }
        for key in order.prefix(order.count - limit) { entries[key] = nil }
        order.removeFirst(order.count - limit)
    }
}
