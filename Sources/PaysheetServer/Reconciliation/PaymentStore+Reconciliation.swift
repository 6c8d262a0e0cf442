import PaysheetPayments
import Foundation

extension PaymentStore {
    /// The payments sent to the acquirer on `day` (`YYYYMMDD`, the Beijing date of `txnTime`).
    func payments(sentOn day: String) async throws -> [PaymentRecord] {
        try await database.read(
            """
            SELECT body FROM payments WHERE acquirer_txn_time >= $1 AND acquirer_txn_time <= $2 ORDER BY acquirer_txn_time, id
            """,
            [.text(day + "000000"), .text(day + "235959")]
        ).map(PaymentStore.payment(from:))
    }

    /// Stores `report` as the day's reconciliation (a later run replaces it).
    func save(_ report: ReconciliationReport) async throws {
        try await database.write(
            """
            INSERT INTO reconciliations (day, body, checked_ms) VALUES ($1, $2, $3)
            ON CONFLICT (day) DO UPDATE SET body = excluded.body, checked_ms = excluded.checked_ms
            """,
            [.text(report.day), .text(try PaymentStore.json(report)), .int(PaymentStore.ms(report.checkedAt))]
        )
    }

    /// The stored reconciliation of `day`.
    func reconciliation(day: String) async throws -> ReconciliationReport? {
        guard let row = try await database.read("SELECT body FROM reconciliations WHERE day = $1", [.text(day)]).first
        else { return nil }
        return try row.record(ReconciliationReport.self, "body")
    }
}
