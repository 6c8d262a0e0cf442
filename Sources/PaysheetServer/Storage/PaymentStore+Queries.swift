import PaysheetPayments
import Foundation

extension PaymentStore {
    /// Non-terminal payments whose next query is due at `now`, oldest due first.
    /// Claims up to `limit` payments whose query is due at `now` for this server until
    /// `leaseUntil` (`leased_until`, apart from the schedule, so that a change stored meanwhile —
    /// the consume's late answer, say — does not free it): no other server claims them until the
    /// claim is released (``releaseClaim(_:)``, after the query's answer is stored) or runs out (a
    /// server that died). PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite has one writer.
    public func claimDuePayments(at now: Date, leaseUntil: Date, limit: Int = 200) async throws -> [PaymentRecord] {
        let lock = database.dialect == "postgresql" ? " FOR UPDATE SKIP LOCKED" : ""
        return try await database.write(
            """
            UPDATE payments SET leased_until = $1 WHERE id IN (
                SELECT id FROM payments WHERE next_query_at IS NOT NULL AND next_query_at <= $2
                    AND (leased_until IS NULL OR leased_until <= $2) ORDER BY next_query_at LIMIT $3\(lock))
            RETURNING body
            """,
            [.int(PaymentStore.ms(leaseUntil)), .int(PaymentStore.ms(now)), .int(limit)]
        ).map(PaymentStore.payment(from:))
    }

    /// Ends this server's claim on `paymentId` (its query was answered and stored).
    public func releaseClaim(_ paymentId: String) async throws {
        try await database.write("UPDATE payments SET leased_until = NULL WHERE id = $1", [.text(paymentId)])
    }

    /// Payments whose query is due at `now` (without claiming them).
    public func duePayments(at now: Date, limit: Int = 200) async throws -> [PaymentRecord] {
        try await database.read(
            "SELECT body FROM payments WHERE next_query_at IS NOT NULL AND next_query_at <= $1 ORDER BY next_query_at LIMIT $2",
            [.int(PaymentStore.ms(now)), .int(limit)]
        ).map(PaymentStore.payment(from:))
    }

    /// How many payments are not yet certain. A payment has a next query exactly while it is not
    /// terminal (`PaymentLifecycle` (PaysheetPayments)), so this counts entries of the `payments_due` index
    /// instead of scanning every payment ever made (`/health` runs it on each probe).
    public func openPaymentCount() async throws -> Int {
        let rows = try await database.read(
            "SELECT CAST(COUNT(*) AS TEXT) AS open FROM payments WHERE next_query_at IS NOT NULL",
            []
        )
        return try rows.first?.int("open") ?? 0
    }
}
