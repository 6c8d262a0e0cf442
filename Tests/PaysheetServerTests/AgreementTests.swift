import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel
import PaysheetSheet
import PaysheetSheetTokens
import PaysheetToken
import Testing
@testable import PaysheetServer

/// A subscription end to end: a recurring request on the sheet, the token's merchant token kept
/// (sealed) by the server, the first payment, merchant-initiated charges on a virtual clock, a
/// decline, a cancel, a refused charge; on SQLite and (in CI) PostgreSQL.
@Suite(.serialized) struct AgreementTests {
    static let month: Double = 31 * 86_400

    @Test(arguments: TestDatabases.kinds) func aSubscriptionIsPaidChargedDeclinedAndCanceled(kind: String) async throws
    {
        // A charge waits for its outcome (held by the acquirer below) however slow the machine.
        let server = try await TestServer.start(database: kind) { $0.authorizeWait = 120 }
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()

        // The order for the plan: the sheet is asked for a recurring payment with a trial.
        let order = try await server.createOrder(["plan": "tea-monthly"])
        let orderId = try #require(order["id"]?.stringValue)
        let recurring = try #require(order["paymentRequest"]?["recurringPaymentRequest"])
        #expect(recurring["regularBilling"]?["amount"] == "29.00")
        #expect(recurring["regularBilling"]?["paymentTiming"] == "recurring")
        #expect(recurring["trialBilling"]?["amount"] == "1.00")
        #expect(recurring["managementURL"]?.stringValue?.hasSuffix("/subscription.html") == true)
        #expect(order["amount"] == "1.00")
        let agreementId = try #require(order["agreementId"]?.stringValue)

        // The shopper pays; the sheet showed the agreement.
        let sheet = try await server.pay(order, factory: factory)
        #expect(await sheet.paid)
        let shown = await sheet.snapshot
        #expect(shown["modules"]?["billing"]?["kind"] == "recurring")
        #expect(
            shown["modules"]?["billing"]?["regular"]?["text"]?.stringValue?.hasPrefix("29.00 CNY every month") == true
        )

        // The token carried a merchant token; the agreement knows its last digits only.
        let merchant = try SandboxMerchant.loadOrCreate(
            dataFolder: server.data,
            merchantIdentifier: "merchant.dev.paysheet.sandbox"
        )
        let decryptor = PaymentTokenDecryptor(
            keys: MerchantKeyring([merchant]),
            verifier: PaymentTokenVerifier(trust: try SandboxMerchant.pki(dataFolder: server.data).trustAnchors),
            replayGuard: nil
        )
        let token = try #require(factory.tokens.last)
        let decrypted = try await decryptor.decrypt(json: Array(token.paymentData.compactText.utf8)).paymentData
        let mpan = decrypted.applicationPrimaryAccountNumber
        #expect(decrypted.isMerchantToken)
        #expect(decrypted.merchantTokenMetadata?.fpanSuffix == "1234")
        var agreement = try await server.api.get("/v1/agreements/\(agreementId)")
        #expect(agreement["status"] == "active")
        #expect(agreement["card"]?["tokenSuffix"]?.stringValue == String(mpan.suffix(4)))
        #expect(agreement["card"]?["cardSuffix"] == "1234")

