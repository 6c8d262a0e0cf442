import PaysheetPayments
import Foundation

extension PaymentStore {
    // MARK: Orders

    /// Inserts a new order.
    public func insert(_ order: OrderRecord, maxBytes: Int = .max) async throws {
        let body = try PaymentStore.json(order)
        guard body.utf8.count <= maxBytes else {
            throw ServiceError(
                .tooLarge,
                code: "order_too_large",
                message: "the order would take \(body.utf8.count) bytes; an order takes at most \(maxBytes)"
            )
        }
        try await database.write(
            "INSERT INTO orders (id, status, version, body, created_at) VALUES ($1, $2, $3, $4, $5)",
            [
                .text(order.id), .text(order.status.rawValue), .int(order.version), .text(body),
                .text(PaymentStore.timestamp(order.createdAt)),
            ]
        )
    }

    /// Deletes the orders created before `date` that never had a payment (status `created`);
    /// returns how many. Their idempotency keys expire on their own.
    func deleteOrdersWithoutPayments(createdBefore date: Date) async throws -> Int {
        try await database.write(
            """
            DELETE FROM orders WHERE status = 'created' AND created_at < $1
            AND NOT EXISTS (SELECT 1 FROM payments WHERE payments.order_id = orders.id) RETURNING id
            """,
            [.text(PaymentStore.timestamp(date))]
        ).count
    }

    /// The order `id`.
    public func order(_ id: String) async throws -> OrderRecord? {
        guard let row = try await database.read("SELECT body FROM orders WHERE id = $1", [.text(id)]).first else {
            return nil
        }
        return try row.record(OrderRecord.self, "body")
    }

    /// Writes `order` if its stored version is still `order.version`; bumps the version.
    /// Returns the stored order, or `nil` when another writer was first.
    static func update(_ order: OrderRecord, _ db: any SQLExecutor) async throws -> OrderRecord? {
        var bumped = order
        bumped.version += 1
        let next = bumped
        let rows = try await db.execute(
            "UPDATE orders SET status = $1, version = $2, body = $3 WHERE id = $4 AND version = $5 RETURNING id",
            [
                .text(next.status.rawValue), .int(next.version), .text(try json(next)), .text(order.id),
                .int(order.version),
            ]
        )
        return rows.isEmpty ? nil : next
    }

    /// Updates `order` (optimistic); `nil` when it changed meanwhile.
    public func update(_ order: OrderRecord) async throws -> OrderRecord? {
        try await PaymentStore.update(order, StatementAlone(database: database))
    }

    // MARK: Listing orders

    /// Orders newest first, at most `limit`, optionally only those with `status`, created before
    /// the order `before` (for paging).
    func orders(status: OrderStatus?, before: String?, limit: Int) async throws -> [OrderRecord] {
        var sql = "SELECT body FROM orders"
        var conditions: [String] = []
        var binds: [SQLValue] = []
        if let status {
            binds.append(.text(status.rawValue))
            conditions.append("status = $\(binds.count)")
        }
        if let before, let anchor = try await order(before) {
            binds.append(.text(PaymentStore.timestamp(anchor.createdAt)))
            let t = binds.count
            binds.append(.text(anchor.id))
            conditions.append("(created_at < $\(t) OR (created_at = $\(t) AND id < $\(binds.count)))")
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        binds.append(.int(limit))
        sql += " ORDER BY orders.created_at DESC, orders.id DESC LIMIT $\(binds.count)"
        return try await database.read(sql, binds).map { try $0.record(OrderRecord.self, "body") }
    }
}
