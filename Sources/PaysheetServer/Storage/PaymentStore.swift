import PaysheetPayments
import Foundation

/// Orders, payments and their history, notifications, token uses and idempotency keys over
/// one ``SQLDatabase``. Every change that belongs together commits in one transaction; rows
/// carry a version so that two servers never both advance the same payment.
public struct PaymentStore: Sendable {
    /// The database.
    public let database: any SQLDatabase
    /// This store's name in its settlement announcements (random, one per store, so one per
    /// server): a server's listener knows its own announcements — PostgreSQL delivers them to it
    /// too — and leaves them to the in-process hand-off (``PaymentWaiters``).
    let announcer = UUID().uuidString

    /// A store over `database`.
    public init(database: any SQLDatabase) { self.database = database }

    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    static let records = RecordCache()

    static func json<T: Encodable & Sendable>(_ value: T) throws -> String {
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        records.remember(value, for: text)
        return text
    }
    static func decode<T: Decodable & Sendable>(_ type: T.Type, _ text: String?) throws -> T {
        guard let text else { throw StorageError("a stored \(T.self) is NULL") }
        if let known = records.value(T.self, for: text) { return known }
        let value = try decoder.decode(T.self, from: Data(text.utf8))
        records.remember(value, for: text)
        return value
    }
    static func ms(_ date: Date) -> Int { Int((date.timeIntervalSince1970 * 1000).rounded()) }

    /// `date` as ISO 8601 in UTC to the second (`2026-11-21T09:30:00Z`), as `ISO8601DateFormatter`
    /// writes it, without building a formatter per row.
    static func timestamp(_ date: Date) -> String {
        // As the formatter: to the nearest millisecond, then the second it falls in.
        var seconds = time_t(((date.timeIntervalSince1970 * 1000).rounded() / 1000).rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Applies the migrations not applied yet.
    /// Safe when several servers start at once: on PostgreSQL each step holds a transaction-scoped
    /// advisory lock of its schema (SQLite's writer is one at a time already).
    public func migrate() async throws {
        let postgres = database.dialect == "postgresql"
        try await database.transaction { db in
            if postgres {
                try await db.execute(
                    Self.migrationLockSQL,
                    []
                )
            }
            try await db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_ms BIGINT NOT NULL)",
                []
            )
        }
        for migration in Migrations.all {
            try await database.transaction { db in
                if postgres {
                    try await db.execute(
                        Self.migrationLockSQL,
                        []
                    )
                }
                let done = try await db.execute(
                    "SELECT CAST(version AS TEXT) FROM schema_migrations WHERE version = $1",
                    [.int(migration.version)]
                )
                guard done.isEmpty else { return }
                for statement in migration.statements { try await db.execute(statement, []) }
                try await db.execute(
                    "INSERT INTO schema_migrations (version, applied_ms) VALUES ($1, $2)",
                    [.int(migration.version), .int(PaymentStore.ms(Date()))]
                )
            }
        }
    }

    /// The advisory lock key of migrations ("paysheet" in ASCII, as a number).
    static let migrationLock = 0x7061_7973_6865_6574

    /// Takes the migrations' lock of the current schema: servers migrating the same schema wait for
    /// each other; those of other schemas (several databases' worth in one PostgreSQL, each test's
    /// own) do not queue behind them.
    static let migrationLockSQL =
        "SELECT CAST(1 AS TEXT) FROM (SELECT pg_advisory_xact_lock(\(migrationLock) # CAST(hashtext(current_schema()) AS BIGINT))) AS locked"

    /// The channel on which PostgreSQL servers tell each other that a payment became certain.
    static let settledChannel = "paysheet_payment_settled"

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

    /// A notification that was stored before.
    public struct DuplicateNotification: Error {}
    struct VersionConflict: Error {}

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

    // MARK: Notifications, token uses

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

    /// Records a token's first use in `db`'s transaction; `false` when it was used before.
    static func insertTokenUse(
        _ transactionId: String,
        order: String,
        at now: Date,
        _ db: any SQLExecutor
    ) async throws -> Bool {
        !(try await db.execute(
            "INSERT INTO token_uses (transaction_id, order_id, used_ms) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING transaction_id",
            [.text(transactionId.lowercased()), .text(order), .int(ms(now))]
        ).isEmpty)
    }

