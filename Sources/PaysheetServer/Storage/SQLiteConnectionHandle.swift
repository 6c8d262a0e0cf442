import Foundation
import VaporCSQLite

/// One SQLite connection on the C API of the SQLite that sqlite-nio vendors, with its prepared
/// statements cached by SQL text.
///
/// Statements run on the caller's thread, under the handle's lock: a payment's statements take
/// microseconds (WAL; a commit adds one `fsync` of the log, ~0.1 ms here), far less than handing
/// each one to a thread pool and back, which is what a per-statement job costs (see the README's
/// load benchmark).
final class SQLiteConnectionHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    let path: String

    /// Opens (creating) `path`; `":memory:"` for an in-memory database.
    init(path: String) throws {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message =
                handle.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "status \(status)"
            if let handle { sqlite_nio_sqlite3_close(handle) }
            throw StorageError("cannot open the SQLite database \(path): \(message)")
        }
        db = handle
        sqlite_nio_sqlite3_busy_timeout(handle, 5000)
    }

    deinit { closeLocked() }

    /// Runs one statement, holding the connection meanwhile. Every column is read as text (or nil),
    /// under the name SQLite gives it (its `AS` name).
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        lock.lock()
        defer { lock.unlock() }
        guard let db else { throw StorageError("the SQLite database \(path) is closed") }
        let (statement, cached) = try prepared(sql, db)
        // Not `sqlite3_clear_bindings`: it marks any statement whose plan SQLite noted as
        // depending on a bound value (every `column = $n` it costed, SQLite 3.54) as expired, and
        // the next run parses and plans it again (7 of a payment's statements, 4% of the server
        // under load). Every parameter is bound anew on each run instead (checked below).
        defer {
            if cached { sqlite_nio_sqlite3_reset(statement) } else { sqlite_nio_sqlite3_finalize(statement) }
        }
        guard Int(sqlite_nio_sqlite3_bind_parameter_count(statement)) == binds.count else {
            throw StorageError(
                "\(Self.summary(sql)) takes \(sqlite_nio_sqlite3_bind_parameter_count(statement)) values; \(binds.count) were given"
            )
        }
        for (offset, bind) in binds.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch bind {
            case .int(let value): status = sqlite_nio_sqlite3_bind_int64(statement, index, Int64(value))
            case .null: status = sqlite_nio_sqlite3_bind_null(statement, index)
            case .text(let value):
                status =
                    value.utf8.withContiguousStorageIfAvailable { bytes in
                        bytes.withMemoryRebound(to: CChar.self) {
                            sqlite_nio_sqlite3_bind_text64(
                                statement,
                                index,
                                $0.baseAddress,
                                UInt64($0.count),
                                SQLITE_TRANSIENT_DESTRUCTOR,
                                UInt8(SQLITE_UTF8)
                            )
                        }
                    }
                    ?? sqlite_nio_sqlite3_bind_text64(
                        statement,
                        index,
                        value,
                        UInt64(value.utf8.count),
                        SQLITE_TRANSIENT_DESTRUCTOR,
                        UInt8(SQLITE_UTF8)
                    )
            }
            guard status == SQLITE_OK else { throw error(db, "binding $\(index) of \(Self.summary(sql))") }
        }
        let columns = Int(sqlite_nio_sqlite3_column_count(statement))
        let names = (0..<Int32(columns)).map { column in
            sqlite_nio_sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
        }
        var rows: [SQLRow] = []
        while true {
            let status = sqlite_nio_sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw error(db, Self.summary(sql)) }
            var row: [String?] = []
            row.reserveCapacity(columns)
            for column in 0..<Int32(columns) {
                if sqlite_nio_sqlite3_column_type(statement, column) == SQLITE_NULL {
                    row.append(nil)
                } else if let text = sqlite_nio_sqlite3_column_text(statement, column) {
                    let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
                    row.append(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
                } else {
                    row.append("")
                }
            }
            rows.append(SQLRow(columns: names, values: row))
        }
        return rows
    }

    /// How many times SQLite has re-prepared the cached statement `sql` (nil: not cached).
    func reprepareCount(_ sql: String) -> Int? {
        lock.withLock {
            statements[sql].map { Int(sqlite_nio_sqlite3_stmt_status($0, SQLITE_STMTSTATUS_REPREPARE, 0)) }
        }
    }

    private func prepared(_ sql: String, _ db: OpaquePointer) throws -> (OpaquePointer, cached: Bool) {
        if let cached = statements[sql] { return (cached, true) }
        var statement: OpaquePointer?
        let status = sqlite_nio_sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(db, "preparing \(Self.summary(sql))") }
        // The store's statements are a fixed set; anything beyond it is run once and finalized.
        guard statements.count < 256 else { return (statement, false) }
        statements[sql] = statement
        return (statement, true)
    }

    private func error(_ db: OpaquePointer, _ context: String) -> StorageError {
        StorageError(
            "\(context): \(String(cString: sqlite_nio_sqlite3_errmsg(db)))",
            kind: Self.kind(ofCode: sqlite_nio_sqlite3_errcode(db))
        )
    }

    /// What a primary SQLite result code means to a caller: the disk full, the file out of reach
    /// (I/O, cannot open, read-only, locked), or a statement that failed.
    static func kind(ofCode code: Int32) -> StorageError.Kind {
        switch code & 0xFF {
        case SQLITE_FULL: return .full
        case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOTADB:
            return .unavailable
        default: return .failed
        }
    }

    static func summary(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(4)
        return words.joined(separator: " ")
    }

    /// Finalizes the statements and closes the connection.
    func close() { lock.withLock { closeLocked() } }

    private func closeLocked() {
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements = [:]
        if let db { sqlite_nio_sqlite3_close_v2(db) }
        db = nil
    }
}

/// SQLite's `SQLITE_TRANSIENT`: the text is copied before the bind call returns.
private let SQLITE_TRANSIENT_DESTRUCTOR = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
