import PaysheetPayments
import Foundation

/// PostgreSQL's forms of the writes that SQLite does as small transactions: each one statement of
/// several data-modifying CTEs, atomic and committed on its own, so that a payment's creation or
/// change costs one round trip instead of `BEGIN`, four or five statements and `COMMIT`.
///
/// A CTE's writes all happen, whatever the final `SELECT` reads; when one part could not be done
/// (an order that changed, a token used before), the final `SELECT` divides by the count of the
/// part that is missing, and the division by zero undoes the whole statement
/// (``SQLStatementAborted``). The counts are subqueries, so the planner cannot fold them early.
extension PaymentStore {
    /// ``insert(_:cause:order:tokenTransactionId:)`` in one statement.
    func insertOnPostgres(
        _ payment: PaymentRecord,
        body: String,
        cause: String,
        order: OrderRecord,
        tokenTransactionId: String?
    ) async throws -> InsertResult {
        var next = order
        next.version += 1
        let token = tokenTransactionId?.lowercased() ?? ""
        do {
            let rows = try await database.write(
                """
                WITH o AS (UPDATE orders SET status = $1, version = $2, body = $3 WHERE id = $4 AND version = $5 RETURNING id),
                t AS (INSERT INTO token_uses (transaction_id, order_id, used_ms, payment_id) SELECT $6, id, $7, $8 FROM o WHERE $6 <> ''
                      ON CONFLICT DO NOTHING RETURNING transaction_id),
                p AS (INSERT INTO payments (id, order_id, kind, state, acquirer_order_id, acquirer_txn_time, next_query_at, version, body, created_at)
                      SELECT $8, o.id, $9, $10, $11, $12, $13, $14, $15, $16 FROM o WHERE $6 = '' OR EXISTS (SELECT 1 FROM t) RETURNING id),
                e AS (INSERT INTO payment_events (payment_id, seq, from_state, to_state, cause, at_ms) SELECT id, 1, NULL, $10, $17, $7 FROM p)
                SELECT CAST((SELECT COUNT(*) FROM o) AS TEXT) AS orders_updated,
                    CAST(CASE WHEN (SELECT COUNT(*) FROM o) = 1 THEN 1 / (SELECT COUNT(*) FROM p) ELSE 0 END AS TEXT) AS checked
                """,
                [
                    .text(next.status.rawValue), .int(next.version), .text(try PaymentStore.json(next)),
                    .text(order.id), .int(order.version),
                    .text(token), .int(PaymentStore.ms(payment.createdAt)),
                    .text(payment.id), .text(payment.kind.rawValue), .text(payment.lifecycle.state.rawValue),
                    .text(payment.identity.orderId), .text(payment.identity.txnTime),
                    payment.lifecycle.nextQueryAt.map { .int(PaymentStore.ms($0)) } ?? .null, .int(payment.version),
                    .text(body),
                    .text(PaymentStore.timestamp(payment.createdAt)), .text(cause),
                ]
            )
            return try rows.first?.text("orders_updated") == "1" ? .inserted(next) : .orderChanged
        } catch is SQLStatementAborted {
            return .tokenReplayed  // the order was current: only the token's earlier use stops it
        }
    }

