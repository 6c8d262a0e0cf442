import Foundation

/// A bound value.
public enum SQLValue: Sendable, Equatable {
    /// Integer.
    case int(Int)
    /// Text.
    case text(String)
    /// NULL.
    case null
}

/// Runs statements inside one transaction (or one statement outside any).
///
/// SQL is written once for both databases: `$1, $2, …` placeholders numbered in order of first
/// appearance, selected columns cast to TEXT, so every row is a list of optional strings. An
/// `ORDER BY` names the table's column (`payment_events.seq`): PostgreSQL gives a selected
/// `CAST(seq AS TEXT)` the name `seq`, and a bare `seq` would sort the text.
public protocol SQLExecutor: Sendable {
    /// Runs `sql` with `binds`; returns the rows.
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [[String?]]
}

/// A database: SQLite or PostgreSQL.
public protocol SQLDatabase: Sendable {
    /// `sqlite` or `postgresql`.
    var dialect: String { get }
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs one read-only statement outside any transaction (a consistent snapshot of its own).
    func read(_ sql: String, _ binds: [SQLValue]) async throws -> [[String?]]
    /// Runs one statement that writes, on its own: atomic and committed when it returns, without
    /// the round trips of `BEGIN` and `COMMIT`.
    @discardableResult
    func write(_ sql: String, _ binds: [SQLValue]) async throws -> [[String?]]
    /// Closes connections.
    func close() async
}

/// A statement that undid itself on purpose: one of its parts could not be done, so none was (a
/// PostgreSQL statement of several writes ends in a division by zero to say so; see
/// `PaymentStore+Postgres.swift`).
public struct SQLStatementAborted: Error, Sendable {}

/// One statement at a time on `database`, each on its own (for helpers written against ``SQLExecutor``).
struct StatementAlone: SQLExecutor {
    let database: any SQLDatabase
    func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [[String?]] {
        try await database.write(sql, binds)
    }
}

/// A storage failure, with the statement's purpose.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public var message: String
    /// An error.
    public init(_ message: String) { self.message = message }
    public var description: String { "storage: \(message)" }
}
