import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel

/// `paysheet sandbox`: what the sandbox does on a running `paysheet serve` that a test asks for.
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract:
            "Ask a running paysheet serve's sandbox for what Apple Pay would do: merchant-token life-cycle events.",
        subcommands: [TokenEventCommand.self]
    )
}

/// `paysheet sandbox token-event`: a merchant token deleted, suspended, resumed or updated, notified
/// as Apple Pay notifies it.
struct TokenEventCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token-event",
        abstract:
            "Make a merchant-token life-cycle event in the sandbox and send its notification, as Apple Pay does (docs/agreements.md).",
        discussion: """
            The sandbox of --server (POST /paysheet/v1/merchant-token-events) makes the event and sends
            GET {tokenNotificationURL}/notification/merchantToken/{eventId} to the URL the token was issued with (a sandbox
            sheet's), or to the server's own; the merchant server then asks the sandbox's token gateway what the event is.
            Prints the event's id, the notification and the merchant's answer. Exit 0 when the merchant answered 200 (with
            --no-send: when the event was made), 1 when it refused the notification or could not be reached, 2 on bad usage.
            """
    )

    @Option(name: .customLong("server"), help: "The URL of a running paysheet serve (its sandbox).")
    var server: String
    @Option(
        name: .customLong("token"),
        help: "The merchantTokenIdentifier, as the payment token carried it (paysheet token decrypt prints it)."
    )
    var token: String
    @Option(
        name: .customLong("event"),
        help: "deleted (UNLINK), suspended (SUSPEND), resumed (RESUME) or updated (METADATA_UPDATE)."
    )
    var event: String
    @Option(name: .customLong("reason"), help: "Who originated it: user or issuer.")
    var reason = "user"
    @Option(name: .customLong("card-suffix"), help: "With updated: the card's new last four digits.")
    var cardSuffix: String?
    @Option(name: .customLong("card-expiration"), help: "With updated: the card's new expiration date (MM/YY).")
    var cardExpiration: String?
    @Flag(name: .customLong("no-send"), help: "Make the event without sending its notification (its id is printed).")
    var noSend = false

    static let events = [
        "deleted": "UNLINK", "suspended": "SUSPEND", "resumed": "RESUME", "updated": "METADATA_UPDATE",
    ]

    /// Why the options cannot be used, if they cannot (exit 2, as the other commands' bad input).
    var usageProblem: String? {
        if Self.events[event.lowercased()] == nil && !Self.events.values.contains(event.uppercased()) {
            return "--event is deleted, suspended, resumed or updated (not \(event))"
        }
        if !["user", "issuer"].contains(reason.lowercased()) { return "--reason is user or issuer (not \(reason))" }
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            return "--server is the http(s) URL of a running paysheet serve (not \(server))"
        }
        return nil
    }

    func run() async throws {
        if let usageProblem {
            writeErr("paysheet sandbox token-event: \(usageProblem)")
            throw ExitCodes.usage
        }
        var body: [(String, JSONValue)] = [
            ("merchantTokenIdentifier", .string(token)),
            ("eventType", .string(Self.events[event.lowercased()] ?? event.uppercased())),
            ("reason", .string(reason.uppercased())), ("send", .bool(!noSend)),
        ]
        var card: [(String, JSONValue)] = []
        if let cardSuffix { card.append(("fpanSuffix", .string(cardSuffix))) }
        if let cardExpiration { card.append(("expirationDate", .string(cardExpiration))) }
        if !card.isEmpty { body.append(("cardMetadata", .object(JSONObject(card)))) }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let answer: (status: Int, body: JSONValue)
        do {
            var request = HTTPClientRequest(
                url: (server.hasSuffix("/") ? String(server.dropLast()) : server) + "/paysheet/v1/merchant-token-events"
            )
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: JSONValue.object(JSONObject(body)).compactText))
            let response = try await http.execute(request, timeout: .seconds(60))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            answer = (
                Int(response.status.code),
                (try? JSONParser.parse(Array(buffer: bytes))) ?? .string(String(buffer: bytes))
            )
            try await http.shutdown()
        } catch {
            try? await http.shutdown()
            writeErr("paysheet sandbox token-event: \(server) could not be asked: \(error)")
            throw ExitCodes.failed
        }
        guard answer.status == 201 else {
            let message = answer.body["error"]?["message"]?.stringValue ?? answer.body.compactText
            writeErr("paysheet sandbox token-event: the sandbox refused (HTTP \(answer.status)): \(message)")
            throw answer.status == 404 || answer.status >= 500 ? ExitCodes.failed : ExitCodes.usage
        }
        let made = answer.body
        print(
            "event         \(made["eventId"]?.stringValue ?? "?") (\(made["eventType"]?.stringValue ?? "?"), \(made["reason"]?.stringValue ?? "?"))"
        )
        print("notification  GET \(made["notificationURL"]?.stringValue ?? "?")")
        guard let merchant = made["merchantAnswer"] else {
            print("not sent (--no-send)")
            return
        }
        let status = merchant["status"]?.doubleValue.map { Int($0) }
        if let body = merchant["body"] {
            print("merchant      HTTP \(status.map(String.init) ?? "-") \(body.compactText)")
        } else {
            print("merchant      HTTP \(status.map(String.init) ?? "-")")
        }
        if let failure = merchant["failure"]?.stringValue { print("failure       \(failure)") }
        if status != 200 { throw ExitCodes.failed }
    }
}
