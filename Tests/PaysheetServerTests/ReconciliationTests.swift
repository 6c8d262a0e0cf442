import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import PaysheetModel
import PaysheetSandboxServer
import Testing
import UnionPay
@testable import PaysheetServer

/// The daily reconciliation: the acquirer's settlement file against the ledger.
@Suite(.serialized) struct ReconciliationTests {
    static let at = Date(timeIntervalSince1970: 1_790_000_000)
    static let config = LifecycleConfiguration()

    func payment(
        _ n: Int,
        amount: Int = 1_000,
        state: PaymentLifecycle.State,
        kind: PaymentKind = .charge
    ) -> PaymentRecord {
        var lifecycle = PaymentLifecycle(expectedAmount: amount, submittedAt: Self.at, configuration: Self.config)
        switch state {
        case .succeeded:
            _ = lifecycle.receive(.answer(.accepted(reference: "Q\(n)")), now: Self.at, configuration: Self.config)
            _ = lifecycle.receive(
                .notification(.succeeded(amount: .yuan(amount), reference: "Q\(n)")),
                now: Self.at,
                configuration: Self.config
            )
        case .failed:
            _ = lifecycle.receive(.answer(.declined(code: "64", message: "")), now: Self.at, configuration: Self.config)
        default: _ = lifecycle.receive(.answer(.accepted(reference: "Q\(n)")), now: Self.at, configuration: Self.config)
        }
        return PaymentRecord(
            id: "pay_\(n)",
            orderId: "ord_\(n)",
            kind: kind,
            identity: TransactionIdentity(orderId: "pay\(n)", txnTime: "20261122100000"),
            amount: .yuan(amount),
            lifecycle: lifecycle,
            createdAt: Self.at
        )
    }

    func settled(_ p: PaymentRecord, amount: Int? = nil) -> SettledTransaction {
        SettledTransaction(
            identity: p.identity,
            reference: "Q",
            amount: amount ?? p.amount.minorUnits,
            type: p.kind == .charge ? "01" : "04"
        )
    }

