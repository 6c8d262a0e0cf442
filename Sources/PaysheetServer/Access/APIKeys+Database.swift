import Foundation
import Logging

extension APIKeys {
    /// Runs `body` with the API keys of the database at `databaseURL` (`sqlite:PATH` or
    /// `postgres://…`; by default the data folder's SQLite file, as `paysheet serve` uses it),
    /// migrated first; a PostgreSQL statement not answered within `statementTimeout` seconds is
    /// given up (the server's `databaseStatementTimeout`). For `paysheet api-key` and tests.
    public static func withDatabase<T: Sendable>(
        _ databaseURL: String?,
        dataFolder: String,
        statementTimeout: Double = PostgresDatabase.defaultStatementTimeout,
        logger: Logger = Logger(label: "paysheet.api-key"),
        _ body: @Sendable (APIKeys) async throws -> T
    ) async throws -> T {
        let url = databaseURL ?? "sqlite:" + dataFolder + "/paysheet.sqlite"
        if url.hasPrefix("sqlite:") {
            try FileManager.default.createDirectory(
                atPath: dataFolder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            let database = try await SQLiteDatabase.open(path: String(url.dropFirst("sqlite:".count)), logger: logger)
            do {
                let store = PaymentStore(database: database)
                try await store.migrate()
                let result = try await body(APIKeys(store: store))
                await database.close()
                return result
            } catch {
                await database.close()
                throw error
            }
        }
        guard url.hasPrefix("postgres") else {
            throw StorageError("database URL \(url) is neither sqlite:PATH nor postgres://…")
        }
        let database = try PostgresDatabase(url: url, statementTimeout: statementTimeout, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await database.run()
                return nil
            }
            do {
                let store = PaymentStore(database: database)
                try await store.migrate()
                let result = try await body(APIKeys(store: store))
                group.cancelAll()
                return result
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }
}
