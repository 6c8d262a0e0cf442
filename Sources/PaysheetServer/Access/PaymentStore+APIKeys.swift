import PaysheetPayments
import Foundation

extension PaymentStore {
    // MARK: API keys

    /// Inserts a new API key's record and hash.
    func insertAPIKey(_ record: APIKeyRecord, hash: String) async throws {
        try await database.write(
            "INSERT INTO api_keys (id, name, hash, created_ms) VALUES ($1, $2, $3, $4)",
            [.text(record.id), .text(record.name), .text(hash), .int(PaymentStore.ms(record.createdAt))]
        )
    }

    /// The key `id` and its stored hash.
    func apiKey(_ id: String) async throws -> (APIKeyRecord, String)? {
        let rows = try await database.read(
            """
            SELECT id, name, hash, CAST(created_ms AS TEXT) AS created_ms, CAST(revoked_ms AS TEXT) AS revoked_ms
            FROM api_keys WHERE id = $1
            """,
            [.text(id)]
        )
        guard let row = rows.first, let hash = try row.text("hash") else { return nil }
        return (try Self.apiKeyRecord(row), hash)
    }

    /// Every key, newest first.
    func apiKeys() async throws -> [APIKeyRecord] {
        try await database.read(
            """
            SELECT id, name, hash, CAST(created_ms AS TEXT) AS created_ms, CAST(revoked_ms AS TEXT) AS revoked_ms FROM api_keys
            ORDER BY api_keys.created_ms DESC, api_keys.id
            """,
            []
        ).map(Self.apiKeyRecord)
    }

    /// Marks `id` revoked at `at`; `false` when it does not exist or was revoked already.
    func revokeAPIKey(_ id: String, at: Date) async throws -> Bool {
        let rows = try await database.write(
            "UPDATE api_keys SET revoked_ms = $1 WHERE id = $2 AND revoked_ms IS NULL RETURNING id",
            [.int(PaymentStore.ms(at)), .text(id)]
        )
        return !rows.isEmpty
    }

    static func apiKeyRecord(_ row: SQLRow) throws -> APIKeyRecord {
        guard let created = try row.int("created_ms") else { throw StorageError("an api_keys row has no created_ms") }
        return APIKeyRecord(
            id: try row.string("id"),
            name: try row.string("name"),
            createdAt: Date(timeIntervalSince1970: Double(created) / 1000),
            revokedAt: try row.int("revoked_ms").map { Date(timeIntervalSince1970: Double($0) / 1000) }
        )
    }
}