    @Test func eachKindOfDifferenceIsFoundAndABalancedDayHasNone() {
        let ok = payment(1, state: .succeeded)
        let refund = payment(2, amount: 300, state: .succeeded, kind: .refund)
        let failedHere = payment(3, state: .failed)
        let wrongAmount = payment(4, state: .succeeded)
        let missing = payment(5, state: .succeeded)
        let unknown = SettledTransaction(
            identity: TransactionIdentity(orderId: "nobody", txnTime: "20261122090000"),
            reference: "QX",
            amount: 5,
            type: "01"
        )
        let file = [settled(ok), settled(refund), settled(failedHere), settled(wrongAmount, amount: 999), unknown]
        let known = Dictionary(uniqueKeysWithValues: [ok, refund, failedHere, wrongAmount].map { ($0.identity, $0) })
        let sent = [ok, refund, failedHere, wrongAmount, missing, payment(6, state: .failed)]
        let report = Reconciliation.compare(
            day: "20261122",
            fileName: "f.zip",
            file: file,
            nextDay: [],
            known: known,
            sentThatDay: sent,
            at: Self.at
        )
        #expect(report.fileTransactions == 5)
        #expect(report.matched == 2)
        #expect(report.awaitingNextFile == 0)
        #expect(
            report.differences.map(\.kind) == [.notSucceededHere, .amountMismatch, .unknownToUs, .missingAtAcquirer]
        )
        #expect(report.differences.map(\.paymentId) == ["pay_3", "pay_4", nil, "pay_5"])
        #expect(report.differences[1].amountHere == 1_000 && report.differences[1].amountInFile == 999)
        // The next day's file not there yet: the missing payment waits, it is not a difference.
        let early = Reconciliation.compare(
            day: "20261122",
            fileName: "f.zip",
            file: file,
            nextDay: nil,
            known: known,
            sentThatDay: sent,
            at: Self.at
        )
        #expect(early.awaitingNextFile == 1)
        #expect(!early.differences.contains { $0.kind == .missingAtAcquirer })
        // Found in the next day's file (sent just before the cut-off): balanced.
        let later = Reconciliation.compare(
            day: "20261122",
            fileName: "f.zip",
            file: file,
            nextDay: [settled(missing)],
            known: known,
            sentThatDay: sent,
            at: Self.at
        )
        #expect(!later.differences.contains { $0.kind == .missingAtAcquirer })
        let balanced = Reconciliation.compare(
            day: "20261122",
            fileName: "f.zip",
            file: [settled(ok), settled(refund)],
            nextDay: [],
            known: known,
            sentThatDay: [ok, refund, failedHere],
            at: Self.at
        )
        #expect(balanced.differences.isEmpty && balanced.matched == 2)
    }

    @Test func aReconcileHourOutsideTheDayIsRefusedAtStart() async throws {
        var c = ServerConfiguration()
        c.dataFolder = NSTemporaryDirectory() + "paysheet-hour-" + UUID().uuidString
        c.acquirer.reconcileHour = 30
        let configuration = c
        await #expect(throws: ConfigurationError.self) {
            try await MerchantServer.run(configuration, logger: Logger(label: "test"), sandbox: BuiltInSandbox())
        }
    }

    func database(_ server: TestServer, _ sql: String) async throws {
        _ = try await APIKeys.withDatabase(server.databaseURL, dataFolder: server.data) {
            try await $0.store.database.write(sql, [])
        }
    }

    func setFileClock(_ server: TestServer, _ seconds: Int) async throws {
        var r = HTTPClientRequest(url: server.gatewayURL + "/sandbox/clock")
        r.method = .PUT
        r.body = .bytes(ByteBuffer(string: #"{"fileOffsetSeconds": \#(seconds)}"#))
        #expect(try await server.http.execute(r, timeout: .seconds(5)).status == .ok)
    }

    @Test(arguments: TestDatabases.kinds) func aDayIsReconciledAgainstTheSandboxsFileEndToEnd(kind: String) async throws
    {
        let server = try await TestServer.start(database: kind)
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        var ids: [String] = []
        for _ in 0..<3 {
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            #expect(try await server.pay(order, factory: factory).paid)
            ids.append(try #require(order["id"]?.stringValue))
        }
        #expect(
            try await server.send("POST", "/v1/orders/\(ids[0])/refunds", #"{"amount":"10.00"}"#, key: "r1").0 == 201
        )
        #expect(
            try await waitUntil(every: .milliseconds(100)) {
                try await server.order(ids[0])["payments"]?.arrayValue?.last?["state"] == "succeeded"
            }
        )
        let today = String(TransactionTime.format(Date()).prefix(8))
        // Only the merchant may reconcile or read a report.
        #expect(try await server.send("POST", "/v1/reconciliations", #"{"day":"\#(today)"}"#, auth: "").0 == 401)
        #expect(
            try await server.send(
                "POST",
                "/v1/reconciliations",
                #"{"day":"\#(today)"}"#,
                auth: try #require(server.secret(ids[1]))
            ).0 == 401
        )
        #expect(try await server.send("GET", "/v1/reconciliations/\(today)", nil, auth: "").0 == 401)
        #expect(try await server.send("POST", "/v1/reconciliations", #"{"day":"2026-11-22"}"#).0 == 400)
        // Today has not ended: UnionPay (and the sandbox) have no file yet.
        let (early, earlyBody) = try await server.send("POST", "/v1/reconciliations", #"{"day":"\#(today)"}"#)
        #expect(early == 409)
        #expect(earlyBody["error"]?["code"] == "settlement_file_not_ready")
        #expect(try await server.send("GET", "/v1/reconciliations/\(today)", nil).0 == 404)

        // A day later: three consumes and a refund, all as the ledger has them.
        try await setFileClock(server, 86_400)
        let (status, report) = try await server.send("POST", "/v1/reconciliations", #"{"day":"\#(today)"}"#)
        #expect(status == 201)
        #expect(report["fileTransactions"] == 4)
        #expect(report["matched"] == 4)
        #expect(report["differences"]?.arrayValue?.isEmpty == true)
        #expect(try await server.send("GET", "/v1/reconciliations/\(today)", nil).1["matched"] == 4)

        // The ledger altered behind the server's back: one charge forgotten, one amount changed.
        let charges = try await server.ledger().filter { $0["txnType"] == "01" }.compactMap {
            $0["orderId"]?.stringValue
        }
        try await database(server, "DELETE FROM payments WHERE acquirer_order_id = '\(charges[1])'")
        try await database(
            server,
            "UPDATE payments SET body = replace(body, '\"amount\":10000', '\"amount\":10001') WHERE acquirer_order_id = '\(charges[2])'"
        )
        let (_, second) = try await server.send("POST", "/v1/reconciliations", #"{"day":"\#(today)"}"#)
        let kinds = second["differences"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? []
        #expect(kinds.sorted() == ["amountMismatch", "unknownToUs"])
        #expect(second["matched"] == 2)
        #expect(server.logs.all.contains { $0.contains("reconciliation \(today): unknownToUs") })
        // The stored report is the latest.
        #expect(try await server.send("GET", "/v1/reconciliations/\(today)", nil).1["matched"] == 2)
    }
}