        // Not due yet: refused, nothing sent.
        let (early, earlyBody) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(early == 409 && earlyBody["error"]?["code"] == "charge_not_due")
        // The shopper's client secret cannot charge.
        let secret = try #require(server.secret(orderId))
        let (asShopper, _) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil, auth: secret)
        #expect(asShopper == 401)

        // A month later: charged with the stored token, paid.
        server.advanceClock(by: Self.month)
        let (s1, c1) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil, key: "charge-1")
        #expect(s1 == 201)
        #expect(c1["charge"]?["status"] == "paid")
        #expect(c1["charge"]?["amount"] == "29.00")
        #expect(c1["charge"]?["agreementId"]?.stringValue == agreementId)
        // The same idempotency key answers the same, and charges nothing more; the period is paid.
        let (again, c1again) = try await server.send(
            "POST",
            "/v1/agreements/\(agreementId)/charges",
            nil,
            key: "charge-1"
        )
        #expect(again == 201 && c1again["charge"]?["id"] == c1["charge"]?["id"])
        let (twice, twiceBody) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(twice == 409 && twiceBody["error"]?["code"] == "charge_not_due")

        // Another month: paid again. While the charge is with the acquirer, the agreement is still
        // readable (its next charge unknown) and a second charge is refused. The acquirer holds
        // the charge in processing until those checks are done (with a processing time of 1.5 s,
        // then 3 s, a loaded machine once sent the second charge after it, and met "not due").
        server.advanceClock(by: Self.month)
        try await server.setFaults(#"{"seed":7,"holdCharges":1}"#)
        let inFlight = Task { try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil) }
        try await server.waitForHeldCharges()
        let (readStatus, read) = try await server.send("GET", "/v1/agreements/\(agreementId)", nil, auth: secret)
        #expect(readStatus == 200, "the agreement while a charge is in flight: \(readStatus) \(read.compactText)")
        #expect(read["charges"]?.arrayValue?.count == 2)
        #expect(read["status"] == "active" && read["nextChargeDue"] == nil)
        let (busy, busyBody) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(busy == 409 && busyBody["error"]?["code"] == "charge_in_progress", "\(busyBody.compactText)")
        #expect(try await server.releaseCharges() == 1)
        let (s2, c2) = try await inFlight.value
        #expect(s2 == 201 && c2["charge"]?["status"] == "paid")
        try await server.setFaults(#"{"seed":7}"#)

        // The next month the shopper's card was removed from the wallet: the network declines.
        server.advanceClock(by: Self.month)
        try await server.setMerchantToken(suffix: String(mpan.suffix(4)), status: "deleted")
        let (s3, c3) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(s3 == 201 && c3["charge"]?["status"] == "failed")
        #expect(c3["charge"]?["payments"]?.arrayValue?.first?["resultCode"] == "63")
        // A declined period may be tried again (once the token works again): it is still the one due.
        try await server.setMerchantToken(suffix: String(mpan.suffix(4)), status: "active")
        let (s4, c4) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(s4 == 201 && c4["charge"]?["status"] == "paid")

        // The shopper cancels from the subscription page (the order's client secret); no charge after it.
        let (cancel, canceled) = try await server.send(
            "POST",
            "/v1/agreements/\(agreementId)/cancel",
            nil,
            auth: secret
        )
        #expect(cancel == 200 && canceled["status"] == "canceled")
        server.advanceClock(by: Self.month)
        let (s5, refused) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        #expect(s5 == 409 && refused["error"]?["code"] == "agreement_canceled")

        // The acquirer charged exactly: the first payment with the device's cryptogram, then three
        // token payments (one declined) of 29.00.
        let consumes = try await server.ledger().filter { $0["txnType"] == "01" }
        #expect(consumes.count == 5)
        #expect(consumes.compactMap { $0["amount"]?.compactText }.sorted() == ["100", "2900", "2900", "2900", "2900"])
        agreement = try await server.api.get("/v1/agreements/\(agreementId)")
        #expect(
            agreement["charges"]?.arrayValue?.compactMap { $0["status"]?.stringValue } == [
                "paid", "paid", "failed", "paid",
            ]
        )

        // The merchant token is nowhere in clear: not in the logs, not in an answer.
        #expect(!server.logs.all.joined(separator: "\n").contains(mpan))
        #expect(!agreement.compactText.contains(mpan))
        #expect(!c1.compactText.contains(mpan))
        // Nor in the database: every table, read raw (SQLite; the same rows are written on PostgreSQL).
        if kind == "sqlite" {
            await server.stop()
            let db = try await SQLiteDatabase.open(path: server.data + "/paysheet.sqlite")
            var dump = ""
            for table in ["orders", "payments", "payment_events", "notifications", "token_uses", "agreements"] {
                let rows = try await db.transaction { try await $0.execute("SELECT * FROM \(table)", []) }
                dump += rows.map { $0.values.map { $0 ?? "" }.joined(separator: "|") }.joined(separator: "\n")
            }
            await db.close()
            #expect(dump.contains(agreementId) && dump.contains("credential"))  // the dump is real
            #expect(!dump.contains(mpan), "the merchant token in the database")
            #expect(
                !dump.contains(decrypted.merchantTokenIdentifier ?? "-"),
                "the merchant token identifier in the database"
            )
        }
    }

    @Test func anAutomaticReloadIsChargedWhenTheMerchantAsksOneChargeAtATime() async throws {
        let server = try await TestServer.start { c in
            c.authorizeWait = 120  // the held charge below waits for its release, however slow the machine
            c.merchant.plans.append(
                SubscriptionPlan(
                    id: "card-top-up",
                    kind: .automaticReload,
                    description: "Tea card top-up",
                    label: "Top-up",
                    amount: "50.00",
                    currencyCode: "CNY",
                    thresholdAmount: "10.00",
                    billingAgreement: "50.00 CNY whenever your tea card falls below 10.00 CNY."
                )
            )
        }
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder(["plan": "card-top-up"])
        let reload = try #require(order["paymentRequest"]?["automaticReloadPaymentRequest"])
        #expect(reload["automaticReloadBilling"]?["paymentTiming"] == "automaticReload")
        #expect(reload["automaticReloadBilling"]?["automaticReloadPaymentThresholdAmount"] == "10.00")
        #expect(order["paymentRequest"]?["recurringPaymentRequest"] == nil)
        #expect(order["amount"] == "50.00")
        let sheet = try await server.pay(order, factory: factory)
        #expect(await sheet.paid)
        #expect(
            await sheet.snapshot["modules"]?["billing"]?["reload"]?["text"]
                == "50.00 CNY when the balance falls below 10.00 CNY"
        )
        let agreementId = try #require(order["agreementId"]?.stringValue)
        // No period: the merchant reloads when the balance is low, at once and again.
        for n in 1...2 {
            let (status, charged) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
            #expect(status == 201 && charged["charge"]?["status"] == "paid", "reload \(n)")
        }
        // Two at once: one is charged, the other is refused or never sent; the acquirer charges one.
        let before = try await server.ledger().filter { $0["txnType"] == "01" }.count
        // The acquirer holds the charge it gets in processing until the other has been answered
        // (with a processing time of 1 s, a slow start of the second could let it come after).
        try await server.setFaults(#"{"seed":5,"holdCharges":1}"#)
        let finished = SharedCount()
        let charge = { @Sendable in
            defer { finished.increment() }
            return try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil)
        }
        let a = Task { try await charge() }
        let b = Task { try await charge() }
        try await server.waitForHeldCharges()
        #expect(try await waitUntil { finished.value >= 1 }, "the other charge waited for the held one")
        #expect(try await server.releaseCharges() == 1)
        let (ra, rb) = try await (a.value, b.value)
        let codes = [ra, rb].map {
            $0.1["error"]?["code"]?.stringValue ?? $0.1["charge"]?["status"]?.stringValue ?? "?"
        }
        #expect(codes.filter { $0 == "paid" || $0 == "pending" }.count == 1, "\(codes)")
        #expect(codes.contains("charge_in_progress"), "\(codes)")
        let after = try await server.ledger().filter { $0["txnType"] == "01" }.count
        #expect(after == before + 1)
    }

    @Test func anAgreementHasOwners() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder(["plan": "tea-monthly"])
            let agreementId = try #require(order["agreementId"]?.stringValue)
            _ = try await server.pay(order, factory: factory)
            let other = try await server.createOrder(["plan": "tea-monthly"])
            let otherSecret = try #require(server.secret(other["id"]?.stringValue ?? ""))
            let revoked = try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) { keys in
                let (record, key) = try await keys.create(name: "to be revoked")
                #expect(try await keys.revoke(record.id))
                return key
            }
            let secret = try #require(server.secret(order["id"]?.stringValue ?? ""))
            let before = try await server.api.get("/v1/agreements/\(agreementId)")
            // Nobody, a revoked key, something else: 401. Another order's secret: 404 (as if it did not
            // exist). The agreement's own client secret cannot charge. Nothing changes.
            for (method, path) in [("GET", ""), ("POST", "/cancel"), ("POST", "/charges")] {
                for credential in ["", revoked, "Basic x", "psk_forged"] {
                    let (status, body) = try await server.send(
                        method,
                        "/v1/agreements/\(agreementId)\(path)",
                        nil,
                        auth: credential
                    )
                    #expect(
                        status == 401 && body["error"]?["code"] == "unauthorized",
                        "\(method) \(path) as \(credential.prefix(6))"
                    )
                }
            }
            let (charge, _) = try await server.send("POST", "/v1/agreements/\(agreementId)/charges", nil, auth: secret)
            #expect(charge == 401)
            #expect(try await server.api.get("/v1/agreements/\(agreementId)") == before)
            let (foreign, _) = try await server.send("GET", "/v1/agreements/\(agreementId)", nil, auth: otherSecret)
            #expect(foreign == 404)
            let (foreignCancel, _) = try await server.send(
                "POST",
                "/v1/agreements/\(agreementId)/cancel",
                nil,
                auth: otherSecret
            )
            #expect(foreignCancel == 404)
            let (unknown, _) = try await server.send("GET", "/v1/agreements/agr_nothing", nil)
            #expect(unknown == 404)
            let (stillActive, view) = try await server.send("GET", "/v1/agreements/\(agreementId)", nil)
            #expect(stillActive == 200 && view["status"] == "active")
            // A plan order is priced only by the plan.
            let (mixed, mixedBody) = try await server.send(
                "POST",
                "/v1/orders",
                #"{"plan":"tea-monthly","lineItems":[{"label":"x","amount":"0.01"}]}"#
            )
            #expect(mixed == 400 && mixedBody["error"]?["field"] == "plan")
            let (unknownPlan, _) = try await server.send("POST", "/v1/orders", #"{"plan":"gold"}"#, auth: "")
            #expect(unknownPlan == 400)
        }
    }
}
