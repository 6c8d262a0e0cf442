import Foundation
import Testing
@testable import PaysheetServer

/// The store's statements are prepared once on a connection and then only executed
/// (`PostgresPreparedStatements`): PostgreSQL's own view of the session's prepared statements says so.
@Suite(.enabled(if: TestDatabases.postgresURL != nil, "needs PAYSHEET_TEST_POSTGRES_URL (CI starts PostgreSQL)"))
struct PostgresPreparedStatementTests {
    @Test func aStatementRunFiftyTimesOnOneConnectionIsPreparedOnceAndAnswersWithEachRunsValues() async throws {
        let database = try PostgresDatabase(url: TestDatabases.postgresURL ?? "")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
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
    /// Values are bound as the types PostgreSQL gave the parameters: an integer where text is
    /// expected is sent as its digits, and eight characters where a bigint is expected are an
    /// error (in binary they would be read as a number).
    @Test func aValueIsBoundAsItsParametersTypeOrRefused() async throws {
        let database = try PostgresDatabase(url: TestDatabases.postgresURL ?? "")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            let sum = try await database.read(
                "SELECT CAST(CAST($1 AS BIGINT) + CAST($2 AS INTEGER) AS TEXT) AS sum, CAST($3 AS TEXT) AS digits",
                [.int(5_000_000_000), .int(7), .int(42)]
            )
            #expect(try sum.first?.string("sum") == "5000000007")
            #expect(try sum.first?.string("digits") == "42")
            await #expect(throws: StorageError.self) {
                try await database.read("SELECT CAST(CAST($1 AS BIGINT) AS TEXT) AS number", [.text("12345678")])
            }
            await #expect(throws: StorageError.self) {
                try await database.read("SELECT CAST(CAST($1 AS INTEGER) AS TEXT) AS number", [.int(5_000_000_000)])
            }
        }
    }
}
