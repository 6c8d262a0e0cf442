import Foundation
import Testing
@testable import PaysheetServer

/// The store's statements are prepared once on a connection and then only executed
/// (`PostgresPreparedStatements`): PostgreSQL's own view of the session's prepared statements says so.
@Suite(.enabled(if: TestDatabases.postgresURL != nil, "needs PAYSHEET_TEST_POSTGRES_URL (CI starts PostgreSQL)"))
struct PostgresPreparedStatementTests {
    /// A database on CI's PostgreSQL, its pool running while `body` runs.
    func withDatabase(
        statementTimeout: Double = 120,
        _ body: @Sendable (PostgresDatabase) async throws -> Void
    ) async throws {
        let database = try PostgresDatabase(url: TestDatabases.postgresURL ?? "", statementTimeout: statementTimeout)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            try await body(database)
        }
    }

    @Test func aStatementRunFiftyTimesOnOneConnectionIsPreparedOnceAndAnswersWithEachRunsValues() async throws {
        try await withDatabase { database in
            let sql = "SELECT CAST($1 AS TEXT) AS number, CAST($2 AS TEXT) AS word"
            let (answers, prepared, unprepared) = try await database.transaction { executor in
                var answers: [String?] = []
                for number in 0..<50 {
                    let rows = try await executor.execute(
                        sql,
                        [.int(number), number.isMultiple(of: 2) ? .text("even") : .null]
                    )
                    answers.append(try rows.first.map { "\(try $0.string("number")) \(try $0.text("word") ?? "NULL")" })
                }
                let counted = try await executor.execute(
                    """
                    SELECT CAST(COUNT(*) FILTER (WHERE statement = $1) AS TEXT) AS prepared,
                    CAST(COUNT(*) FILTER (WHERE statement <> $1 AND statement NOT LIKE '%pg_prepared_statements%')
                    AS TEXT) AS unprepared FROM pg_prepared_statements
                    """,
                    [.text(sql)]
                )
                return (answers, try counted.first?.int("prepared"), try counted.first?.int("unprepared"))
            }
            #expect(answers.count == 50)
            #expect(answers[0] == "0 even")
            #expect(answers[7] == "7 NULL")
            #expect(answers[48] == "48 even")
            #expect(prepared == 1)
            // BEGIN is not prepared: the session holds no statement but the two above.
            #expect(unprepared == 0)
        }
    }
}

extension PostgresPreparedStatementTests {
    /// A statement answers the same in its first runs on a connection (unprepared, values sent
    /// with their own types) and once prepared there (values bound as the types PostgreSQL gave the
    /// parameters): an integer where text is expected is its digits, digits where a bigint is
    /// expected are their number (in binary, eight characters would be read as some other
    /// number), and what does not convert is an error both times.
    @Test func aStatementAnswersTheSamePreparedOrNot() async throws {
        try await withDatabase { database in
            let sql = """
                SELECT CAST(CAST($1 AS BIGINT) + CAST($2 AS INTEGER) AS TEXT) AS sum, CAST($3 AS TEXT) AS digits,
                CAST(CAST($4 AS BIGINT) AS TEXT) AS number
                """
            let answers = try await database.transaction { executor in
                var answers: [String] = []
                for _ in 0..<PostgresPreparedStatements.runsBeforePreparing + 2 {
                    let row = try await executor.execute(
                        sql,
                        [.int(5_000_000_000), .int(7), .int(42), .text("12345678")]
                    )
                    answers.append(
                        "\(try row.first?.string("sum") ?? "") \(try row.first?.string("digits") ?? "") "
                            + (try row.first?.string("number") ?? "")
                    )
                }
                return answers
            }
            #expect(
                answers
                    == Array(
                        repeating: "5000000007 42 12345678",
                        count: PostgresPreparedStatements.runsBeforePreparing + 2
                    )
            )
            // Outside a transaction (an error would abort it), on one connection.
            let failures = try await database.client.withConnection { connection in
                let executor = database.executor(on: connection)
                var failures: [String] = []
                for _ in 0..<PostgresPreparedStatements.runsBeforePreparing + 2 {
                    do {
                        _ = try await executor.execute(
                            "SELECT CAST(CAST($1 AS BIGINT) AS TEXT) AS number",
                            [.text("1e3")]
                        )
                    } catch let error as StorageError {
                        // The refusal names the parameter and kinds, never the value (it may be a secret's hash).
                        #expect(!error.message.contains("1e3") && error.message.contains("parameter $1 is bigint"))
                        failures.append("refused before sending")
                    } catch {
                        failures.append("refused by PostgreSQL")
                    }
                }
                return failures
            }
            // Unprepared, PostgreSQL refuses it; prepared (its last runs), the value does not convert.
            let unprepared = PostgresPreparedStatements.runsBeforePreparing - 1
            #expect(
                failures
                    == Array(repeating: "refused by PostgreSQL", count: unprepared)
                    + Array(repeating: "refused before sending", count: 3)
            )
        }
    }

    /// A statement not answered within the configured deadline is given up as the database out of
    /// reach (503 at the edge), whatever the deadline: PostgreSQL sleeps 30 s, the deadline is 1 s
    /// (no race on a loaded machine: the answer cannot come before the sleep ends).
    @Test func aStatementPastItsDeadlineIsGivenUpAsTheDatabaseOutOfReach() async throws {
        try await withDatabase(statementTimeout: 1) { database in
            let error = await #expect(throws: StorageError.self) {
                _ = try await database.read("SELECT CAST(pg_sleep(30) AS TEXT) AS slept", [])
            }
            #expect(error?.kind == .unavailable)
            #expect(error?.message.contains("within 1 s") == true, "\(String(describing: error))")
        }
    }

    /// PostgreSQL waits for the disk (and its synchronous replica) even for a commit that would
    /// not need to on SQLite (`SQLCommit.ordered`, an idempotency key's claim): PostgreSQL can
    /// lose a commit it did not flush without this server stopping, and a lost claim would let a
    /// retry with its key run beside the request that made it.
    @Test func anOrderedCommitStillWaitsForTheDiskOnPostgreSQL() async throws {
        try await withDatabase { database in
            let setting = "SELECT current_setting('synchronous_commit') AS setting"
            let ordered = try await database.transaction(commit: .ordered) { try await $0.execute(setting, []) }
            #expect(try ordered.first?.text("setting") == "on")
            let written = try await database.write(setting, [], commit: .ordered)
            #expect(try written.first?.text("setting") == "on")
        }
    }

    /// `paysheet api-key` runs the migrations, which wait for another server's: under the
    /// server's statement deadline, not forever and not the default's 15 s. The migrations' lock
    /// is held here while the keys are asked for with a deadline of 1 s.
    @Test func theKeyCommandsGiveUpOnALockedMigrationAtTheDeadline() async throws {
        try await withDatabase { database in
            try await database.transaction { executor in
                _ = try await executor.execute(PaymentStore.migrationLockSQL, [])
                let error = await #expect(throws: StorageError.self) {
                    _ = try await APIKeys.withDatabase(
                        TestDatabases.postgresURL,
                        dataFolder: NSTemporaryDirectory(),
                        statementTimeout: 1
                    ) { try await $0.list() }
                }
                #expect(error?.message.contains("within 1 s") == true, "\(String(describing: error))")
            }
        }
    }
}