    /// ``update(_:transition:at:notification:earlier:reprice:snapshot:)`` in one statement (and, when the order is
    /// to be repriced, one read before it of the order and its payments). The order is written
    /// whenever it is repriced, its version checked, so that two payments of one order settling at
    /// once on two servers cannot both price it from a snapshot without the other.
    func updateOnPostgres(
        _ payment: PaymentRecord,
        next: PaymentRecord,
        body: String,
        transition: PaymentTransition?,
        at now: Date,
        notification: (key: String, body: String)?,
        earlier: PaymentTransition?,
        reprice: (@Sendable (OrderRecord, [PaymentRecord]) -> OrderRecord)?,
        snapshot: (OrderRecord, [PaymentRecord])?
    ) async throws -> (PaymentRecord, OrderRecord?)? {
        var orderBefore: OrderRecord?
        var orderAfter: OrderRecord?
        if let reprice, transition != nil {
            // A snapshot read with the payment (a notification's) serves; a stale one fails the order's version check.
            var read = snapshot
            if read == nil { read = try await orderAndPayments(next.orderId) }
            if let (order, payments) = read {
                var updated = reprice(order, payments.map { $0.id == next.id ? next : $0 })
                updated.version = order.version + 1
                orderBefore = order
                orderAfter = updated
            }
        }
        let settled = transition != nil && next.lifecycle.state.isTerminal
        do {
            let rows = try await database.write(
                """
                WITH n AS (INSERT INTO notifications (dedup_key, payment_id, body, received_ms) SELECT $1, $2, $3, $4 WHERE $1 <> ''
                           ON CONFLICT DO NOTHING RETURNING dedup_key),
                p AS (UPDATE payments SET state = $5, next_query_at = $6, version = $7, body = $8
                      WHERE id = $2 AND version = $9 AND ($1 = '' OR EXISTS (SELECT 1 FROM n)) RETURNING id),
                q AS (SELECT COALESCE(MAX(seq), 0) AS seq FROM payment_events WHERE payment_id = $2),
                b AS (INSERT INTO payment_events (payment_id, seq, from_state, to_state, cause, at_ms)
                      SELECT id, q.seq + 1, $18, $19, $20, $21 FROM p, q WHERE $19 <> ''),
                e AS (INSERT INTO payment_events (payment_id, seq, from_state, to_state, cause, at_ms)
                      SELECT id, q.seq + CASE WHEN $19 <> '' THEN 2 ELSE 1 END, $10, $11, $12, $4 FROM p, q WHERE $11 <> ''),
                o AS (UPDATE orders SET status = $13, version = $14, body = $15
                      WHERE id = $16 AND version = $17 AND EXISTS (SELECT 1 FROM p) RETURNING id)
                SELECT CAST((SELECT COUNT(*) FROM n) AS TEXT) AS notifications_stored,
                    CAST((SELECT COUNT(*) FROM p) AS TEXT) AS payments_updated,
                    CAST(CASE WHEN (SELECT COUNT(*) FROM n) = 1 THEN 1 / (SELECT COUNT(*) FROM p) ELSE 0 END AS TEXT) AS checked,
                    CAST(CASE WHEN $16 <> '' AND (SELECT COUNT(*) FROM p) = 1 THEN 1 / (SELECT COUNT(*) FROM o) ELSE 0 END AS TEXT)
                        AS order_checked
                """,
                [
                    .text(notification?.key ?? ""), .text(next.id), .text(notification?.body ?? ""),
                    .int(PaymentStore.ms(now)),
                    .text(next.lifecycle.state.rawValue),
                    next.lifecycle.nextQueryAt.map { .int(PaymentStore.ms($0)) } ?? .null,
                    .int(next.version), .text(body), .int(payment.version),
                    transition?.from.map { .text($0.rawValue) } ?? .null, .text(transition?.to.rawValue ?? ""),
                    .text(transition?.cause ?? ""),
                    .text(orderAfter?.status.rawValue ?? ""), .int(orderAfter?.version ?? 0),
                    .text(try orderAfter.map { try PaymentStore.json($0) } ?? ""), .text(orderBefore?.id ?? ""),
                    .int(orderBefore?.version ?? 0),
                    earlier?.from.map { .text($0.rawValue) } ?? .null, .text(earlier?.to.rawValue ?? ""),
                    .text(earlier?.cause ?? ""),
                    .int(earlier.map { PaymentStore.ms($0.at) } ?? 0),
                ]
            )
            guard let row = rows.first else { return nil }
            if notification != nil, try row.text("notifications_stored") == "0" { throw DuplicateNotification() }
            guard try row.text("payments_updated") == "1" else { return nil }  // another writer was first
            // Told to the other servers after the commit, not in it (SettlementAnnouncements).
            if settled { announcements?.announce(next.id) }
            return (next, orderAfter)
        } catch is SQLStatementAborted {
            return nil  // the payment or its order changed meanwhile: nothing was written
        }
    }
}
