import Foundation
import PostgresNIO

/// The store's statements that a connection runs often, prepared once on it and then only bound
/// and executed: PostgreSQL parses, analyses and plans an unnamed statement on every run, which a
/// profile under load showed as about half of its CPU per payment.
///
/// A statement is prepared on its ``runsBeforePreparing``-th run on a connection, not its first:
/// preparing costs two round trips (the statement, then its parameters' types), which pay back
/// only over several runs, and which on a busy machine were seen to take up to 1.5 s (in the test
/// suites, with a hundred servers starting beside each other): a statement a connection runs
/// rarely — at start-up, in a test — runs as it did unprepared.
///
/// postgres-nio's typed `PostgresPreparedStatement` needs one Swift type per SQL text; the store's
/// texts are values, so this uses postgres-nio's `prepare(query:)` (a named statement on one
/// connection, executed with Bind and Execute alone) and keeps one table of them per connection.
/// A connection leased from the pool is used by one task at a time, so a statement is prepared at
/// most once on it.
///
/// Prepared without declared types, a statement's parameters take the types PostgreSQL infers
/// from the SQL, and postgres-nio sends every value in binary; so each value is bound as the
/// type PostgreSQL reports for its parameter (`pg_prepared_statements`, read once when the
/// statement is prepared), converted as PostgreSQL converts it unprepared (an integer for a text
/// parameter as its decimal text, digits for an integer parameter as their number); a value that
/// does not convert is an error, never bytes read as another type.
final class PostgresPreparedStatements: @unchecked Sendable {
    /// Distinct statement texts prepared on one connection; past it, statements run unprepared
    /// (the store's texts are a few dozen constants).
    static let statementsPerConnection = 200
    /// Connections remembered; past it the table starts again (the pool holds at most 16, and a
    /// closed connection's statements are gone with it).
    static let connectionsRemembered = 64

    /// Runs of a statement on one connection before it is prepared there.
    static let runsBeforePreparing = 10

    private let lock = NSLock()
    private var byConnection: [PostgresConnection.ID: ConnectionStatements] = [:]

    /// One connection's statements: those prepared, and how often the others have run.
    struct ConnectionStatements {
        var prepared: [String: Prepared] = [:]
        var runs: [String: Int] = [:]
    }

    /// What to do with a statement on a connection.
    enum Plan {
        case run(Prepared)
        case runUnprepared
        case prepare
    }

    /// A statement prepared on one connection, with its parameters' types as PostgreSQL names them.
    struct Prepared: Sendable {
        let query: PreparedQuery
        let parameterTypes: [String]

        /// `values` as this statement's parameters take them.
        func bindings(_ values: [SQLValue]) throws -> [PostgresData] {
            guard values.count == parameterTypes.count else {
                throw StorageError("the statement has \(parameterTypes.count) parameters, given \(values.count) values")
            }
            return try zip(values, parameterTypes).enumerated().map { index, pair in
                switch pair {
                case (.null, _): return PostgresData.null
                case (.int(let number), "bigint"): return PostgresData(int: number)
                case (.int(let number), "integer"):
                    guard let small = Int32(exactly: number) else { break }
                    return PostgresData(int32: small)
                case (.int(let number), "text"), (.int(let number), "unknown"):
                    return PostgresData(string: String(number))
                case (.text(let text), "text"), (.text(let text), "unknown"): return PostgresData(string: text)
                case (.text(let text), "bigint"):
                    guard let number = Int(text) else { break }
                    return PostgresData(int: number)
                case (.text(let text), "integer"):
                    guard let small = Int32(text) else { break }
                    return PostgresData(int32: small)
                default: break
                }
                // The value's kind, never the value: a bound value may be a secret's hash or a stored record.
                let kind = if case .int = pair.0 { "an integer" } else { "a text" }
                throw StorageError("parameter $\(index + 1) is \(pair.1); \(kind) cannot be bound to it")
            }
        }
    }

    /// Whether `sql` is worth preparing: the statements that read or write rows. `BEGIN`,
    /// `COMMIT`, `ROLLBACK` and schema changes run as they are.
    static func isPreparable(_ sql: String) -> Bool {
        let verb = sql.prefix(7).uppercased()
        return ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains { verb.hasPrefix($0) }
    }

    /// `sql` prepared on `connection`, or `nil` when it runs unprepared this time: before its
    /// ``runsBeforePreparing``-th run there, and past ``statementsPerConnection``.
    func statement(_ sql: String, on connection: PostgresConnection) async throws -> Prepared? {
        guard Self.isPreparable(sql) else { return nil }
        let plan: Plan = lock.withLock {
            if byConnection[connection.id] == nil, byConnection.count >= Self.connectionsRemembered {
                byConnection.removeAll()
            }
            var statements = byConnection[connection.id] ?? ConnectionStatements()
            defer { byConnection[connection.id] = statements }
            if let statement = statements.prepared[sql] { return .run(statement) }
            if statements.prepared.count >= Self.statementsPerConnection { return .runUnprepared }
            if statements.runs.count >= 1_000 { statements.runs.removeAll() }  // the store's texts are constants
            let runs = statements.runs[sql, default: 0] + 1
            statements.runs[sql] = runs
            return runs < Self.runsBeforePreparing ? .runUnprepared : .prepare
        }
        switch plan {
        case .run(let statement): return statement
        case .runUnprepared: return nil
        case .prepare: break
        }
        PostgresDatabase.roundTrips.increment(by: 2)
        let query = try await connection.prepare(query: sql).get()
        let described = try await connection.query(
            "SELECT CAST(parameter_types AS TEXT) FROM pg_prepared_statements WHERE statement = \(sql) LIMIT 1",
            logger: connection.logger
        ).collect()
        guard let types = try described.first?.decode(String.self) else {
            throw StorageError("PostgreSQL does not list the statement it has just prepared")
        }
        let statement = Prepared(query: query, parameterTypes: Self.typeNames(types))
        lock.withLock {
            byConnection[connection.id, default: ConnectionStatements()].prepared[sql] = statement
            byConnection[connection.id]?.runs[sql] = nil
        }
        return statement
    }

    /// The type names of a `regtype[]` as text: `{text,bigint}` → `["text", "bigint"]`, `{}` → `[]`.
    static func typeNames(_ array: String) -> [String] {
        let inside = array.trimmingCharacters(in: CharacterSet(charactersIn: "{}"))
        return inside.isEmpty
            ? [] : inside.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }
    }
}
