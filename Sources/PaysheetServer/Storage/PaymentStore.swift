import PaysheetPayments
import Foundation

/// Orders, payments and their history, notifications, token uses and idempotency keys over
/// one ``SQLDatabase``. Every change that belongs together commits in one transaction; rows
/// carry a version so that two servers never both advance the same payment.
public struct PaymentStore: Sendable {
    /// The database.
    public let database: any SQLDatabase
    /// This store's name in its settlement announcements (random, one per store, so one per
    /// server): a server's listener knows its own announcements — PostgreSQL delivers them to it
    /// too — and leaves them to the in-process hand-off (``PaymentWaiters``).
    let announcer = UUID().uuidString
    /// Where settlements are announced to the other servers: PostgreSQL's, after their commits;
    /// `nil` on SQLite (one server).
    let announcements: SettlementAnnouncements?

    /// A store over `database`.
    public init(database: any SQLDatabase) {
        self.database = database
        announcements =
            database.dialect == "postgresql" ? SettlementAnnouncements(database: database, announcer: announcer) : nil
    }

    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    static let records = RecordCache()

    static func json<T: Encodable & Sendable>(_ value: T) throws -> String {
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        records.remember(value, for: text)
        return text
    }
    static func decode<T: Decodable & Sendable>(_ type: T.Type, _ text: String?) throws -> T {
        guard let text else { throw StorageError("a stored \(T.self) is NULL") }
        if let known = records.value(T.self, for: text) { return known }
        let value = try decoder.decode(T.self, from: Data(text.utf8))
        records.remember(value, for: text)
        return value
    }
    static func ms(_ date: Date) -> Int { Int((date.timeIntervalSince1970 * 1000).rounded()) }

    /// `date` as ISO 8601 in UTC to the second (`2026-11-21T09:30:00Z`), as `ISO8601DateFormatter`
    /// writes it, without building a formatter per row.
    static func timestamp(_ date: Date) -> String { Timestamp.text(date) }

    /// Applies the migrations not applied yet.
    /// Safe when several servers start at once: on PostgreSQL each step holds a transaction-scoped
    /// advisory lock of its schema (SQLite's writer is one at a time already).
    public func migrate() async throws {
        let postgres = database.dialect == "postgresql"
        try await database.transaction { db in
            if postgres {
                try await db.execute(
                    Self.migrationLockSQL,
                    []
                )
            }
            try await db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_ms BIGINT NOT NULL)",
                []
            )
        }
        for migration in Migrations.all {
            try await database.transaction { db in
                if postgres {
                    try await db.execute(
                        Self.migrationLockSQL,
                        []
                    )
                }
                let done = try await db.execute(
                    "SELECT CAST(version AS TEXT) FROM schema_migrations WHERE version = $1",
                    [.int(migration.version)]
                )
                guard done.isEmpty else { return }
                for statement in migration.statements { try await db.execute(statement, []) }
                try await db.execute(
                    "INSERT INTO schema_migrations (version, applied_ms) VALUES ($1, $2)",
                    [.int(migration.version), .int(PaymentStore.ms(Date()))]
                )
            }
        }
    }

    /// The advisory lock key of migrations ("paysheet" in ASCII, as a number).
    static let migrationLock = 0x7061_7973_6865_6574

    /// Takes the migrations' lock of the current schema: servers migrating the same schema wait for
    /// each other; those of other schemas (several databases' worth in one PostgreSQL, each test's
    /// own) do not queue behind them.
    static let migrationLockSQL =
        "SELECT CAST(1 AS TEXT) FROM (SELECT pg_advisory_xact_lock(\(migrationLock) # CAST(hashtext(current_schema()) AS BIGINT))) AS locked"

    /// The channel on which PostgreSQL servers tell each other that a payment became certain.
    static let settledChannel = "paysheet_payment_settled"
}
