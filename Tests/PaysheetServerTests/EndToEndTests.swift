import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel
import PaysheetSheet
import PaysheetSheetTokens
import PaysheetToken
import PaysheetTokenFormat
import Testing
@testable import PaysheetServer

/// Order → sheet engine → sandbox token → authorize → sandbox acquirer → notification/query →
/// order, over real HTTP on loopback, on SQLite and (in CI) PostgreSQL.
@Suite(.serialized) struct EndToEndTests {
    func snapshotText(_ sheet: PaymentSheetDriver) async -> String { await sheet.snapshot.compactText }

    @Test(arguments: TestDatabases.kinds) func aShopperPaysAndTheOrderIsPaid(kind: String) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder()
            let id = try #require(order["id"]?.stringValue)
            #expect(order["status"] == "created")
            #expect(order["paymentRequest"]?["total"]?["label"] == "Paysheet Demo Store")
            #expect(order["paymentRequest"]?["total"]?["amount"] == "173.50")
            #expect(order["paymentRequest"]?["applicationData"]?.stringValue != nil)

            let sheet = try await server.pay(order, factory: factory)
            #expect(await sheet.paid)
            let after = try await server.order(id)
            #expect(after["status"] == "paid")
            // The default wallet ships to California: the server added its tax on shippingcontactselected.
            #expect(after["amount"] == "186.08")
            let charge = try #require(after["payments"]?.arrayValue?.first)
            #expect(charge["state"] == "succeeded")
            let history = charge["history"]?.arrayValue?.compactMap { $0["to"]?.stringValue }
            #expect(history == ["submitting", "accepted", "succeeded"])
            #expect(charge["card"]?["suffix"] == "4321")
            // The acquirer charged the order's amount once.
            let ledger = try await server.ledger().filter { $0["txnType"] == "01" }
            #expect(ledger.count == 1)
            #expect(ledger.first?["amount"] == .number("18608"))
        }
    }

    @Test func declinesAreShownOnTheSheetAndTheShopperCanPayAgain() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let wallet = Wallet.withTestCards(["0064", "0063"])
            // Accepted, then declined by the issuer (asynchronous).
            let order = try await server.createOrder()
            let id = try #require(order["id"]?.stringValue)
            let declined = try await server.pay(order, wallet: wallet, card: 1, factory: factory)
            #expect(await !declined.paid)
            // A FAILURE with an `unknown` error: the sheet says "Try Again" and stays open (docs/payment-sheet.md row 9).
            #expect(await snapshotText(declined).contains("Try Again"))
            #expect(try await server.order(id)["status"] == "failed")
            #expect(try await server.order(id)["payments"]?.arrayValue?.last?["resultCode"] == "64")
            // Declined at once (frozen card).
            let frozen = try await server.pay(try await server.order(id), wallet: wallet, card: 2, factory: factory)
            #expect(await snapshotText(frozen).contains("Try Again"))
            #expect(try await server.order(id)["payments"]?.arrayValue?.last?["resultCode"] == "63")
            // The shopper pays with another card.
            let ok = try await server.pay(try await server.order(id), wallet: wallet, card: 0, factory: factory)
            #expect(await ok.paid)
            let final = try await server.order(id)
            #expect(final["status"] == "paid")
            #expect(
                final["payments"]?.arrayValue?.map { $0["state"]?.stringValue ?? "" } == [
                    "failed", "failed", "succeeded",
                ]
            )
        }
    }

    @Test func refundsAreCumulativeAndVoidsAreWhole() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder([
                "currencyCode": "CNY", "countryCode": "CN", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            let id = try #require(order["id"]?.stringValue)
            #expect(try await server.pay(order, factory: factory).paid)
            let (s1, partial) = try await server.send("POST", "/v1/orders/\(id)/refunds", #"{"amount":"30.00"}"#)
            #expect(s1 == 201)
            #expect(partial["status"] == "partially_refunded")
            #expect(partial["refunded"] == "30.00")
            let (s2, over) = try await server.send("POST", "/v1/orders/\(id)/refunds", #"{"amount":"70.01"}"#)
            #expect(s2 == 422)
            #expect(over["error"]?["code"] == "refund_exceeds_payment")
            let (s3, void) = try await server.send("POST", "/v1/orders/\(id)/void", nil)
            #expect(s3 == 409)
            #expect(void["error"]?["message"]?.stringValue?.contains("refunds") == true)
            let (s4, full) = try await server.send("POST", "/v1/orders/\(id)/refunds", "{}")
            #expect(s4 == 201)
            #expect(full["status"] == "refunded")
            #expect(full["refunded"] == "100.00")

            let other = try await server.createOrder([
                "currencyCode": "CNY", "countryCode": "CN", "lineItems": [["label": "Cup", "amount": "20.00"]],
            ])
            let otherId = try #require(other["id"]?.stringValue)
            #expect(try await server.pay(other, factory: factory).paid)
            let (s5, voided) = try await server.send("POST", "/v1/orders/\(otherId)/void", nil)
            #expect(s5 == 200)
            #expect(voided["status"] == "voided")
            let ledger = try await server.ledger()
            #expect(ledger.filter { $0["txnType"] == "04" }.count == 2)
            #expect(ledger.filter { $0["txnType"] == "31" }.count == 1)
        }
    }

    @Test func lostNotificationsAndFailedAnswersAreSettledByQueryWithoutASecondCharge() async throws {
        try await TestServer.inProcess { server in
            let charge = try await Self.payOnce(
                server,
                faults: #"{"seed":7,"dropNotification":1,"serverErrorAfter":1}"#
            )
            #expect(Self.states(charge) == ["submitting", "unknown", "succeeded"])
            #expect(charge["reason"]?.stringValue?.hasPrefix("query: success") == true)
            #expect(try await server.ledger().filter { $0["txnType"] == "01" }.count == 1)
        }
    }

    /// The notification is applied from the charge as the authorization committed it
    /// (`AwaitedCharges`); here queries answered "in progress" (`05`) have changed the payment
    /// since, so that copy is stale: the write finds the newer version, writes nothing, and the
    /// notification is applied again to the payment as read — paid once, by the notification.
    @Test(arguments: TestDatabases.kinds) func aNotificationAfterQueriesChangedThePaymentIsAppliedToTheNewest(
        kind: String
    ) async throws {
        // On loopback: the gateway's notifications reach the server. The order is driven, not
        // timed: the gateway holds the charge in processing (queries answer "in progress") until
        // the three quick queries (resultWait, then 0.2 s, 0.2 s) have been answered, then ends it
        // and sends its notification; the next query is ten minutes away. (Timed — queries at 0.3 and 0.5 s, the notification at 2 s — a
        // loaded machine let a query see the success first, or delayed the notification past 4 s.)
        let server = try await TestServer.start(database: kind) {
            $0.lifecycle.queryIntervals = [0.2, 0.2]
            $0.lifecycle.backoffIntervals = [600]
            $0.authorizeWait = 120  // the sheet waits for the release, however slow the machine
        }
        defer { Task { await server.stop() } }
        try await server.setFaults(#"{"seed":11,"holdCharges":1}"#)
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder()
        let id = try #require(order["id"]?.stringValue)
        let paying = Task { try await server.pay(order, factory: factory).paid }
        try await server.waitForHeldCharges()
        // Each query is sent after the previous one's answer was stored: the payment has changed.
        #expect(try await waitUntil { try await server.queries().count >= 3 })
        #expect(try await server.releaseCharges() == 1)
        #expect(try await paying.value)
        let charge = try #require(try await server.order(id)["payments"]?.arrayValue?.first)
        #expect(Self.states(charge) == ["submitting", "accepted", "succeeded"])
        #expect(charge["reason"]?.stringValue?.hasPrefix("notification") == true, "\(charge.compactText)")
        #expect(try await server.ledger().filter { $0["txnType"] == "01" }.count == 1)
        #expect(try await server.queries().count == 3, "a query after the notification")
    }

    /// The acquirer's acceptance is stored with the change that follows it (one write fewer per
    /// payment; `AwaitedCharges`): here with the notification, no query made.
    @Test(arguments: TestDatabases.kinds) func theAcceptanceIsStoredWithItsOutcome(kind: String) async throws {
        // The sheet waits up to 30 s for the notification (sent at once; on a loaded machine it
        // once took over 1.5 s), the first query is five minutes away.
        let server = try await TestServer.start(database: kind) {
            $0.authorizeWait = 30
            $0.lifecycle.resultWait = 300
        }
        defer { Task { await server.stop() } }
        let paid = try await Self.payOnce(server, faults: #"{"seed":3}"#)
        #expect(Self.states(paid) == ["submitting", "accepted", "succeeded"])
        #expect(paid["reason"]?.stringValue?.hasPrefix("notification") == true, "\(paid.compactText)")
        #expect(try await server.queries().isEmpty)
    }

    /// When nothing follows the acceptance in the sheet's time (the notification lost, the first
    /// query five minutes away), the authorization stores it before it answers "still processing".
    @Test(arguments: TestDatabases.kinds) func theAcceptanceIsStoredWhenTheSheetStopsWaiting(kind: String) async throws
    {
        // The sheet's wait ends (1.5 s, a deadline) long before the first query is due (300 s):
        // a loaded machine cannot change which comes first.
        let server = try await TestServer.start(database: kind) {
            $0.authorizeWait = 1.5
            $0.lifecycle.resultWait = 300
        }
        defer { Task { await server.stop() } }
        try await server.setFaults(#"{"seed":3,"dropNotification":1}"#)
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder()
        let sheet = try await server.pay(order, factory: factory)
        #expect(await !sheet.paid)
        let id = try #require(order["id"]?.stringValue)
        let charge = try #require(try await server.order(id)["payments"]?.arrayValue?.first)
        #expect(charge["state"] == "accepted")
        #expect(Self.states(charge) == ["submitting", "accepted"])
        #expect(try await server.queries().isEmpty)
    }

    /// Sets the sandbox gateway's `faults`, pays one new order through the sheet, and returns its
    /// charge as the merchant's order view shows it.
    static func payOnce(_ server: TestServer, faults: String) async throws -> JSONValue {
        try await server.setFaults(faults)
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder()
        let id = try #require(order["id"]?.stringValue)
        let sheet = try await server.pay(order, factory: factory)
        #expect(await sheet.paid)
        return try #require(try await server.order(id)["payments"]?.arrayValue?.first)
    }

    /// The states a charge went through, from its history.
    static func states(_ charge: JSONValue) -> [String] {
        charge["history"]?.arrayValue?.map { $0["to"]?.stringValue ?? "" } ?? []
    }

    @Test func tokensAreCheckedAgainstTheOrderAndUsedOnce() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let a = try await server.createOrder([
                "currencyCode": "CNY", "countryCode": "CN", "lineItems": [["label": "Tea", "amount": "66.64"]],
            ])
            let b = try await server.createOrder([
                "currencyCode": "CNY", "countryCode": "CN", "lineItems": [["label": "Tea", "amount": "10.00"]],
            ])
            let aId = try #require(a["id"]?.stringValue)
            let bId = try #require(b["id"]?.stringValue)
            // 66.64 is declined by the sandbox (insufficient funds): the order can be paid again.
            let first = try await server.pay(a, factory: factory)
            #expect(await !first.paid)
            let token = try #require(factory.tokens.last)
            let payment = ApplePayPayment(token: token, shippingContact: Wallet.default.shippingContacts[0])
            let body = try JSONValue.object(["payment": JSONValueEncoder().encode(payment)]).compactText
            // The same token again: never charged twice; answered with its charge's outcome (a
            // retry whose answer was lost learns what happened: RetriedAuthorizationTests).
            let (_, replay) = try await server.send("POST", "/v1/orders/\(aId)/authorize", body)
            #expect(replay["result"]?["errors"]?.arrayValue?.first?["message"] == "Insufficient funds")
            #expect(try await server.order(aId)["payments"]?.arrayValue?.count == 1)
            // A token made for order A presented for order B: its applicationData hash is A's.
            let (_, wrong) = try await server.send("POST", "/v1/orders/\(bId)/authorize", body)
            #expect(wrong["result"]?["errors"]?.arrayValue?.first?["message"] == "Payment is not for this order")
            #expect(try await server.order(bId)["status"] == "created")
        }
    }

    @Test func cartsMayNameCatalogProductsWhichTheServerPrices() async throws {
        try await TestServer.inProcess { server in
            let (s1, order) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","countryCode":"CN","lineItems":[{"sku":"tea-set"},{"sku":"tea-cups","quantity":2},{"label":"Gift wrap","amount":"5.00"}]}"#
            )
            #expect(s1 == 201)
            #expect(order["amount"] == "205.00")
            #expect(
                order["lineItems"]?.arrayValue?.map { $0["label"]?.stringValue ?? "" } == [
                    "Porcelain tea set", "Tea cups, set of 4 × 2", "Gift wrap",
                ]
            )
            let (s2, e2) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","countryCode":"CN","lineItems":[{"sku":"nope"}]}"#
            )
            #expect(s2 == 400 && e2["error"]?["field"] == "lineItems[0].sku")
            let (s3, e3) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"USD","countryCode":"US","lineItems":[{"sku":"tea-set"}]}"#
            )
            #expect(s3 == 400 && e3["error"]?["message"]?.stringValue?.contains("priced in CNY") == true)
            let (_, catalog) = try await server.send("GET", "/v1/catalog", nil)
            #expect(catalog["products"]?.arrayValue?.count == 3)
        }
    }

    @Test func idempotencyKeys() async throws {
        try await TestServer.inProcess { server in
            let body = #"{"currencyCode":"CNY","countryCode":"CN","lineItems":[{"label":"Tea","amount":"1.00"}]}"#
            let (s1, first) = try await server.send("POST", "/v1/orders", body, key: "order-1")
            let (s2, again) = try await server.send("POST", "/v1/orders", body, key: "order-1")
            #expect(s1 == 201 && s2 == 201)
            #expect(first["id"] == again["id"])
            let (s3, other) = try await server.send(
                "POST",
                "/v1/orders",
                body.replacingOccurrences(of: "1.00", with: "2.00"),
                key: "order-1"
            )
            #expect(s3 == 422)
            #expect(other["error"]?["code"] == "idempotency_key_reused")
        }
    }

    /// The sheet's authorize, with the order's client secret (whose key is claimed by the
    /// statement that checks the secret, on PostgreSQL).
    @Test(arguments: TestDatabases.kinds) func aKeyWhoseFirstRequestIsStillRunningGets409(kind: String) async throws {
        // The first authorize waits for the charge's outcome, which the gateway holds until the
        // second has been answered (not a head start of 0.4 s on an answer due at 1.5 s).
        let server = try await TestServer.start(database: kind) { $0.authorizeWait = 120 }
        defer { Task { await server.stop() } }
        try await server.setFaults(#"{"seed":1,"holdCharges":1}"#)
        let factory = try await server.tokenFactory()
        // A token for this order, made by a sheet whose authorization we do not send.
        let (id, secret, body) = try await server.orderWithAuthorizeBody(factory)
        let first = Task {
            try await server.send("POST", "/v1/orders/\(id)/authorize", body, key: "pay-\(id)", auth: secret)
        }
        try await server.waitForHeldCharges()
        let (s2, e2) = try await server.send("POST", "/v1/orders/\(id)/authorize", body, key: "pay-\(id)", auth: secret)
        #expect(s2 == 409)
        #expect(e2["error"]?["code"] == "idempotency_key_in_use")
        #expect(try await server.releaseCharges() == 1)
        let (s1, r1) = try await first.value
        #expect(s1 == 200)
        #expect(r1["result"]?["status"] == JSONValue.number("0"))
        // Afterwards the same key and body get the stored answer.
        let (s3, r3) = try await server.send("POST", "/v1/orders/\(id)/authorize", body, key: "pay-\(id)", auth: secret)
        #expect(s3 == 200 && r3 == r1)
        // The merchant reusing the shopper's key is another caller, with keys of its own: its
        // request is its own, never the shopper's stored answer — the same token again, answered
        // with the outcome of the charge it made (RetriedAuthorizationTests), in the merchant's
        // view of the order (the acquirer's identifiers and the history, which the shopper's lacks).
        let (s4, e4) = try await server.send("POST", "/v1/orders/\(id)/authorize", body, key: "pay-\(id)")
        #expect(s4 == 200 && e4["result"]?["status"] == JSONValue.number("0"), "\(s4) \(e4)")
        #expect(e4 != r1)
        #expect(e4["order"]?["payments"]?.arrayValue?.first?["history"] != nil)
        #expect(r1["order"]?["payments"]?.arrayValue?.first?["history"] == nil)
        #expect(try await server.ledger().filter { $0["txnType"] == "01" }.count == 1)
    }

    @Test func badRequestsNameTheField() async throws {
        try await TestServer.inProcess { server in
            let (s1, e1) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"CNY","countryCode":"CN","lineItems":[{"label":"Tea","amount":"1.001"}]}"#
            )
            #expect(s1 == 400 && e1["error"]?["field"] == "lineItems[0].amount")
            let (s2, e2) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"currencyCode":"XXX","countryCode":"CN","lineItems":[]}"#
            )
            #expect(s2 == 400 && e2["error"]?["field"] == "currencyCode")
            let (s3, e3) = try await server.send("POST", "/v1/orders", "not json")
            #expect(s3 == 400 && e3["error"]?["code"] == "invalid_request")
            let (s4, _) = try await server.send("GET", "/v1/orders/ord_nope", nil)
            #expect(s4 == 404)
            let order = try await server.createOrder()
            let (s5, e5) = try await server.send(
                "POST",
                "/v1/orders/\(order["id"]?.stringValue ?? "")/merchant-session",
                #"{"validationURL":"https://evil.example.com/x"}"#
            )
            #expect(s5 == 400 && e5["error"]?["field"] == "validationURL")
            let (s6, _) = try await server.send("POST", "/v1/notifications/unionpay", "respCode=00&orderId=x")
            #expect(s6 == 400)
        }
    }

    @Test func noCardDataReachesTheDatabaseOrTheLogs() async throws {
        let server = try await TestServer.start()
        let factory = try await server.tokenFactory()
        try await server.setFaults(#"{"seed":3,"duplicateNotification":1}"#)
        for wallet in [Wallet.default, Wallet.withTestCards(["0064"])] {
            let order = try await server.createOrder()
            _ = try await server.pay(order, wallet: wallet, card: wallet.cards.count - 1, factory: factory)
        }
        let merchant = try SandboxMerchant.loadOrCreate(
            dataFolder: server.data,
            merchantIdentifier: "merchant.dev.paysheet.sandbox"
        )
        let decryptor = PaymentTokenDecryptor(
            keys: MerchantKeyring([merchant]),
            verifier: PaymentTokenVerifier(trust: try SandboxMerchant.pki(dataFolder: server.data).trustAnchors),
            replayGuard: nil
        )
        var secrets: [String] = []
        for token in factory.tokens {
            let d = try await decryptor.decrypt(json: Array(token.paymentData.compactText.utf8))
            secrets.append(d.paymentData.applicationPrimaryAccountNumber)
            if case .threeDSecure(let cryptogram, _) = d.paymentData.details { secrets.append(cryptogram) }
        }
        #expect(secrets.count >= 4)
        await server.stop()
        let db = try await SQLiteDatabase.open(path: server.data + "/paysheet.sqlite")
        var dump = ""
        for table in ["orders", "payments", "payment_events", "notifications", "token_uses", "idempotency_keys"] {
            let rows = try await db.transaction { try await $0.execute("SELECT * FROM \(table)", []) }
            dump += rows.map { $0.values.map { $0 ?? "" }.joined(separator: "|") }.joined(separator: "\n")
        }
        await db.close()
        #expect(dump.contains("notification"))  // the dump is real
        let logs = server.logs.all.joined(separator: "\n")
        #expect(logs.contains("succeeded"))
        for secret in secrets {
            #expect(!dump.contains(secret), "card data in the database")
            #expect(!logs.contains(secret), "card data in the logs")
        }
    }
    @Test func theDropInItsBridgeAndTheDemoStoreAreServed() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let (storeStatus, store) = try await server.send("GET", "/", nil)
        #expect(storeStatus == 200)
        #expect(store.stringValue?.contains("Paysheet Demo Store") == true)
        #expect(store.stringValue?.contains("/paysheet.js") == true)
        let (jsStatus, js) = try await server.send("GET", "/paysheet.js", nil)
        #expect(jsStatus == 200)
        #expect(js.stringValue?.contains("window.ApplePaySession = ApplePaySession") == true)

        // The bridge issues the page's id, and answers a page on another origin (CORS) with the engine's verdict.
        let (createdStatus, created) = try await server.send("POST", "/paysheet/v1/pages", "{}")
        #expect(createdStatus == 201)
        let page = try #require(created["page"]?.stringValue)
        let (unknownStatus, _) = try await server.send("POST", "/paysheet/v1/pages/page-e2e-0001", #"{"op":"state"}"#)
        #expect(unknownStatus == 404)
        var r = HTTPClientRequest(url: server.url + "/paysheet/v1/pages/" + page)
        r.method = .POST
        r.headers.add(name: "Content-Type", value: "text/plain;charset=UTF-8")
        r.headers.add(name: "Origin", value: "http://shop.example")
        r.body = .bytes(ByteBuffer(string: #"{"op":"construct","version":3,"request":{},"userGesture":true}"#))
        let response = try await server.http.execute(r, timeout: .seconds(10))
        #expect(response.status == .ok)
        #expect(response.headers.first(name: "Access-Control-Allow-Origin") == "*")
        let answer = try JSONParser.parse(Array(buffer: try await response.body.collect(upTo: 1 << 20)))
        #expect(
            answer["threw"] == [
                "name": "TypeError",
                "message": "Member ApplePayPaymentRequest.countryCode is required and must be an instance of DOMString",
            ]
        )

        let (badStatus, bad) = try await server.send("POST", "/paysheet/v1/pages/" + page, "{not json")
        #expect(badStatus == 400)
        #expect(bad["error"]?["message"]?.stringValue?.contains("not valid JSON") == true)
    }
}
