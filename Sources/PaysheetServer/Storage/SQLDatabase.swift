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
/// appearance, selected columns cast to TEXT and named (`CAST(seq AS TEXT) AS seq`: SQLite would
/// name the column by its expression), so every row is an ``SQLRow`` of optional strings read by
/// column name. An `ORDER BY` names the table's column (`payment_events.seq`): the selected
/// `seq` is text, and a bare `seq` would sort the text.
public protocol SQLExecutor: Sendable {
    /// Runs `sql` with `binds`; returns the rows.
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
}

/// One row of a statement's result: each column's value as text (`nil`: NULL), read by the
/// column's name, so that a statement's columns can be reordered or added without its readers
/// changing. A name the statement does not have is a ``StorageError``, not a wrong value.
public struct SQLRow: Sendable, Equatable {
    /// The statement's column names, in order (shared by all its rows).
    public let columns: [String]
    /// The values, in the order of ``columns``.
    public let values: [String?]

    /// A row of `values` under `columns`.
    public init(columns: [String], values: [String?]) {
        self.columns = columns
        self.values = values
    }

    /// The text in column `name`; `nil` when it is NULL.
    public func text(_ name: String) throws -> String? {
        guard let index = columns.firstIndex(of: name), index < values.count else {
            throw StorageError("the statement has no column \(name) (it has \(columns.joined(separator: ", ")))")
        }
        return values[index]
    }

    /// The text in column `name`, which must not be NULL.
    public func string(_ name: String) throws -> String {
        guard let value = try text(name) else { throw StorageError("column \(name) is NULL") }
        return value
    }

    /// The integer in column `name`; `nil` when it is NULL.
    public func int(_ name: String) throws -> Int? {
        guard let value = try text(name) else { return nil }
        guard let number = Int(value) else { throw StorageError("column \(name) holds \(value), not an integer") }
        return number
    }

    /// The JSON record in column `name`, decoded (and cached by its text).
    func record<T: Decodable & Sendable>(_ type: T.Type, _ name: String) throws -> T {
        try PaymentStore.decode(T.self, try text(name))
    }
}

/// A database: SQLite or PostgreSQL.
public protocol SQLDatabase: Sendable {
    /// `sqlite` or `postgresql`.
    var dialect: String { get }
    /// Runs one read-only statement outside any transaction (a consistent snapshot of its own).
    func read(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
    /// Runs one statement that writes, on its own: atomic and committed when it returns, without
    /// the round trips of `BEGIN` and `COMMIT`.
    @discardableResult
    func write(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
    /// Runs `body` in a transaction: committed (waiting as `commit` says) when it returns, rolled
    /// back when it throws.
    func transaction<T: Sendable>(
        commit: SQLCommit,
        _ body: @Sendable (any SQLExecutor) async throws -> T
    ) async throws -> T
    /// ``write(_:_:)`` whose commit waits as `commit` says.
    @discardableResult
    func write(_ sql: String, _ binds: [SQLValue], commit: SQLCommit) async throws -> [SQLRow]
    /// Closes connections.
    func close() async
}

/// What a commit waits for before it returns.
///
/// SQLite writes its log in order, and waiting for the disk puts everything logged before on it
/// too. So a commit that does not wait (``ordered``) is on disk as soon as any later commit that
/// waits (``durable``) returns; a power loss before that undoes it — and nothing else, since
/// nothing after it waited — and stops the server with it. Only writes that leave the database
/// as a crash just before them would may be ``ordered``: an idempotency key's claim (undone, the
/// request it claimed for changed nothing durable yet, and a retry runs it as new).
///
/// PostgreSQL always waits: it is another process, which can crash, restart or fail over to a
/// replica while this server goes on, and a claim it lost there would let a retry with the same
/// key run again beside the request that made it (a second refund or charge where the key is the
/// only guard).
public enum SQLCommit: Sendable, Equatable {
    /// On disk when it returns (`fsync`; SQLite's `synchronous=FULL`).
    case durable
    /// Visible to everyone when it returns, on disk with the next durable commit (SQLite's
    /// `synchronous=NORMAL` in WAL mode). A database may always wait anyway; PostgreSQL does.
    case ordered
}

extension SQLDatabase {
    /// Runs `body` in a durable transaction: committed, on disk, when it returns; rolled back
    /// when it throws.
    public func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await transaction(commit: .durable, body)
    }

    /// Waits for the disk, whatever `commit` says (PostgreSQL: see ``SQLCommit``).
    public func write(_ sql: String, _ binds: [SQLValue], commit: SQLCommit) async throws -> [SQLRow] {
        try await write(sql, binds)
    }
}

/// A statement that undid itself on purpose: one of its parts could not be done, so none was (a
/// PostgreSQL statement of several writes ends in a division by zero to say so; see
/// `PaymentStore+Payments+Postgres.swift`).
public struct SQLStatementAborted: Error, Sendable {}

/// One statement at a time on `database`, each on its own (for helpers written against ``SQLExecutor``).
struct StatementAlone: SQLExecutor {
    let database: any SQLDatabase
    func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await database.write(sql, binds)
    }
}

/// A storage failure, with the statement's purpose.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure: the edge answers ``Kind/unavailable`` and ``Kind/full`` with 503
    /// (the request may be retried), anything else with 500.
    public enum Kind: String, Sendable {
        /// A statement failed.
        case failed
        /// The database is out of reach (gone, restarting, failed over, not answering): whether
        /// a write in flight was committed is not known.
        case unavailable
        /// The disk is full: nothing more can be stored (what was committed is kept).
        case full
    }

    /// What failed.
    public var message: String
    /// The kind of failure.
    public var kind: Kind
    /// An error.
    public init(_ message: String, kind: Kind = .failed) {
        self.message = message
        self.kind = kind
    }
    public var description: String { "storage: \(message)" }
}
