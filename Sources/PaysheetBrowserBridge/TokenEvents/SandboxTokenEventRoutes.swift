import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import PaysheetModel
import PaysheetServer
import PaysheetSheetTokens

/// The sandbox's merchant-token life-cycle routes (`paysheet serve`, sandbox tools only):
///
/// - `POST /paysheet/v1/merchant-token-events` — an event for a merchant token named by its
///   `merchantTokenIdentifier` (tests, `paysheet sandbox token-event`). Anyone who knows the
///   identifier (the merchant, who decrypted it; the sheet that issued it): it is the credential.
///   The notification goes only where Apple Pay would send it: the `tokenNotificationURL` the
///   token was issued with, when a sandbox sheet issued it, otherwise this server's own.
/// - `POST /paysheet/v1/pages/{id}/merchant-token-events` — an event for the merchant token the
///   page's sheet issued last (the shopper deleting the card in Wallet, the issuer suspending
///   it): whoever holds the page's id, as for the page's other operations.
/// - `GET /paysheet/v1/apple-pay-gateway/paymentservices/v1/merchantId/{merchantId}/merchantToken/event/{eventId}`
///   — Apple's "Get Details of a Merchant Token Event" for a back end that is not this server:
///   whoever holds the event's id (sent only to the token's notification URL) and names its
///   merchant. (Apple's gateway also asks for the merchant identity certificate, which plain
///   HTTP cannot carry.)
package enum SandboxTokenEventRoutes {
    /// Where the sandbox's token gateway answers (its "Get Details of a Merchant Token Event" below it).
    package static let gatewayPath = "/paysheet/v1/apple-pay-gateway"
    /// Most bytes of a request body.
    static let bodyLimit = 16 * 1024

    /// What the routes need: the events, this server's merchant, where its own notifications go,
    /// its clock (an event's issue time) and the HTTP client the notifications are sent with.
    package struct Settings: Sendable {
        package var merchantIdentifier: String
        package var notificationURL: String?
        package var clock: @Sendable () -> Date
        package var http: HTTPClient

        package init(
            merchantIdentifier: String,
            notificationURL: String?,
            clock: @escaping @Sendable () -> Date,
            http: HTTPClient
        ) {
            self.merchantIdentifier = merchantIdentifier
            self.notificationURL = notificationURL
            self.clock = clock
            self.http = http
        }
    }

    /// Adds the routes to `router`.
    package static func add(
        to router: Router<APIRequestContext>,
        events: SandboxMerchantTokenEvents,
        settings: Settings
    ) {
        // Anyone who knows the token's identifier (sandbox tools only).
        router.post("/paysheet/v1/merchant-token-events") { request, _ -> Response in
            let body = try await object(request, allowed: ["merchantTokenIdentifier"])
            guard let identifier = body["merchantTokenIdentifier"]?.stringValue,
                (1...128).contains(identifier.utf8.count)
            else {
                throw ServiceError.invalid(
                    "merchantTokenIdentifier",
                    "merchantTokenIdentifier is required: the token's identifier (1 to 128 characters), as its payment token carried it"
                )
            }
            let known = events.token(identifier)
            let token =
                known
                ?? SandboxIssuedMerchantToken(
                    merchantTokenIdentifier: identifier,
                    merchantIdentifierHash: SandboxMerchantTokenEvents.hash(settings.merchantIdentifier),
                    tokenNotificationURL: settings.notificationURL,
                    metadata: nil
                )
            return try await send(body, token: token, events: events, settings: settings)
        }
        // Whoever holds the page's id: its sheet's last merchant token.
        router.post("/paysheet/v1/pages/:id/merchant-token-events") { request, context -> Response in
            let page = context.parameters.get("id") ?? ""
            let body = try await object(request, allowed: [])
            guard let token = events.token(page: page) else {
                throw ServiceError(
                    .notFound,
                    code: "no_merchant_token",
                    message:
                        "page \(page.prefix(80)) has issued no merchant token: authorize a recurring, automatic-reload or deferred payment on its sheet first"
                )
            }
            return try await send(body, token: token, events: events, settings: settings)
        }
        // Whoever holds the event's id and names its merchant: Apple's answer, or Apple's ErrorResponse.
        router.get(
            RouterPath(
                stringLiteral: gatewayPath + "/paymentservices/v1/merchantId/:merchantId/merchantToken/event/:eventId"
            )
        ) { _, context -> Response in
            let merchant = context.parameters.get("merchantId") ?? ""
            let eventId = context.parameters.get("eventId") ?? ""
            guard let details = try await events.details(ofEvent: eventId, merchantIdentifier: merchant) else {
                let error: JSONValue = [
                    "statusCode": 400, "subStatusCode": 40_001,
                    "errorMessage": .string("no event \(eventId.prefix(80)) of merchant \(merchant.prefix(80))"),
                ]
                return json(error, status: .badRequest)
            }
            return json(details.json, status: .ok)
        }
    }

    /// The request's body: a JSON object of the event's members and `allowed` others.
    static func object(_ request: Request, allowed: Set<String>) async throws -> JSONObject {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: bodyLimit) } catch {
            throw ServiceError(.tooLarge, code: "body_too_large", message: "a token event is at most 16 KiB")
        }
        let value: JSONValue
        do throws(JSONParser.SyntaxError) {
            value = try JSONParser.parse(Array(buffer: buffer))
        } catch {
            throw ServiceError.invalid(nil, "the body is not valid JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw ServiceError.invalid(nil, "the body must be a JSON object")
        }
        let known = allowed.union(["eventType", "reason", "cardMetadata", "send"])
        for key in object.keys where !known.contains(key) {
            throw ServiceError.invalid(
                key,
                key == "tokenNotificationURL"
                    ? "the sandbox notifies the tokenNotificationURL the token was issued with (or this server's), as Apple Pay does; it cannot be chosen here"
                    : "unknown member (known: \(known.sorted().joined(separator: ", ")))"
            )
        }
        return object
    }

    /// What a request asks the sandbox to make: the event's type and originator, whether to send it.
    struct Asked {
        var eventType: String
        var reason: String
        var send: Bool
    }

    /// The event `body` asks for (`eventType`, `reason`, `send`), checked.
    static func asked(_ body: JSONObject) throws -> Asked {
        guard let type = body["eventType"]?.stringValue, (1...64).contains(type.count),
            type.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") })
        else {
            throw ServiceError.invalid(
                "eventType",
                "eventType is required: UNLINK (deleted), SUSPEND, RESUME or METADATA_UPDATE (or deleted, suspended, resumed, updated)"
            )
        }
        let reason = (body["reason"]?.stringValue ?? "USER").uppercased()
        guard MerchantTokenEventType.reasons.contains(reason) else {
            throw ServiceError.invalid("reason", "reason is who originated the event: USER or ISSUER")
        }
        var send = true
        if let flag = body["send"], !flag.isNull {
            guard let value = flag.boolValue else { throw ServiceError.invalid("send", "send is true or false") }
            send = value
        }
        return Asked(
            eventType: MerchantTokenEventType.eventType(for: MerchantTokenEventType.kind(of: type)),
            reason: reason,
            send: send
        )
    }

    /// Makes the event `body` describes for `token` and, unless `send` is false, notifies the
    /// token's notification URL; answers what was made and what the merchant answered.
    static func send(
        _ body: JSONObject,
        token: SandboxIssuedMerchantToken,
        events: SandboxMerchantTokenEvents,
        settings: Settings
    ) async throws -> Response {
        let asked = try asked(body)
        let metadata = try metadata(body["cardMetadata"], token: token)
        guard let base = token.tokenNotificationURL, let url = URL(string: base),
            url.scheme == "http" || url.scheme == "https", url.host != nil
        else {
            throw ServiceError(
                .conflict,
                code: "no_token_notification_url",
                message:
                    "the token's request named no http(s) tokenNotificationURL: Apple Pay sends no notification then, nor does the sandbox"
            )
        }
        let eventId = events.make(
            eventType: asked.eventType,
            merchantTokenIdentifier: token.merchantTokenIdentifier,
            merchantIdentifierHash: token.merchantIdentifierHash,
            reason: asked.reason,
            metadata: metadata,
            at: settings.clock()
        )
        let notification = SandboxMerchantTokenEvents.notificationURL(base: base, eventId: eventId)
        var answer: [(String, JSONValue)] = [
            ("eventId", .string(eventId)), ("eventType", .string(asked.eventType)), ("reason", .string(asked.reason)),
            ("notificationURL", .string(notification)), ("sent", .bool(asked.send)),
        ]
        if asked.send {
            let delivery = await SandboxMerchantTokenEvents.send(notification, http: settings.http)
            answer.append(("merchantAnswer", merchantAnswer(delivery, own: isOwn(base, settings.notificationURL))))
        }
        return json(.object(JSONObject(answer)), status: .created)
    }

    /// What the merchant answered: its status, and its body when `own` (this server's own route:
    /// the sandbox does not relay what another host says; its status shows whether it took it).
    static func merchantAnswer(_ delivery: SandboxMerchantTokenEvents.Delivery, own: Bool) -> JSONValue {
        var merchant: [(String, JSONValue)] = [("status", delivery.status.map { .number(String($0)) } ?? .null)]
        if own {
            merchant.append(
                (
                    "body",
                    (try? JSONParser.parse(delivery.body)) ?? .string(String(decoding: delivery.body, as: UTF8.self))
                )
            )
        }
        if let failure = delivery.failure { merchant.append(("failure", .string(failure))) }
        return .object(JSONObject(merchant))
    }

    /// `merchantTokenMetadata` for the event: the token's as issued, with `cardMetadata`'s given
    /// members (an update's new expiration date or suffix) over it.
    static func metadata(_ given: JSONValue?, token: SandboxIssuedMerchantToken) throws -> JSONValue? {
        var metadata = token.metadata?.jsonValue.objectValue ?? JSONObject()
        guard let given, !given.isNull else { return metadata.isEmpty ? nil : .object(metadata) }
        guard let members = given.objectValue else {
            throw ServiceError.invalid("cardMetadata", "cardMetadata is an object (Apple's CardMetadata)")
        }
        let names: Set<String> = ["cardCountry", "expirationDate", "fpanSuffix", "longDescription", "shortDescription"]
        var card = metadata["cardMetadata"]?.objectValue ?? JSONObject()
        for (key, value) in members {
            guard names.contains(key), let text = value.stringValue, text.count <= 64 else {
                throw ServiceError.invalid(
                    "cardMetadata.\(key)",
                    "cardMetadata has \(names.sorted().joined(separator: ", ")), each a string of at most 64 characters"
                )
            }
            card[key] = .string(text)
        }
        metadata["cardMetadata"] = .object(card)
        return .object(metadata)
    }

    /// Whether `url` is on the same origin as this server's own notification URL.
    static func isOwn(_ url: String, _ own: String?) -> Bool {
        guard let own, let a = URLComponents(string: url), let b = URLComponents(string: own) else { return false }
        return a.scheme == b.scheme && a.host == b.host && a.port == b.port
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: value.compactText))
        )
    }
}
