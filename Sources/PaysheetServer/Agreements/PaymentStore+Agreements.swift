import Foundation

extension PaymentStore {
    /// Inserts a new agreement; `false` when one with its id exists.
    func insert(_ agreement: AgreementRecord) async throws -> Bool {
        let rows = try await database.write(
            """
            INSERT INTO agreements (id, order_id, status, version, body, created_ms) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (id) DO NOTHING RETURNING id
            """,
            [
                .text(agreement.id), .text(agreement.orderId), .text(agreement.canceledAt == nil ? "open" : "canceled"),
                .int(agreement.version), .text(try PaymentStore.json(agreement)),
                .int(PaymentStore.ms(agreement.startedAt)),
            ]
        )
        return !rows.isEmpty
    }

    /// The agreement `id`.
    func agreement(_ id: String) async throws -> AgreementRecord? {
        guard let row = try await database.read("SELECT body FROM agreements WHERE id = $1", [.text(id)]).first else {
            return nil
        }
        return try row.record(AgreementRecord.self, "body")
    }

    /// Writes `agreement` if its stored version is still `agreement.version`; `nil` when another writer was first.
    func update(_ agreement: AgreementRecord) async throws -> AgreementRecord? {
        var next = agreement
        next.version += 1
        let rows = try await database.write(
            "UPDATE agreements SET status = $1, version = $2, body = $3 WHERE id = $4 AND version = $5 RETURNING id",
            [
                .text(next.canceledAt == nil ? "open" : "canceled"), .int(next.version),
                .text(try PaymentStore.json(next)), .text(agreement.id), .int(agreement.version),
            ]
        )
        return rows.isEmpty ? nil : next
    }
}
