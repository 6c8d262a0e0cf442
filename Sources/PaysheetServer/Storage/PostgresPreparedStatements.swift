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
final class PostgresPreparedStatements: @unchecked Sendable {
    /// Distinct statement texts prepared on one connection; past it, statements run unprepared
    /// (the store's texts are a few dozen constants).
    static let statementsPerConnection = 200
    /// Connections remembered; past it the table starts again (the pool holds at most 16, and a
    /// closed connection's statements are gone with it).
    static let connectionsRemembered = 64

    private let lock = NSLock()
    private var byConnection: [PostgresConnection.ID: [String: PreparedQuery]] = [:]

    /// Whether `sql` is worth preparing: the statements that read or write rows. `BEGIN`,
    /// `COMMIT`, `ROLLBACK` and schema changes run as they are.
    static func isPreparable(_ sql: String) -> Bool {
        let verb = sql.prefix(7).uppercased()
        return ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH"].contains { verb.hasPrefix($0) }
    }

    /// `sql` prepared on `connection` (preparing it now if this connection has not), or `nil`
    /// when it should run unprepared.
    func statement(_ sql: String, on connection: PostgresConnection) async throws -> PreparedQuery? {
        guard Self.isPreparable(sql) else { return nil }
        let known: PreparedQuery?? = lock.withLock {
            guard let statements = byConnection[connection.id] else { return .some(nil) }
            if let statement = statements[sql] { return .some(statement) }
            return statements.count < Self.statementsPerConnection ? .some(nil) : .none
        }
        switch known {
        case .none: return nil
        case .some(let statement?): return statement
        case .some(nil): break
        }
        PostgresDatabase.roundTrips.increment()
        let statement = try await connection.prepare(query: sql).get()
        lock.withLock {
            if byConnection[connection.id] == nil, byConnection.count >= Self.connectionsRemembered {
                byConnection.removeAll()
            }
            byConnection[connection.id, default: [:]][sql] = statement
        }
        return statement
    }
}
