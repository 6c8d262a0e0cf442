import Foundation
import NIOConcurrencyHelpers
import Logging

/// SQLite (the library sqlite-nio vendors): one writing connection in WAL mode, transactions one
/// at a time (`BEGIN IMMEDIATE`), so a payment's state change and its history row commit
/// together; reads of one statement go to two reading connections and never wait for a write.
///
/// Statements run on the calling task's thread with cached prepared statements (see
/// `SQLiteConnectionHandle`); a transaction waits for its turn without blocking a thread.
///
/// **Group commit.** Every durable commit waits for one `fsync` of the log (`synchronous=FULL`). When
/// other transactions are waiting for the writer as one ends, its writes are not committed yet:
/// it becomes a savepoint of one open SQLite transaction, and the next waiting transaction runs
/// in the same one; the last of such a group (no one waiting, or eight in it) commits
/// for all with one `fsync`, and only then does any of them return. A transaction that fails is
/// rolled back to its savepoint, leaving the others; a commit that fails fails them all. No
/// durable transaction returns before it is on disk, so a crash loses only those whose callers
/// were never told they committed (and a power loss or an operating system's crash, also ordered
/// ones not yet followed by a durable one; a crash of this process alone loses none of those).
///
/// **Ordered commits.** A transaction that need not wait for the disk (``SQLCommit/ordered``)
/// commits with `synchronous=NORMAL`: its WAL frames are written, not synced; the next durable
/// commit's `fsync` of the same log puts them on disk too. SQLite changes `synchronous` only
/// between transactions, so a group is durable or ordered from its first transaction: an ordered
/// one may join a durable group (and wait for its `fsync`), while a durable one arriving at an
/// ordered group commits that group first (without an `fsync`; should that commit fail, the
/// ordered transactions waiting for it are told so, and this one goes on in a group of its own).
public final class SQLiteDatabase: SQLDatabase, @unchecked Sendable {
    let writer: SQLiteConnectionHandle
    let readers: [SQLiteConnectionHandle]
    let gate = TransactionGate()
    let nextReader = RoundRobin()
    /// At most this many transactions share a commit (bounding how long the first one waits).
    static let maxGroup = 8
    /// Whether an SQLite transaction is open on the writer, and the transactions in it waiting
    /// for its commit (both touched only by the gate's holder).
    private var open = false
    private var group: [CheckedContinuation<Void, any Error>] = []
    /// Whether the open group waits for the disk (`synchronous=FULL`) or not (`NORMAL`).
    private var groupDurable = true
    /// The writer's `synchronous` setting: `FULL` (true) or `NORMAL`.
    private var writerSynchronous = true
    /// Commits made (each durable one an `fsync`), the ordered ones among them, and transactions
    /// they committed.
    private(set) var commits = 0
    private(set) var orderedCommits = 0
    private(set) var committed = 0

    public var dialect: String { "sqlite" }

    /// Opens (creating, mode 0600) the database file at `path`; `":memory:"` for an in-memory database.
    public static func open(
        path: String,
        logger: Logger = Logger(label: "paysheet.sqlite")
    ) async throws -> SQLiteDatabase {
        if path != ":memory:" {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            // Readable by its owner only, like the keys; SQLite gives its -wal and -shm files the
            // database file's permissions.
            if !FileManager.default.fileExists(atPath: path) {
                guard
                    FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
                else {
                    throw StorageError("cannot create the database file \(path)")
                }
            }
        }
        let writer = try SQLiteConnectionHandle(path: path)
        _ = try writer.execute("PRAGMA journal_mode=WAL", [])
        // Every durable commit on disk before it returns (SQLite's NORMAL could undo the last
        // commits on a power loss): a payment is stored before the acquirer is asked to charge it,
        // and must not disappear after. About 5% of the SQLite rate here (docs/decisions.md).
        // Ordered commits switch to NORMAL for their own (`transaction(commit:_:)`).
        _ = try writer.execute("PRAGMA synchronous=FULL", [])
        var readers: [SQLiteConnectionHandle] = []
        if path != ":memory:" {
            for _ in 0..<2 {
                let reader = try SQLiteConnectionHandle(path: path)
                _ = try reader.execute("PRAGMA query_only=1", [])
                readers.append(reader)
            }
        }
        return SQLiteDatabase(writer: writer, readers: readers)
    }

    init(writer: SQLiteConnectionHandle, readers: [SQLiteConnectionHandle]) {
        self.writer = writer
        self.readers = readers
    }

    public func read(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        guard !readers.isEmpty else { return try await transaction { try await $0.execute(sql, binds) } }
        let reader = readers[nextReader.next() % readers.count]
        return try reader.execute(sql, binds)
    }

