import PaysheetPayments
import Foundation

extension PaymentStore {
    // MARK: Payments

    /// What ``insert(_:cause:order:tokenTransactionId:)`` did.
    public enum InsertResult: Sendable, Equatable {
        /// Written; the order as stored.
        case inserted(OrderRecord)
        /// The order changed meanwhile; nothing was written.
        case orderChanged
        /// The token's `transactionId` was used before; nothing was written.
        case tokenReplayed
    }

    /// Inserts `payment` with its first history row, `order` (version-checked) and the first use
    /// of the token `tokenTransactionId`, all in one transaction: a crash leaves either all or none.
    public func insert(
        _ payment: PaymentRecord,
        cause: String,
        order: OrderRecord,
        tokenTransactionId: String? = nil
    ) async throws -> InsertResult {
        let body = try PaymentStore.json(payment)
        if database.dialect == "postgresql" {
            return try await insertOnPostgres(
                payment,
                body: body,
                cause: cause,
                order: order,
                tokenTransactionId: tokenTransactionId
            )
        }
        do {
            return try await database.transaction { db in
                if let tokenTransactionId {
                    guard
                        try await PaymentStore.insertTokenUse(
                            tokenTransactionId,
                            order: order.id,
                            payment: payment.id,
                            at: payment.createdAt,
                            db
                        )
                    else { return .tokenReplayed }
                }
                guard let stored = try await PaymentStore.update(order, db) else { throw OrderChanged() }
                try await db.execute(
                    """
                    INSERT INTO payments (id, order_id, kind, state, acquirer_order_id, acquirer_txn_time, next_query_at, version, body, created_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                    """,
                    [
                        .text(payment.id), .text(payment.orderId), .text(payment.kind.rawValue),
                        .text(payment.lifecycle.state.rawValue),
                        .text(payment.identity.orderId), .text(payment.identity.txnTime),
                        payment.lifecycle.nextQueryAt.map { .int(PaymentStore.ms($0)) } ?? .null, .int(payment.version),
                        .text(body),
                        .text(PaymentStore.timestamp(payment.createdAt)),
                    ]
                )
                try await PaymentStore.addEvent(
                    payment.id,
                    PaymentTransition(from: nil, to: payment.lifecycle.state, cause: cause, at: payment.createdAt),
                    db
                )
                return .inserted(stored)
            }
        } catch is OrderChanged {
            return .orderChanged
        }
    }

    /// Rolls back an insert whose order changed (the token use must not stay recorded).
    struct OrderChanged: Error {}

    static func payment(from row: SQLRow) throws -> PaymentRecord { try row.record(PaymentRecord.self, "body") }

    /// The payment `id`.
    public func payment(_ id: String) async throws -> PaymentRecord? {
        try await database.read("SELECT body FROM payments WHERE id = $1", [.text(id)]).first.map(
            PaymentStore.payment(from:)
        )
    }

    /// The payment the acquirer knows as `identity`.
    public func payment(_ identity: TransactionIdentity) async throws -> PaymentRecord? {
        try await database.read(
            "SELECT body FROM payments WHERE acquirer_order_id = $1 AND acquirer_txn_time = $2",
            [.text(identity.orderId), .text(identity.txnTime)]
        ).first.map(PaymentStore.payment(from:))
    }

    /// The payment the acquirer knows as `identity`, with its order and all the order's payments,
    /// in one statement (a notification is applied, and its order repriced, from them).
    public func paymentWithOrder(
        _ identity: TransactionIdentity
    ) async throws -> (payment: PaymentRecord, order: OrderRecord, payments: [PaymentRecord])? {
        let rows = try await database.read(
            PaymentStore.orderAndPaymentsSQL(
                orderId: "(SELECT order_id FROM payments WHERE acquirer_order_id = $1 AND acquirer_txn_time = $2)"
            ),
            [.text(identity.orderId), .text(identity.txnTime)]
        )
        guard let (order, payments) = try PaymentStore.orderAndPayments(from: rows),
            let payment = payments.first(where: { $0.identity == identity })
        else { return nil }
        return (payment, order, payments)
    }

    /// The payments of `orderId`, oldest first.
    public func payments(order orderId: String) async throws -> [PaymentRecord] {
        try await database.read(
            "SELECT body FROM payments WHERE order_id = $1 ORDER BY created_at, id",
            [.text(orderId)]
        ).map(PaymentStore.payment(from:))
    }

