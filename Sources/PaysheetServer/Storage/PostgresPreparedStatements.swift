import Foundation
import PostgresNIO

/// The store's statements, prepared once on each pooled connection and then only bound and
/// executed: PostgreSQL parses, analyses and plans an unnamed statement on every run, which a
/// profile under load showed as about half of its CPU per payment.
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
/// statement is prepared): an integer for a text parameter as its decimal text, and a value that
/// does not fit its parameter is an error, never bytes read as another type.
final class PostgresPreparedStatements: @unchecked Sendable {
    /// Distinct statement texts prepared on one connection; past it, statements run unprepared
    /// (the store's texts are a few dozen constants).
    static let statementsPerConnection = 200
    /// Connections remembered; past it the table starts again (the pool holds at most 16, and a
    /// closed connection's statements are gone with it).
    static let connectionsRemembered = 64

    private let lock = NSLock()
    private var byConnection: [PostgresConnection.ID: [String: Prepared]] = [:]

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
                default: break
                }
                throw StorageError("parameter $\(index + 1) is \(pair.1); \(pair.0) cannot be bound to it")
            }
        }
    }

    /// Whether `sql` is worth preparing: the statements that read or write rows. `BEGIN`,
    /// `COMMIT`, `ROLLBACK` and schema changes run as they are.
    static func isPreparable(_ sql: String) -> Bool {
        let verb = sql.prefix(7).uppercased()
        return ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains { verb.hasPrefix($0) }
    }

    /// `sql` prepared on `connection` (preparing it now if this connection has not), or `nil`
    /// when it should run unprepared.
    func statement(_ sql: String, on connection: PostgresConnection) async throws -> Prepared? {
        guard Self.isPreparable(sql) else { return nil }
        let known: Prepared?? = lock.withLock {
            guard let statements = byConnection[connection.id] else { return .some(nil) }
            if let statement = statements[sql] { return .some(statement) }
            return statements.count < Self.statementsPerConnection ? .some(nil) : .none
        }
        switch known {
        case .none: return nil
        case .some(let statement?): return statement
        case .some(nil): break
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
            if byConnection[connection.id] == nil, byConnection.count >= Self.connectionsRemembered {
                byConnection.removeAll()
            }
            byConnection[connection.id, default: [:]][sql] = statement
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