    /// The writer inside a transaction (the gate is held, so nobody else uses it).
    struct Executor: SQLExecutor {
        let connection: SQLiteConnectionHandle
        func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            try connection.execute(sql, binds)
        }
    }

    public func write(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await write(sql, binds, commit: .durable)
    }

    public func write(_ sql: String, _ binds: [SQLValue], commit: SQLCommit) async throws -> [SQLRow] {
        try await transaction(commit: commit) { try await $0.execute(sql, binds) }
    }

    public func transaction<T: Sendable>(
        commit: SQLCommit,
        _ body: @Sendable (any SQLExecutor) async throws -> T
    ) async throws -> T {
        await gate.enter()
        let executor = Executor(connection: writer)
        do {
            try joinGroup(durable: commit == .durable)
        } catch {
            finishGroup(committing: false, cause: error)
            gate.leave()
            throw error
        }
        let result: Result<T, any Error>
        do {
            let value = try await body(executor)
            _ = try writer.execute("RELEASE paysheet", [])
            result = .success(value)
        } catch {
            result = .failure(error)
            do {
                _ = try writer.execute("ROLLBACK TO paysheet", [])
                _ = try writer.execute("RELEASE paysheet", [])
            } catch {
                // The transaction cannot be kept: neither can the group's.
                finishGroup(committing: false, cause: error)
                gate.leave()
                throw error
            }
        }
        var succeeded = false
        if case .success = result { succeeded = true }
        if gate.hasWaiters, !succeeded || group.count + 1 < Self.maxGroup {
            // Another transaction is waiting: it runs in this open one, and the last commits for
            // all (a failed one leaves nothing of its own to wait for).
            if succeeded {
                try await withCheckedThrowingContinuation { continuation in
                    group.append(continuation)
                    gate.leave()
                }
            } else {
                gate.leave()
            }
            return try result.get()
        }
        let failure = finishGroup(committing: succeeded || !group.isEmpty, including: succeeded)
        gate.leave()
        if succeeded, let failure { throw failure }
        return try result.get()
    }

    /// Starts the gate holder's transaction as a savepoint of the open group, or of a new one when
    /// none is open or when the open one does not wait for the disk and this one must: that
    /// group commits first (its frames go on disk with this one's `fsync`). A new group takes
    /// the transaction's `synchronous` setting, which SQLite changes only between transactions.
    private func joinGroup(durable: Bool) throws {
        if open, durable, !groupDurable { finishGroup(committing: true) }
        if !open {
            if writerSynchronous != durable {
                _ = try writer.execute(durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL", [])
                writerSynchronous = durable
            }
            _ = try writer.execute("BEGIN IMMEDIATE", [])
            open = true
            groupDurable = durable
        }
        _ = try writer.execute("SAVEPOINT paysheet", [])
    }

    /// Ends the open transaction: commits it (one `fsync` if durable) when `committing`, else rolls it back,
    /// and resumes the group waiting for it — with `cause`, or the commit's error, if it did not
    /// commit; `including` the caller's own transaction in the count of those committed. Returns
    /// the failure, if any. Called by the gate's holder.
    @discardableResult
    private func finishGroup(
        committing: Bool,
        including own: Bool = false,
        cause: (any Error)? = nil
    ) -> (any Error)? {
        var failure = cause
        if open {
            if committing && failure == nil {
                do {
                    _ = try writer.execute("COMMIT", [])
                    commits += 1
                    if !groupDurable { orderedCommits += 1 }
                    committed += group.count + (own ? 1 : 0)
                } catch { failure = error }
            }
            if !committing || failure != nil { _ = try? writer.execute("ROLLBACK", []) }
            open = false
        }
        let waiting = group
        group = []
        for continuation in waiting {
            if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
        }
        return failure
    }

    public func close() async {
        writer.close()
        for reader in readers { reader.close() }
    }
}

/// One transaction at a time, first come first served; entering a free gate does not suspend.
final class TransactionGate: @unchecked Sendable {
    private let lock = NSLock()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if tryEnter() { return }
        await withCheckedContinuation { enterOrWait($0) }
    }

    /// Whether someone is waiting to enter.
    var hasWaiters: Bool { lock.withLock { !waiting.isEmpty } }

    private func tryEnter() -> Bool {
        lock.withLock {
            guard !busy else { return false }
            busy = true
            return true
        }
    }

    /// Enters (and resumes at once) if the gate was freed meanwhile, else waits in line.
    private func enterOrWait(_ continuation: CheckedContinuation<Void, Never>) {
        let entered = lock.withLock {
            if !busy {
                busy = true
                return true
            }
            waiting.append(continuation)
            return false
        }
        if entered { continuation.resume() }
    }

    /// Hands the gate to the first waiter (it stays busy) or frees it.
    func leave() {
        let next: CheckedContinuation<Void, Never>? = lock.withLock {
            if waiting.isEmpty {
                busy = false
                return nil
            }
            return waiting.removeFirst()
        }
        next?.resume()
    }
}

/// A thread-safe counter (round robin over the readers).
final class RoundRobin: Sendable {
    private let value = NIOLockedValueBox(0)
    func next() -> Int {
        value.withLockedValue { value in
            value &+= 1
            return value & Int.max
        }
    }
}