    /// The order `orderId` and its payments, oldest first, in one statement (so from one snapshot,
    /// and one round trip fewer on PostgreSQL); `nil` when there is no such order.
    public func orderAndPayments(_ orderId: String) async throws -> (order: OrderRecord, payments: [PaymentRecord])? {
        try PaymentStore.orderAndPayments(
            from: try await database.read(PaymentStore.orderAndPaymentsSQL, [.text(orderId)])
        )
    }

    static func orderAndPayments(
        _ orderId: String,
        _ db: any SQLExecutor
    ) async throws -> (order: OrderRecord, payments: [PaymentRecord])? {
        try orderAndPayments(from: try await db.execute(orderAndPaymentsSQL, [.text(orderId)]))
    }

    static let orderAndPaymentsSQL = orderAndPaymentsSQL(orderId: "$1")

    /// The order whose id is `orderId` (an SQL expression) and its payments, oldest first.
    static func orderAndPaymentsSQL(orderId: String) -> String {
        """
        SELECT CAST(part AS TEXT) AS part, body FROM (
            SELECT 0 AS part, '' AS created_at, '' AS id, body FROM orders WHERE id = \(orderId)
            UNION ALL
            SELECT 1, created_at, id, body FROM payments WHERE order_id = \(orderId)) AS u
        ORDER BY u.part, u.created_at, u.id
        """
    }

    static func orderAndPayments(
        from rows: some Collection<SQLRow>
    ) throws -> (order: OrderRecord, payments: [PaymentRecord])? {
        guard let first = rows.first, try first.text("part") == "0" else { return nil }
        return (
            try first.record(OrderRecord.self, "body"),
            try rows.dropFirst().map { try $0.record(PaymentRecord.self, "body") }
        )
    }

    /// A change of a payment's state that is not stored yet: the history row it makes.
    /// Writes `payment` (version-checked) with a history row when its state changed, and lets
    /// `reprice` recompute its order from all the order's payments in the same transaction.
    /// Returns the stored payment and order, or `nil` when another writer was first.
    /// `notification` (deduplication key, raw body) is stored in the same transaction; when it
    /// was stored before, nothing is written and ``DuplicateNotification`` is thrown.
    /// `earlier`: a change made to `payment` before this one and not stored (the acquirer's
    /// acceptance, held until its outcome), whose history row goes before `transition`'s.
    public func update(
        _ payment: PaymentRecord,
        transition: PaymentTransition?,
        at now: Date,
        notification: (key: String, body: String)? = nil,
        earlier: PaymentTransition? = nil,
        reprice: (@Sendable (OrderRecord, [PaymentRecord]) -> OrderRecord)?,
        snapshot: (OrderRecord, [PaymentRecord])? = nil
    ) async throws -> (PaymentRecord, OrderRecord?)? {
        var bumped = payment
        bumped.version += 1
        let next = bumped
        let body = try PaymentStore.json(next)
        if database.dialect == "postgresql" {
            return try await updateOnPostgres(
                payment,
                next: next,
                body: body,
                transition: transition,
                at: now,
                notification: notification,
                earlier: earlier,
                reprice: reprice,
                snapshot: snapshot
            )
        }
        do {
            return try await database.transaction { db in
                if let notification {
                    guard
                        try await PaymentStore.insertNotification(
                            key: notification.key,
                            paymentId: next.id,
                            body: notification.body,
                            at: now,
                            db
                        )
                    else {
                        throw DuplicateNotification()
                    }
                }
                let rows = try await db.execute(
                    """
                    UPDATE payments SET state = $1, next_query_at = $2, version = $3, body = $4 WHERE id = $5 AND version = $6 RETURNING id
                    """,
                    [
                        .text(next.lifecycle.state.rawValue),
                        next.lifecycle.nextQueryAt.map { .int(PaymentStore.ms($0)) } ?? .null,
                        .int(next.version), .text(body), .text(next.id), .int(payment.version),
                    ]
                )
                guard !rows.isEmpty else { throw VersionConflict() }  // roll back (a notification insert too)
                if let earlier {
                    try await PaymentStore.addEvent(next.id, earlier, db)
                }
                guard let transition else { return (next, nil) }
                try await PaymentStore.addEvent(next.id, transition, db)
                guard let reprice else { return (next, nil) }
                guard let (order, payments) = try await PaymentStore.orderAndPayments(next.orderId, db) else {
                    return (next, nil)
                }
                let updated = reprice(order, payments)
                guard updated != order else { return (next, order) }
                guard let stored = try await PaymentStore.update(updated, db) else {
                    throw StorageError("order \(order.id) changed during a payment update")
                }
                return (next, stored)
            }
        } catch is VersionConflict {
            return nil
        }
    }

    struct VersionConflict: Error {}
}
