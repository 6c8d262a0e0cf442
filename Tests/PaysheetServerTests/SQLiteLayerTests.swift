import Foundation
import Testing
@testable import PaysheetServer

/// The SQLite layer under the store: transactions one at a time, rollback, errors that name the
/// statement, the statement cache, reads beside a write, and the timestamps it stores.
@Suite struct SQLiteLayerTests {
    static func withDatabase(_ body: (SQLiteDatabase) async throws -> Void) async throws {
        let folder = NSTemporaryDirectory() + "paysheet-sqlite-" + UUID().uuidString
        let db = try await SQLiteDatabase.open(path: folder + "/t.sqlite")
        _ = try await db.transaction {
            try await $0.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, note TEXT)", [])
        }
        _ = try await db.transaction { try await $0.execute("INSERT INTO counter (id, n) VALUES (1, 0)", []) }
        try await body(db)
        await db.close()
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test func concurrentReadModifyWriteTransactionsDoNotLoseUpdates() async throws {
        try await Self.withDatabase { db in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        try await db.transaction { tx in
                            let n =
                                Int(
                                    try await tx.execute("SELECT CAST(n AS TEXT) AS n FROM counter WHERE id = 1", [])[0]
                                        .text("n")
                                        ?? ""
                                ) ?? -1
                            await Task.yield()  // another transaction would interleave here without the gate
                            try await tx.execute("UPDATE counter SET n = $1 WHERE id = 1", [.int(n + 1)])
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(
                try await db.read("SELECT CAST(n AS TEXT) AS n FROM counter WHERE id = 1", []).map(\.values) == [
                    ["200"]
                ]
            )
        }
    }

    /// A commit is on disk before the statement returns (`synchronous=FULL`): the server calls
    /// the acquirer only after the payment it is about to charge is stored, and with SQLite's
    /// `NORMAL` a power loss could undo that commit after the acquirer had charged.
    @Test func commitsAreDurableInWALMode() async throws {
        try await Self.withDatabase { db in
            let journal = try db.writer.execute("PRAGMA journal_mode", []).map(\.values)
            let synchronous = try db.writer.execute("PRAGMA synchronous", []).map(\.values)
            #expect(journal == [["wal"]])
            #expect(synchronous == [["2"]])  // 2 = FULL
        }
    }

    /// Transactions that wait for the writer share a commit (one `fsync` for several), each
    /// returns only once its writes are committed (a reading connection sees them), and one that
    /// fails in the group is rolled back alone.
    @Test func waitingTransactionsShareACommitAndReturnOnlyWhenItIsDone() async throws {
        struct Abort: Error {}
        try await Self.withDatabase { db in
            let (commitsBefore, committedBefore) = (db.commits, db.committed)
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 2..<18 {
                    group.addTask {
                        do {
                            try await db.transaction { tx in
                                try await tx.execute("INSERT INTO counter (id, n) VALUES ($1, 0)", [.int(i)])
                                // The others queue meanwhile. (A relative timing the storage layer
                                // exposes no hook to drive: 50 ms, ten times the 5 ms it was, so
                                // that on a loaded machine the 15 other tasks are queued by then.)
                                try await Task.sleep(for: .milliseconds(50))
                                if i == 9 { throw Abort() }
                            }
                        } catch is Abort {
                            return false
                        }
                        // Returned: committed, so another connection sees it.
                        return try await db.read("SELECT id FROM counter WHERE id = $1", [.int(i)]).count == 1
                    }
                }
                var seen = 0
                for try await visible in group where visible { seen += 1 }
                #expect(seen == 15)
            }
            #expect(
                try await db.read("SELECT CAST(COUNT(*) AS TEXT) AS n FROM counter", []).map(\.values) == [["16"]]
            )
            #expect(try await db.read("SELECT id FROM counter WHERE id = 9", []).isEmpty)
            #expect(db.committed - committedBefore == 15)
            #expect(db.commits - commitsBefore < 15, "\(db.commits - commitsBefore) commits for 15 transactions")
        }
    }

    /// An ordered commit (an idempotency key's claim) is written without waiting for the disk
    /// (`synchronous=NORMAL`) and is visible at once; the next durable commit waits again
    /// (`FULL`), and with its `fsync` the ordered one's frames are on disk too.
    @Test func anOrderedCommitDoesNotWaitForTheDiskAndTheNextDurableOneDoes() async throws {
        try await Self.withDatabase { db in
            let (commits, ordered) = (db.commits, db.orderedCommits)
            _ = try await db.write("INSERT INTO counter (id, n) VALUES (2, 0)", [], commit: .ordered)
            #expect(db.commits == commits + 1)
            #expect(db.orderedCommits == ordered + 1)
            #expect(try db.writer.execute("PRAGMA synchronous", []).map(\.values) == [["1"]])  // NORMAL
            #expect(try await db.read("SELECT id FROM counter WHERE id = 2", []).count == 1)
            _ = try await db.write("INSERT INTO counter (id, n) VALUES (3, 0)", [])
            #expect(db.commits == commits + 2)
            #expect(db.orderedCommits == ordered + 1)
            #expect(try db.writer.execute("PRAGMA synchronous", []).map(\.values) == [["2"]])  // FULL
        }
    }

    /// Runs `first` on the writer and holds it there until `second` waits for the writer, then
    /// lets both finish (the order driven by the gate's queue, not by a delay).
    static func queued(
        _ db: SQLiteDatabase,
        first: SQLCommit,
        second: SQLCommit
    ) async throws {
        let (held, release) = AsyncStream<Void>.makeStream()
        let (entered, enter) = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // Ends the wait below even if this transaction fails before it holds the writer.
                defer { enter.finish() }
                try await db.transaction(commit: first) { tx in
                    try await tx.execute("INSERT INTO counter (id, n) VALUES (10, 0)", [])
                    enter.yield()
                    for await _ in held { break }
                }
            }
            for await _ in entered { break }
            group.addTask {
                _ = try await db.transaction(commit: second) {
                    try await $0.execute("INSERT INTO counter (id, n) VALUES (11, 0)", [])
                }
            }
            let queued = try await waitUntil { db.gate.hasWaiters }
            #expect(queued, "the second transaction never waited for the writer")
            release.yield()
            try await group.waitForAll()
        }
        #expect(try await db.read("SELECT id FROM counter WHERE id IN (10, 11)", []).count == 2)
    }

    /// A group of transactions sharing a commit waits for the disk if any of them must: an
    /// ordered transaction joins a durable group (one commit, with its `fsync`); a durable one
    /// arriving at an ordered group commits that group first, unsynced, then its own, synced.
    @Test func aGroupWaitsForTheDiskWhenAnyOfItsTransactionsMust() async throws {
        try await Self.withDatabase { db in
            let (commits, ordered) = (db.commits, db.orderedCommits)
            try await Self.queued(db, first: .durable, second: .ordered)
            #expect(db.commits == commits + 1, "the ordered transaction joined the durable one's commit")
            #expect(db.orderedCommits == ordered)
            #expect(try db.writer.execute("PRAGMA synchronous", []).map(\.values) == [["2"]])
        }
        try await Self.withDatabase { db in
            let (commits, ordered) = (db.commits, db.orderedCommits)
            try await Self.queued(db, first: .ordered, second: .durable)
            #expect(db.commits == commits + 2, "the durable transaction did not commit in the ordered group")
            #expect(db.orderedCommits == ordered + 1)
            #expect(try db.writer.execute("PRAGMA synchronous", []).map(\.values) == [["2"]])
        }
    }

    @Test func aThrowingBodyRollsBackAndTheNextTransactionRuns() async throws {
        struct Abort: Error {}
        try await Self.withDatabase { db in
            await #expect(throws: Abort.self) {
                try await db.transaction { tx in
                    try await tx.execute("UPDATE counter SET n = 99, note = $1 WHERE id = 1", [.text("half")])
                    throw Abort()
                }
            }
            #expect(try await db.read("SELECT CAST(n AS TEXT), note FROM counter", []).map(\.values) == [["0", nil]])
            _ = try await db.transaction { try await $0.execute("UPDATE counter SET n = 1 WHERE id = 1", []) }
            #expect(try await db.read("SELECT CAST(n AS TEXT) FROM counter", []).map(\.values) == [["1"]])
        }
    }

    @Test func errorsNameTheStatementAndSQLitesReason() async throws {
        try await Self.withDatabase { db in
            do {
                _ = try await db.transaction { try await $0.execute("INSERT INTO counter (id, n) VALUES (1, 5)", []) }
                Issue.record("a duplicate primary key was accepted")
            } catch let error as StorageError {
                #expect(error.message.contains("INSERT INTO counter"))
                #expect(error.message.contains("UNIQUE constraint failed: counter.id"))
            }
            do {
                _ = try await db.read("SELECT nope FROM counter", [])
                Issue.record("an unknown column was accepted")
            } catch let error as StorageError {
                #expect(error.message.contains("preparing SELECT nope FROM counter"))
                #expect(error.message.contains("no such column: nope"))
            }
            // The writer still works after both failures.
            _ = try await db.transaction { try await $0.execute("UPDATE counter SET n = 7 WHERE id = 1", []) }
            #expect(try await db.read("SELECT CAST(n AS TEXT) FROM counter", []).map(\.values) == [["7"]])
        }
    }

    @Test func valuesRoundTripThroughCachedAndUncachedStatements() async throws {
        try await Self.withDatabase { db in
            let texts = ["", "plain", "ünïcødé 東京 😀", String(repeating: "x", count: 100_000), "quote ' and $1"]
            // 300 distinct statements: past the cache's 256, the rest are prepared and finalized each time.
            for i in 0..<300 {
                let text = texts[i % texts.count]
                let rows = try await db.transaction { tx in
                    try await tx.execute(
                        "UPDATE counter SET n = $1, note = $2 WHERE id = 1 RETURNING CAST(n AS TEXT), note, \(i)",
                        [.int(i), .text(text)]
                    )
                }
                #expect(rows.map(\.values) == [[String(i), text, String(i)]])
            }
            for _ in 0..<3 {  // a cached statement, reused with other binds and a NULL
                _ = try await db.transaction {
                    try await $0.execute("UPDATE counter SET note = $1 WHERE id = 1", [.null])
                }
                #expect(
                    try await db.read("SELECT note, CAST(n AS TEXT) AS n FROM counter WHERE id = $1", [.int(1)]).map(
                        \.values
                    ) == [
                        [nil, "299"]
                    ]
                )
            }
            #expect(try await db.read("SELECT note FROM counter WHERE id = $1", [.int(2)]).isEmpty)
        }
    }

    @Test func rowsAreReadByColumnNameAndAnUnknownNameIsAnError() async throws {
        try await Self.withDatabase { db in
            _ = try await db.transaction {
                try await $0.execute("UPDATE counter SET n = 7, note = $1 WHERE id = 1", [.text("seven")])
            }
            let rows = try await db.read("SELECT note, CAST(n AS TEXT) AS n, CAST(id AS TEXT) AS id FROM counter", [])
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect(row.columns == ["note", "n", "id"])
            #expect(try row.int("n") == 7)
            #expect(try row.string("note") == "seven")
            #expect(try row.int("id") == 1)
            #expect(throws: StorageError.self) { try row.text("count") }  // not selected
            #expect(throws: StorageError.self) { try row.int("note") }  // not an integer
            _ = try await db.transaction { try await $0.execute("UPDATE counter SET note = NULL WHERE id = 1", []) }
            let null = try #require(try await db.read("SELECT note FROM counter", []).first)
            #expect(try null.text("note") == nil)
            #expect(throws: StorageError.self) { try null.string("note") }
        }
    }

    @Test func cachedStatementsAreNotPreparedAgainWhenTheirValuesChange() throws {
        // SQLite marks a statement whose plan it costed with a bound value (`order_id = $1`) to be
        // prepared again when that value is cleared; the handle must run it from the cache.
        let handle = try SQLiteConnectionHandle(path: ":memory:")
        _ = try handle.execute(
            "CREATE TABLE p (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, created INTEGER NOT NULL, body TEXT)",
            []
        )
        _ = try handle.execute("CREATE INDEX p_order ON p (order_id)", [])
        _ = try handle.execute("CREATE TABLE e (p TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (p, seq))", [])
        let insert = "INSERT INTO p (id, order_id, created, body) VALUES ($1, $2, $3, $4)"
        let select = "SELECT body FROM p WHERE order_id = $1 ORDER BY created, id"
        let event =
            "INSERT INTO e (p, seq) VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM e WHERE p = $1)) RETURNING CAST(seq AS TEXT)"
        for i in 0..<100 {
            _ = try handle.execute(insert, [.text("p\(i)"), .text("o\(i % 10)"), .int(100 - i), .text("body \(i)")])
            #expect(try handle.execute(event, [.text("p\(i % 7)")]).map(\.values) == [[String(i / 7 + 1)]])
        }
        for i in 0..<50 {
            let rows = try handle.execute(select, [.text("o\(i % 10)")])
            #expect(rows.count == 10)
            #expect(try rows.first?.text("body") == "body \(90 + i % 10)")  // the newest row has the smallest `created`
        }
        #expect(handle.reprepareCount(select) == 0)
        #expect(handle.reprepareCount(event) == 0)
        #expect(handle.reprepareCount(insert) == 0)
    }

    @Test func aStatementGivenTheWrongNumberOfValuesIsRefused() async throws {
        try await Self.withDatabase { db in
            for binds: [SQLValue] in [[], [.int(1), .int(2)]] {
                do {
                    _ = try await db.read("SELECT note FROM counter WHERE id = $1", binds)
                    Issue.record("\(binds.count) values for one parameter were accepted")
                } catch let error as StorageError {
                    #expect(error.message == "SELECT note FROM counter takes 1 values; \(binds.count) were given")
                }
            }
        }
    }

    @Test func readsSeeCommittedDataOnlyAndDoNotWaitForTheWriter() async throws {
        try await Self.withDatabase { db in
            try await db.transaction { tx in
                try await tx.execute("UPDATE counter SET n = 42 WHERE id = 1", [])
                // A reader connection, during the open write transaction: the last committed value.
                #expect(try await db.read("SELECT CAST(n AS TEXT) FROM counter", []).map(\.values) == [["0"]])
            }
            #expect(try await db.read("SELECT CAST(n AS TEXT) FROM counter", []).map(\.values) == [["42"]])
        }
    }

    @Test func timestampsAreWrittenAsISO8601DateFormatterWritesThem() {
        let formatter = ISO8601DateFormatter()
        var generator = SystemRandomNumberGenerator()
        let fixed: [Double] = [
            0, 59.999, 59.9995, 951_782_400, 1_800_000_000.5, 1_800_000_027.9994, 1_800_000_027.9996,
            1_845_273_147.9997756, 4_102_444_799,
        ]
        for seconds in fixed + (0..<2_000).map({ _ in Double.random(in: 0..<4_102_444_800, using: &generator) }) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(PaymentStore.timestamp(date) == formatter.string(from: date), "\(seconds)")
        }
    }
}
