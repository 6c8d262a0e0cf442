import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetBrowserBridge
import PaysheetModel
import PaysheetSheetTokens
import PaysheetToken
import Testing

@testable import PaysheetServer

/// Merchant-token life-cycle notifications end to end, over real HTTP on loopback: the sandbox
/// makes an event and sends Apple Pay's notification (`GET {tokenNotificationURL}/notification/merchantToken/{eventId}`)
/// to the server, which asks the token gateway what it is and acts on the agreement; forged,
/// stale and replayed notifications are refused and change nothing. SQLite and (in CI) PostgreSQL.
@Suite(.serialized) struct MerchantTokenEventTests {
    static let month: Double = 31 * 86_400
    static let merchantIdentifier = "merchant.dev.paysheet.sandbox"

    /// A paid subscription: its agreement and its merchant token's identifier (decrypted as the merchant would).
    static func subscribe(_ server: TestServer) async throws -> (agreement: String, token: String, order: JSONValue) {
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder(["plan": "tea-monthly"])
        let sheet = try await server.pay(order, factory: factory)
        #expect(await sheet.paid)
        let merchant = try SandboxMerchant.loadOrCreate(dataFolder: server.data, merchantIdentifier: merchantIdentifier)
        let decryptor = PaymentTokenDecryptor(
            keys: MerchantKeyring([merchant]),
            verifier: PaymentTokenVerifier(trust: try SandboxMerchant.pki(dataFolder: server.data).trustAnchors),
            replayGuard: nil
        )
        let token = try #require(factory.tokens.last)
        let data = try await decryptor.decrypt(json: Array(token.paymentData.compactText.utf8)).paymentData
        return (
            try #require(order["agreementId"]?.stringValue), try #require(data.merchantTokenIdentifier), order
        )
    }

