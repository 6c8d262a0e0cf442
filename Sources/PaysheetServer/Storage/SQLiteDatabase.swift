import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO

/// SQLite through sqlite-nio: one writing connection in WAL mode, transactions one at a time
/// (`BEGIN IMMEDIATE`), so a payment's state change and its history row commit together; reads
/// of one statement go to two reading connections and never wait for a write.
public final class SQLiteDatabase: SQLDatabase, @unchecked Sendable {
    let connection: SQLiteConnection
    let readers: [SQLiteConnection]
    let gate = TransactionGate()
    let nextReader = RoundRobin()

    public var dialect: String { "sqlite" }

    /// Opens (creating) the database file at `path`; `":memory:"` for an in-memory database.
    public static func open(path: String, logger: Logger = Logger(label: "paysheet.sqlite")) async throws -> SQLiteDatabase {
        let storage: SQLiteConnection.Storage = path == ":memory:" ? .memory : .file(path: path)
        if path != ":memory:" {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        }
        let connection = try await SQLiteConnection.open(storage: storage, logger: logger)
        _ = try await connection.query("PRAGMA journal_mode=WAL", [])
        _ = try await connection.query("PRAGMA synchronous=NORMAL", [])
        _ = try await connection.query("PRAGMA busy_timeout=5000", [])
        var readers: [SQLiteConnection] = []
        if path != ":memory:" {
            for _ in 0..<2 {
                let r = try await SQLiteConnection.open(storage: storage, logger: logger)
                _ = try await r.query("PRAGMA busy_timeout=5000", [])
                _ = try await r.query("PRAGMA query_only=1", [])
                readers.append(r)
            }
        }
        return SQLiteDatabase(connection: connection, readers: readers)
    }

    init(connection: SQLiteConnection, readers: [SQLiteConnection]) {
        self.connection = connection
        self.readers = readers
    }

    public func read(_ sql: String, _ binds: [SQLValue]) async throws -> [[String?]] {
        guard !readers.isEmpty else { return try await transaction { try await $0.execute(sql, binds) } }
        return try await Executor(connection: readers[nextReader.next() % readers.count]).execute(sql, binds)
    }

    struct Executor: SQLExecutor {
        let connection: SQLiteConnection
        func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [[String?]] {
            let data: [SQLiteData] = binds.map {
                switch $0 {
                case .int(let i): .integer(i)
                case .text(let t): .text(t)
                case .null: .null
                }
            }
            let rows = try await connection.query(sql, data)
            return rows.map { row in
                row.columns.map { column -> String? in
                    switch column.data {
                    case .null: nil
                    case .integer(let i): String(i)
                    case .float(let f): String(f)
                    case .text(let t): t
                    case .blob(let b): String(buffer: b)
                    }
                }
            }
        }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        await gate.enter()
        let executor = Executor(connection: connection)
        do {
            _ = try await connection.query("BEGIN IMMEDIATE", [])
            do {
                let result = try await body(executor)
                _ = try await connection.query("COMMIT", [])
                await gate.leave()
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", [])
                throw error
            }
        } catch {
            await gate.leave()
            throw error
        }
    }

    public func close() async {
        try? await connection.close()
        for r in readers { try? await r.close() }
    }
}

/// One transaction at a time, first come first served.
actor TransactionGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if !busy { busy = true; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}

/// A thread-safe counter (round robin over the readers).
final class RoundRobin: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value &+= 1
        return value & Int.max
    }
}
