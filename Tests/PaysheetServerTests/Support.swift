import Foundation
import Logging
@testable import PaysheetServer

/// The databases the storage suite runs against: SQLite always, PostgreSQL when
/// `PAYSHEET_TEST_POSTGRES_URL` names one (CI starts a real server).
enum TestDatabases {
    static var postgresURL: String? { ProcessInfo.processInfo.environment["PAYSHEET_TEST_POSTGRES_URL"] }

    static var kinds: [String] { postgresURL == nil ? ["sqlite"] : ["sqlite", "postgres"] }

    /// Runs `body` with a fresh store of `kind` (PostgreSQL: a new schema per test).
    static func withStore(_ kind: String, _ body: (PaymentStore) async throws -> Void) async throws {
        if kind == "sqlite" {
            let folder = NSTemporaryDirectory() + "paysheet-store-" + UUID().uuidString
            let db = try await SQLiteDatabase.open(path: folder + "/test.sqlite")
            let store = PaymentStore(database: db)
            try await store.migrate()
            try await body(store)
            await db.close()
            try? FileManager.default.removeItem(atPath: folder)
        } else {
            let schema = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let admin = try PostgresDatabase(url: postgresURL!)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await admin.run() }
                _ = try await admin.transaction { db in try await db.execute("CREATE SCHEMA \(schema)", []) }
                let db = try PostgresDatabase(url: postgresURL!, searchPath: schema, statementTimeout: 120)
                group.addTask { await db.run() }
                let store = PaymentStore(database: db)
                try await store.migrate()
                try await body(store)
                _ = try await admin.transaction { db in try await db.execute("DROP SCHEMA \(schema) CASCADE", []) }
                group.cancelAll()
            }
        }
    }
}

/// Collects log lines (to check that no card data reaches the logs).
final class LogCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var times: [Date] = []
    func append(_ s: String) {
        lock.lock()
        lines.append(s)
        times.append(Date())
        lock.unlock()
    }

    /// When the first line containing `text` was logged.
    func firstTime(containing text: String) -> Date? {
        lock.withLock { lines.firstIndex { $0.contains(text) }.map { times[$0] } }
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    var logger: Logger {
        Logger(label: "test") { label in CollectingHandler(collector: self, label: label) }
    }

    struct CollectingHandler: LogHandler {
        let collector: LogCollector
        let label: String
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            collector.append("\(event.level) \(event.message) \(event.metadata ?? [:]) \(self.metadata)")
        }
    }
}

/// Polls `condition` every `interval` until it holds or `seconds` of wall-clock time pass; returns
/// whether it held. The deadline is generous: on a loaded machine an outcome only comes later, so
/// waiting for it may make a test slower, never wrong (nothing here waits for time to pass so that
/// a rule keyed on time applies: that is the server's clock's, ``TestServer/advanceClock(by:)``).
@discardableResult
func waitUntil(
    within seconds: Double = 60,
    every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while true {
        if try await condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try await Task.sleep(for: interval)
    }
}

/// A count shared between tasks (how many of them have finished, say).
final class SharedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