    // MARK: Idempotency keys

    /// The outcome of claiming an idempotency key.
    public enum IdempotencyClaim: Sendable, Equatable {
        /// New: run the request, then ``finishIdempotency(key:status:response:)``.
        case claimed
        /// Done before with the same request: this answer.
        case replay(status: Int, response: String)
        /// Used with a different request.
        case mismatch
        /// The first request with this key is still running.
        case inFlight
    }

    /// An idempotency key to claim: the key, the fingerprint of the request that claims it, when,
    /// and for how many seconds it is locked (a crashed request's key can be retried after that).
    struct IdempotencyRequest: Sendable, Equatable {
        var key: String
        var fingerprint: String
        var at: Date
        var lock: Double = 60

        /// `locked_until_ms` and `created_ms` of a new claim.
        var lockedUntilAndCreated: (Int, Int) {
            let nowMs = PaymentStore.ms(at)
            return (nowMs + Int(lock * 1000), nowMs)
        }
    }

    /// Claims `request`'s key: ``claimIdempotency(key:fingerprint:at:lock:)``.
    func claimIdempotency(_ request: IdempotencyRequest) async throws -> IdempotencyClaim {
        try await claimIdempotency(
            key: request.key,
            fingerprint: request.fingerprint,
            at: request.at,
            lock: request.lock
        )
    }

    /// Claims `key` for a request with `fingerprint`, locked for `lock` seconds (a crashed
    /// request's key can be retried after that).
    public func claimIdempotency(
        key: String,
        fingerprint: String,
        at now: Date,
        lock: Double = 60
    ) async throws -> IdempotencyClaim {
        let nowMs = PaymentStore.ms(now)
        // A new key (nearly always): claimed by one statement.
        let inserted = try await database.write(
            """
            INSERT INTO idempotency_keys (key, fingerprint, locked_until_ms, created_ms) VALUES ($1, $2, $3, $4)
            ON CONFLICT DO NOTHING RETURNING key
            """,
            [.text(key), .text(fingerprint), .int(nowMs + Int(lock * 1000)), .int(nowMs)]
        )
        if !inserted.isEmpty { return .claimed }
        return try await database.transaction { db in
            let rows = try await db.execute(
                """
                SELECT fingerprint, CAST(status AS TEXT) AS status, response, CAST(locked_until_ms AS TEXT) AS locked_until_ms
                FROM idempotency_keys WHERE key = $1
                """,
                [.text(key)]
            )
            if let row = rows.first {
                guard try row.text("fingerprint") == fingerprint else { return .mismatch }
                if let status = try row.int("status") {
                    return .replay(status: status, response: try row.text("response") ?? "")
                }
                if let until = try row.int("locked_until_ms"), until > nowMs { return .inFlight }
                try await db.execute(
                    "UPDATE idempotency_keys SET locked_until_ms = $1 WHERE key = $2",
                    [.int(nowMs + Int(lock * 1000)), .text(key)]
                )
                return .claimed
            }
            try await db.execute(
                "INSERT INTO idempotency_keys (key, fingerprint, locked_until_ms, created_ms) VALUES ($1, $2, $3, $4)",
                [.text(key), .text(fingerprint), .int(nowMs + Int(lock * 1000)), .int(nowMs)]
            )
            return .claimed
        }
    }

    /// Stores the answer for `key`.
    public func finishIdempotency(key: String, status: Int, response: String) async throws {
        try await database.write(
            "UPDATE idempotency_keys SET status = $1, response = $2, locked_until_ms = NULL WHERE key = $3",
            [.int(status), .text(response), .text(key)]
        )
    }

    /// Releases `key` without an answer (the request was not processed; a retry may run it).
    public func releaseIdempotency(key: String) async throws {
        try await database.write("DELETE FROM idempotency_keys WHERE key = $1 AND status IS NULL", [.text(key)])
    }

    /// Deletes answered keys older than `age` seconds (at least 24 h is kept by default).
    public func pruneIdempotency(olderThan age: Double = 86_400, now: Date) async throws {
        try await database.write(
            "DELETE FROM idempotency_keys WHERE created_ms < $1 AND status IS NOT NULL",
            [.int(PaymentStore.ms(now) - Int(age * 1000))]
        )
    }
}
