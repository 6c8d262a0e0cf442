import PaysheetPayments
import Foundation

extension PaymentStore {
    // MARK: Notifications, token uses

    /// A notification that was stored before.
    public struct DuplicateNotification: Error {}

    /// Stores a notification; `false` when one with the same key was stored before (a duplicate).
    public func recordNotification(key: String, paymentId: String?, body: String, at now: Date) async throws -> Bool {
        try await PaymentStore.insertNotification(
            key: key,
            paymentId: paymentId,
            body: body,
            at: now,
            StatementAlone(database: database)
        )
    }

    /// Stores a notification in `db`'s transaction; `false` when its key was stored before.
    static func insertNotification(
        key: String,
        paymentId: String?,
        body: String,
        at now: Date,
        _ db: any SQLExecutor
    ) async throws -> Bool {
        !(try await db.execute(
            "INSERT INTO notifications (dedup_key, payment_id, body, received_ms) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING dedup_key",
            [.text(key), paymentId.map { .text($0) } ?? .null, .text(body), .int(ms(now))]
        ).isEmpty)
    }

    /// Records the first use of a token's `transactionId`; `false` when it was used before (a replay).
    public func recordTokenUse(_ transactionId: String, order: String, at now: Date) async throws -> Bool {
        try await PaymentStore.insertTokenUse(transactionId, order: order, at: now, StatementAlone(database: database))
    }

    /// Records a token's first use in `db`'s transaction, by the payment `paymentId` when it made
    /// one; `false` when it was used before.
    static func insertTokenUse(
        _ transactionId: String,
        order: String,
        payment paymentId: String? = nil,
        at now: Date,
        _ db: any SQLExecutor
    ) async throws -> Bool {
        !(try await db.execute(
            """
            INSERT INTO token_uses (transaction_id, order_id, used_ms, payment_id) VALUES ($1, $2, $3, $4)
            ON CONFLICT DO NOTHING RETURNING transaction_id
            """,
            [.text(transactionId.lowercased()), .text(order), .int(ms(now)), paymentId.map { .text($0) } ?? .null]
        ).isEmpty)
    }

    /// The first use of the token `transactionId`: the order it was presented for and the payment
    /// it made (`nil` for uses recorded before payments were kept with them, or that made none).
    public func tokenUse(_ transactionId: String) async throws -> (orderId: String, paymentId: String?)? {
        guard
            let row = try await database.read(
                "SELECT order_id, payment_id FROM token_uses WHERE transaction_id = $1",
                [.text(transactionId.lowercased())]
            ).first,
            let orderId = try row.text("order_id")
        else { return nil }
        return (orderId, try row.text("payment_id"))
    }
}
