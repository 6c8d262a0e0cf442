import AsyncHTTPClient
import Foundation
import PaysheetModel
import Testing
@testable import PaysheetServer

/// Several `paysheet serve` on one PostgreSQL: every server equal, no payment worked twice, and a
/// settlement on one server wakes the authorization waiting on another.
@Suite(
    .serialized,
    .enabled(if: TestDatabases.postgresURL != nil, "needs PAYSHEET_TEST_POSTGRES_URL (CI starts PostgreSQL)")
)
struct MultiServerTests {
    @Test func anAuthorizationWaitingOnOneServerReturnsWhenTheNotificationReachesAnother() async throws {
        // Server A takes the authorization; the gateway's notification goes to server B (A's public
        // URL is B's). A neither queries (5 minutes) nor reads the payment on its own (10 minutes)
        // within the sheet's 30 s: only B's settlement, announced through PostgreSQL, can end A's
        // wait in time for the sheet, so the payment is paid only if the announcement woke A.
        let portB = Int.random(in: 40_001...50_000)
        let a = try await TestServer.start(database: "postgres") { c in
            c.publicURL = "http://127.0.0.1:\(portB)"
            c.lifecycle.resultWait = 300
            c.authorizeWait = 120
            c.announcedReadInterval = 600
        }
        defer { Task { await a.stop() } }
        let b = try await TestServer.start(port: portB, joining: a)
        defer { Task { await b.stop() } }
        // The gateway holds the charge in processing until A is waiting for it, then the test ends
        // it (no processing time on the wall clock).
        try await a.setFaults(#"{"holdCharges": 1}"#)
        #expect(try await waitUntil { try await a.send("GET", "/health", nil).1["otherServers"] == "listening" })
        let factory = try await a.tokenFactory()
        let order = try await a.createOrder([
            "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
        ])
        let paying = Task { try await a.pay(order, factory: factory).paid }
        try await a.waitForHeldCharges()
        #expect(try await a.releaseCharges() == 1)
        #expect(try await paying.value, "A's authorization was not woken by B's announcement within the sheet's 30 s")
        #expect(
            b.logs.firstTime(containing: "→ succeeded") != nil,
            "the notification did not settle the payment on B"
        )
        #expect(
            a.logs.firstTime(containing: "→ succeeded") == nil,
            "A settled the payment itself: the notification was to reach B only"
        )
    }

    @Test func twoServersNeverQueryThePaymentAtOnceAndBothStartOnOneDatabase() async throws {
        // Both servers query due payments every 50 ms; queries answer after 1 s (slow), the
        // notifications are lost, results take 2 s. Without a claim, both would query every payment.
        let a = try await TestServer.start(database: "postgres") { c in c.lifecycle.leaseSeconds = 10 }
        defer { Task { await a.stop() } }
        async let second = TestServer.start(joining: a) { c in c.lifecycle.leaseSeconds = 10 }
        async let third = TestServer.start(joining: a) { c in c.lifecycle.leaseSeconds = 10 }
        let (b, c) = try await (second, third)  // three servers migrating one database at once
        defer {
            Task {
                await b.stop()
                await c.stop()
            }
        }
        try await a.setFaults(
            #"{"processingSeconds": 2, "dropNotification": 1, "slowQuery": 1, "slowQuerySeconds": 1}"#
        )
        let factory = try await a.tokenFactory()
        var orders: [String] = []
        try await withThrowingTaskGroup(of: String.self) { group in
            for server in [a, b, c] {
                for _ in 0..<2 {
                    group.addTask {
                        let order = try await server.createOrder([
                            "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "10.00"]],
                        ])
                        _ = try await server.pay(order, factory: factory)
                        return order["id"]?.stringValue ?? ""
                    }
                }
            }
            for try await id in group { orders.append(id) }
        }
        for id in orders {
            #expect(try await waitUntil(every: .milliseconds(100)) { try await a.order(id)["status"] == "paid" })
        }
        // No two queries of one payment overlap: each was claimed by one server at a time.
        let log = try await a.queries()
        let byTransaction = Dictionary(grouping: log, by: { $0["transaction"]?.stringValue ?? "" })
        #expect(!byTransaction.isEmpty)
        for (transaction, queries) in byTransaction {
            let spans = queries.compactMap { q -> (Int, Int)? in
                guard let r = q["receivedMs"]?.stringValue.flatMap(Int.init),
                    let e = q["answeredMs"]?.stringValue.flatMap(Int.init)
                else { return nil }
                return (r, e)
            }.sorted { $0.0 < $1.0 }
            for (previous, next) in zip(spans, spans.dropFirst()) {
                #expect(next.0 >= previous.1, "\(transaction): a query began before the previous one was answered")
            }
        }
        #expect(try await a.ledger().filter { $0["txnType"] == "01" && $0["respCode"] == "00" }.count == orders.count)
    }

    @Test func healthAnswers503WhenTheDatabaseDoesNot() async throws {
        let server = try await TestServer.start(database: "postgres")
        defer { Task { await server.stop() } }
        #expect(try await server.send("GET", "/health", nil).0 == 200)
        // Drop the server's database connections and forbid new ones.
        let name = String(server.databaseURL?.split(separator: "/").last ?? "")
        let admin = try PostgresDatabase(url: TestDatabases.postgresURL!)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await admin.run() }
            try await admin.executeOutsideTransaction("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
            try await admin.executeOutsideTransaction(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'"
            )
            #expect(
                try await waitUntil(every: .milliseconds(250)) {
                    try await server.send("GET", "/health", nil, auth: "").0 == 503
                }
            )
            try await admin.executeOutsideTransaction("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
            // The pool reconnects with a backoff.
            #expect(
                try await waitUntil(every: .milliseconds(250)) {
                    try await server.send("GET", "/health", nil, auth: "").0 == 200
                }
            )
            group.cancelAll()
        }
    }
}
