import PaysheetPayments
import Foundation

extension PaymentStore {
    /// Appends `transition` to the history of `paymentId` (the states' raw values are written here).
    static func addEvent(_ paymentId: String, _ transition: PaymentTransition, _ db: any SQLExecutor) async throws {
        let (from, to, cause, at) = (transition.from?.rawValue, transition.to.rawValue, transition.cause, transition.at)
        try await db.execute(
            """
            INSERT INTO payment_events (payment_id, seq, from_state, to_state, cause, at_ms)
            VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM payment_events WHERE payment_id = $1), $2, $3, $4, $5)
            """,
            [.text(paymentId), from.map { .text($0) } ?? .null, .text(to), .text(cause), .int(ms(at))]
        )
    }

    /// The history of `paymentId`.
    public func events(payment paymentId: String) async throws -> [PaymentEvent] {
        try await events(payments: [paymentId])[paymentId] ?? []
    }

    /// The histories of the payments `ids`, by payment id, each in order.
    ///
    /// Looked up by the history's primary key with the ids as values (a join through `payments`
    /// let PostgreSQL, before its statistics exist, scan the whole history for every order). The
    /// `ORDER BY` names the table's column: PostgreSQL names the selected `CAST(seq AS TEXT)`
    /// `seq` too, and an unqualified `seq` would sort as text (10 before 2).
    public func events(payments ids: [String]) async throws -> [String: [PaymentEvent]] {
        var out: [String: [PaymentEvent]] = [:]
        var start = 0
        while start < ids.count {
            // At most 32 ids a statement, so a handful of statement shapes serve every order.
            let part = ids[start..<min(start + 32, ids.count)]
            start += part.count
            let placeholders = (1...part.count).map { "$\($0)" }.joined(separator: ", ")
            let rows = try await database.read(
                """
                SELECT CAST(seq AS TEXT) AS seq, from_state, to_state, cause, CAST(at_ms AS TEXT) AS at_ms, payment_id
                FROM payment_events
                WHERE payment_id IN (\(placeholders)) ORDER BY payment_events.payment_id, payment_events.seq
                """,
                part.map { .text($0) }
            )
            for row in rows { out[try row.string("payment_id"), default: []].append(try PaymentStore.event(from: row)) }
        }
        return out
    }

    static func event(from row: SQLRow) throws -> PaymentEvent {
        PaymentEvent(
            sequence: try row.int("seq") ?? 0,
            from: try row.text("from_state"),
            to: try row.string("to_state"),
            cause: try row.string("cause"),
            at: Date(timeIntervalSince1970: Double(try row.int("at_ms") ?? 0) / 1000)
        )
    }
}