    /// Asks the sandbox (`POST /paysheet/v1/merchant-token-events`) for an event; status and answer.
    static func sandboxEvent(
        _ server: TestServer,
        _ body: JSONValue,
        path: String = "/paysheet/v1/merchant-token-events"
    )
        async throws -> (Int, JSONValue)
    {
        var request = HTTPClientRequest(url: server.url + path)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: body.compactText))
        let response = try await server.http.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), (try? JSONParser.parse(Array(buffer: bytes))) ?? .null)
    }

    /// An event for `token`, sent (or not); its answer, which must be 201.
    static func event(
        _ server: TestServer,
        token: String,
        _ type: String,
        reason: String = "USER",
        send: Bool = true,
        card: JSONValue? = nil
    ) async throws -> JSONValue {
        var body: JSONObject = [
            "merchantTokenIdentifier": .string(token), "eventType": .string(type), "reason": .string(reason),
            "send": .bool(send),
        ]
        if let card { body["cardMetadata"] = card }
        let (status, answer) = try await sandboxEvent(server, .object(body))
        #expect(status == 201, "the sandbox made no \(type) event: \(answer.compactText)")
        return answer
    }

    /// A notification as anyone may send it: `GET` of `url`, on real HTTP.
    static func notify(_ server: TestServer, _ url: String) async throws -> (Int, JSONValue) {
        let response = try await server.http.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), (try? JSONParser.parse(Array(buffer: bytes))) ?? .null)
    }

    static func consumes(_ server: TestServer) async throws -> Int {
        try await server.ledger().filter { $0["txnType"] == "01" }.count
    }

    @Test(arguments: TestDatabases.kinds) func theSandboxNotifiesAndTheServerActs(kind: String) async throws {
        let server = try await TestServer.start(database: kind)
        defer { Task { await server.stop() } }
        let (agreementId, token, order) = try await Self.subscribe(server)
        // The plan's request names the server's own notification route.
        #expect(
            order["paymentRequest"]?["recurringPaymentRequest"]?["tokenNotificationURL"]?.stringValue
                == server.url + "/v1/merchant-token-events"
        )
        #expect(try await server.api.get("/v1/agreements/\(agreementId)")["card"]?["tokenStatus"] == "active")

        // Suspended (by the issuer): the notification is Apple's GET; the server confirmed and applied it.
        let suspend = try await Self.event(server, token: token, "SUSPEND", reason: "ISSUER")
        let notification = try #require(suspend["notificationURL"]?.stringValue)
        let eventId = try #require(suspend["eventId"]?.stringValue)
        #expect(notification == server.url + "/v1/merchant-token-events/notification/merchantToken/" + eventId)
        #expect(suspend["merchantAnswer"]?["status"] == 200, "\(suspend.compactText)")
        #expect(suspend["merchantAnswer"]?["body"]?["result"] == "applied")
        #expect(suspend["merchantAnswer"]?["body"]?["agreements"] == 1)
        var agreement = try await server.api.get("/v1/agreements/\(agreementId)")
        #expect(agreement["card"]?["tokenStatus"] == "suspended" && agreement["status"] == "active")

        // A month later the period is due, but the token is suspended: refused before anything is sent.
        server.advanceClock(by: Self.month)
        let before = try await Self.consumes(server)
        let (refused, refusal) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(refused == 409 && refusal["error"]?["code"] == "merchant_token_suspended", "\(refusal.compactText)")
        #expect(try await Self.consumes(server) == before)

        // Resumed: charged again.
        let resume = try await Self.event(server, token: token, "resumed")
        #expect(resume["eventType"] == "RESUME" && resume["merchantAnswer"]?["body"]?["result"] == "applied")
        let (paid, charge) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(paid == 201 && charge["charge"]?["status"] == "paid", "\(charge.compactText)")

        // The card was renewed: recorded.
        let update = try await Self.event(
            server,
            token: token,
            "METADATA_UPDATE",
            card: ["fpanSuffix": "5678", "expirationDate": "12/31"]
        )
        #expect(update["merchantAnswer"]?["body"]?["result"] == "applied")
        agreement = try await server.api.get("/v1/agreements/\(agreementId)")
        #expect(agreement["card"]?["cardSuffix"] == "5678" && agreement["card"]?["cardExpiration"] == "12/31")

        // Deleted by the user: the agreement ends; a month later its charge is refused, nothing sent.
        let delete = try await Self.event(server, token: token, "UNLINK")
        #expect(delete["merchantAnswer"]?["body"]?["result"] == "applied")
        agreement = try await server.api.get("/v1/agreements/\(agreementId)")
        #expect(agreement["status"] == "canceled")
        #expect(agreement["canceledBecause"] == "its merchant token was deleted by the user")
        #expect(agreement["card"]?["tokenStatus"] == "deleted")
        server.advanceClock(by: Self.month)
        let sent = try await Self.consumes(server)
        let (dead, deadBody) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(dead == 409 && deadBody["error"]?["code"] == "merchant_token_deleted", "\(deadBody.compactText)")
        #expect(try await Self.consumes(server) == sent)
        // No later event brings it back.
        let late = try await Self.event(server, token: token, "RESUME")
        #expect(late["merchantAnswer"]?["status"] == 200 && late["merchantAnswer"]?["body"]?["result"] == "unchanged")
        #expect(try await server.api.get("/v1/agreements/\(agreementId)")["card"]?["tokenStatus"] == "deleted")

        // A token no agreement has: 200 (as Apple asks), nothing changed.
        let stranger = try await Self.event(server, token: "SBXMT" + String(repeating: "0", count: 27), "UNLINK")
        #expect(stranger["merchantAnswer"]?["status"] == 200)
        #expect(stranger["merchantAnswer"]?["body"]?["result"] == "unknown_token")

        // The token identifier is nowhere in clear: not in the logs, not in the database.
        #expect(!server.logs.all.joined(separator: "\n").contains(token))
        if kind == "sqlite" {
            await server.stop()
            let db = try await SQLiteDatabase.open(path: server.data + "/paysheet.sqlite")
            var dump = ""
            for table in ["agreements", "merchant_token_events", "orders", "payments"] {
                let rows = try await db.transaction { try await $0.execute("SELECT * FROM \(table)", []) }
                dump += rows.map { $0.values.map { $0 ?? "" }.joined(separator: "|") }.joined(separator: "\n")
            }
            await db.close()
            #expect(dump.contains(eventId) && dump.contains(agreementId))  // the dump is real
            #expect(!dump.contains(token), "the merchant token identifier in the database")
        }
    }

    @Test(arguments: TestDatabases.kinds) func forgedStaleAndReplayedNotificationsChangeNothing(
        kind: String
    )
        async throws
    {
        let server = try await TestServer.start(database: kind)
        defer { Task { await server.stop() } }
        let (agreementId, token, _) = try await Self.subscribe(server)
        let route = server.url + "/v1/merchant-token-events/notification/merchantToken/"
        let original = try await server.api.get("/v1/agreements/\(agreementId)")

        // Forged: an event the token gateway never made. Malformed: refused before it is asked.
        let (forged, forgedBody) = try await Self.notify(server, route + "SBXEV" + String(repeating: "A", count: 32))
        #expect(forged == 404 && forgedBody["error"]?["code"] == "token_event_unknown", "\(forgedBody.compactText)")
        let (malformed, malformedBody) = try await Self.notify(server, route + String(repeating: "x", count: 129))
        #expect(malformed == 400 && malformedBody["error"]?["field"] == "eventId")
        let (odd, _) = try await Self.notify(server, route + "a%2F..%2Fb")
        #expect(odd == 400)

        // Stale: a deletion made but notified more than an hour later.
        let delete = try await Self.event(server, token: token, "UNLINK", send: false)
        #expect(delete["merchantAnswer"] == nil && delete["sent"] == false)
        let deleteURL = try #require(delete["notificationURL"]?.stringValue)
        server.advanceClock(by: 3_601)
        let (stale, staleBody) = try await Self.notify(server, deleteURL)
        #expect(stale == 409 && staleBody["error"]?["code"] == "token_event_stale", "\(staleBody.compactText)")
        // And not acted on when it comes again.
        let (again, againBody) = try await Self.notify(server, deleteURL)
        #expect(again == 409 && againBody["error"]?["code"] == "token_event_replayed")
        #expect(try await server.api.get("/v1/agreements/\(agreementId)") == original)

        // Replayed: a suspension acted on, then resumed; the suspension notified again changes nothing.
        let suspend = try await Self.event(server, token: token, "SUSPEND")
        #expect(suspend["merchantAnswer"]?["status"] == 200)
        let suspendURL = try #require(suspend["notificationURL"]?.stringValue)
        _ = try await Self.event(server, token: token, "RESUME")
        let (replayed, replayedBody) = try await Self.notify(server, suspendURL)
        #expect(
            replayed == 409 && replayedBody["error"]?["code"] == "token_event_replayed",
            "\(replayedBody.compactText)"
        )
        #expect(try await server.api.get("/v1/agreements/\(agreementId)")["card"]?["tokenStatus"] == "active")

        // Out of order: a suspension issued before an update that was applied is stale.
        let early = try await Self.event(server, token: token, "SUSPEND", send: false)
        server.advanceClock(by: 60)
        _ = try await Self.event(server, token: token, "METADATA_UPDATE", card: ["fpanSuffix": "4321"])
        let (outOfOrder, outOfOrderBody) = try await Self.notify(
            server,
            try #require(early["notificationURL"]?.stringValue)
        )
        #expect(
            outOfOrder == 409 && outOfOrderBody["error"]?["code"] == "token_event_stale",
            "\(outOfOrderBody.compactText)"
        )
        let after = try await server.api.get("/v1/agreements/\(agreementId)")
        #expect(after["card"]?["tokenStatus"] == "active" && after["status"] == "active")

        // The agreement still takes its charge: none of the refused notifications changed it.
        server.advanceClock(by: Self.month)
        let (paid, charge) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(paid == 201 && charge["charge"]?["status"] == "paid", "\(charge.compactText)")
    }

    @Test func theSandboxSendsOnlyWhereApplePayWouldAndDescribesEventsAsApplesGateway() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (_, token, _) = try await Self.subscribe(server)
        // The notification URL is the token's, never the caller's.
        let (chosen, chosenBody) = try await Self.sandboxEvent(
            server,
            [
                "merchantTokenIdentifier": .string(token), "eventType": "UNLINK",
                "tokenNotificationURL": "http://127.0.0.1:9/elsewhere",
            ]
        )
        #expect(chosen == 400 && chosenBody["error"]?["field"] == "tokenNotificationURL")
        for bad: JSONValue in [
            ["merchantTokenIdentifier": .string(token)], ["eventType": "UNLINK"],
            ["merchantTokenIdentifier": .string(token), "eventType": "UNLINK", "reason": "SOMEONE"],
            ["merchantTokenIdentifier": .string(token), "eventType": "UN LINK"],
            ["merchantTokenIdentifier": .string(token), "eventType": "UPDATE", "cardMetadata": ["pan": "4111"]],
        ] {
            let (status, body) = try await Self.sandboxEvent(server, bad)
            #expect(
                status == 400 && body["error"]?["code"] == "invalid_request",
                "\(bad.compactText): \(body.compactText)"
            )
        }
        // A page that issued no merchant token: nothing to send.
        let (noPage, noPageBody) = try await Self.sandboxEvent(
            server,
            ["eventType": "UNLINK"],
            path: "/paysheet/v1/pages/pg_nothing/merchant-token-events"
        )
        #expect(noPage == 404 && noPageBody["error"]?["code"] == "no_merchant_token")

        // Apple's "Get Details of a Merchant Token Event", over HTTP from the sandbox's gateway,
        // read by the client the server uses for Apple's: Apple's members, for its merchant only.
        let made = try await Self.event(
            server,
            token: token,
            "METADATA_UPDATE",
            reason: "ISSUER",
            send: false,
            card: ["expirationDate": "11/30"]
        )
        let eventId = try #require(made["eventId"]?.stringValue)
        let gateway = AppleMerchantTokenGateway(
            baseURL: server.url + SandboxTokenEventRoutes.gatewayPath,
            client: server.http
        )
        let details = try #require(
            try await gateway.details(ofEvent: eventId, merchantIdentifier: Self.merchantIdentifier)
        )
        #expect(details.eventType == "METADATA_UPDATE" && details.reason == "ISSUER")
        #expect(details.merchantTokenIdentifier == token)
        #expect(details.merchantTokenMetadata?["cardMetadata"]?["expirationDate"] == "11/30")
        #expect(details.issuedAt == nil)  // Apple's answer carries no time
        #expect(try await gateway.details(ofEvent: eventId, merchantIdentifier: "merchant.com.other") == nil)
        #expect(try await gateway.details(ofEvent: "SBXEVNOTHING", merchantIdentifier: Self.merchantIdentifier) == nil)
    }

    /// Runs `sql` on the database of the running `server` (SQLite's file, or its PostgreSQL database).
    static func execute(_ server: TestServer, _ sql: String) async throws -> [SQLRow] {
        if let url = server.databaseURL {
            let db = try PostgresDatabase(url: url)
            return try await withThrowingTaskGroup(of: [SQLRow]?.self) { group in
                group.addTask {
                    await db.run()
                    return nil
                }
                let rows = try await db.transaction { try await $0.execute(sql, []) }
                group.cancelAll()
                return rows
            }
        }
        let db = try await SQLiteDatabase.open(path: server.data + "/paysheet.sqlite")
        let rows = try await db.transaction { try await $0.execute(sql, []) }
        await db.close()
        return rows
    }

    @Test(arguments: TestDatabases.kinds) func anAgreementStoredBeforeTokenReferencesIsFoundByItsSealedToken(
        kind: String
    ) async throws {
        let server = try await TestServer.start(database: kind)
        defer { Task { await server.stop() } }
        let (agreementId, token, _) = try await Self.subscribe(server)
        // As stored before migration 5: no reference beside the sealed token.
        _ = try await Self.execute(server, "UPDATE agreements SET token_ref = NULL WHERE id = '\(agreementId)'")
        let suspend = try await Self.event(server, token: token, "SUSPEND")
        #expect(suspend["merchantAnswer"]?["body"]?["result"] == "applied", "\(suspend.compactText)")
        #expect(try await server.api.get("/v1/agreements/\(agreementId)")["card"]?["tokenStatus"] == "suspended")
        // Found by opening its sealed token, and given its reference: found directly from then on.
        let rows = try await Self.execute(server, "SELECT token_ref FROM agreements WHERE id = '\(agreementId)'")
        let reference = try #require(try rows.first?.text("token_ref"))
        #expect(reference.count == 64 && !reference.contains(token))
        let resume = try await Self.event(server, token: token, "RESUME")
        #expect(resume["merchantAnswer"]?["body"]?["result"] == "applied")
    }
}