/// The database's settings, read without a database.
@Suite struct DatabaseSettingsTests {
    /// How often an authorization reads its payment itself while other servers' settlements are
    /// announced: `PAYSHEET_ANNOUNCED_READ_INTERVAL` or the file's `announcedReadInterval`, above 0
    /// and at most an hour (10 s when unset); a service made in code with another value keeps 10 s.
    @Test func theAnnouncedReadIntervalIsASetting() throws {
        #expect(try ServerConfiguration.load(file: nil, environment: [:]).announcedReadInterval == 10)
        let set = try ServerConfiguration.load(file: nil, environment: ["PAYSHEET_ANNOUNCED_READ_INTERVAL": "2.5"])
        #expect(set.announcedReadInterval == 2.5)
        for refused in ["0", "-1", "inf", "nan", "soon", "3601"] {
            #expect(throws: ConfigurationError.self) {
                try ServerConfiguration.load(file: nil, environment: ["PAYSHEET_ANNOUNCED_READ_INTERVAL": refused])
            }
        }
        let file = NSTemporaryDirectory() + "paysheet-config-" + UUID().uuidString + ".json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = FileManager.default.createFile(atPath: file, contents: Data(#"{"announcedReadInterval": 600}"#.utf8))
        #expect(try ServerConfiguration.load(file: file, environment: [:]).announcedReadInterval == 600)
    }

    /// The deadline is a setting: `PAYSHEET_DATABASE_STATEMENT_TIMEOUT` or the file's
    /// `databaseStatementTimeout`, a positive number of seconds (15 when unset).
    @Test func theStatementDeadlineIsASetting() throws {
        #expect(try ServerConfiguration.load(file: nil, environment: [:]).databaseStatementTimeout == 15)
        let set = try ServerConfiguration.load(file: nil, environment: ["PAYSHEET_DATABASE_STATEMENT_TIMEOUT": "2.5"])
        #expect(set.databaseStatementTimeout == 2.5)
        let day = try ServerConfiguration.load(file: nil, environment: ["PAYSHEET_DATABASE_STATEMENT_TIMEOUT": "86400"])
        #expect(day.databaseStatementTimeout == 86_400)
        for refused in ["0", "-1", "inf", "nan", "soon", "86401", "1e16"] {
            #expect(throws: ConfigurationError.self) {
                try ServerConfiguration.load(file: nil, environment: ["PAYSHEET_DATABASE_STATEMENT_TIMEOUT": refused])
            }
        }
        let file = NSTemporaryDirectory() + "paysheet-config-" + UUID().uuidString + ".json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = FileManager.default.createFile(atPath: file, contents: Data(#"{"databaseStatementTimeout": 0}"#.utf8))
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(file: file, environment: [:]) }
        // Built in code, past the configuration's checks: the database refuses it the same way.
        for refused in [0, -1, .nan, .infinity, 1e16] {
            #expect(throws: StorageError.self) {
                _ = try PostgresDatabase(url: "postgres://u@127.0.0.1:1/db", statementTimeout: refused)
            }
        }
    }
}
