import PaysheetPayments
import Foundation

extension PaymentStore {
    // MARK: Idempotency keys

    /// The outcome of claiming an idempotency key.
    public enum IdempotencyClaim: Sendable, Equatable {
        /// New: run the request, then `finishIdempotency(key:status:response:)`.
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
        // A new key (nearly always): claimed by one statement. On SQLite the claim's commit does
        // not wait for the disk (`SQLCommit.ordered`): undone by a power loss — which stops this
        // server too — it leaves what a crash just before it would, since every change the
        // request makes after it waits for the disk, and with it for the claim. PostgreSQL waits
        // anyway (see `SQLCommit`).
        let inserted = try await database.write(
            """
            INSERT INTO idempotency_keys (key, fingerprint, locked_until_ms, created_ms) VALUES ($1, $2, $3, $4)
            ON CONFLICT DO NOTHING RETURNING key
            """,
            [.text(key), .text(fingerprint), .int(nowMs + Int(lock * 1000)), .int(nowMs)],
            commit: .ordered
        )
        if !inserted.isEmpty { return .claimed }
        return try await database.transaction(commit: .ordered) { db in
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
        try await database.write(Self.finishIdempotencyStatement, [.int(status), .text(response), .text(key)])
    }

    /// The statement that stores a key's answer: `$1` status, `$2` response, `$3` key.
    static let finishIdempotencyStatement =
        "UPDATE idempotency_keys SET status = $1, response = $2, locked_until_ms = NULL WHERE key = $3"

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

    /// The order `orderId` and its payments (``orderAndPayments(_:)``), and on PostgreSQL `claim`
    /// claimed by the same statement when the order's client-secret hash is `secretHash`: a
    /// shopper's idempotency key costs no round trip of its own, and a caller without the order's
    /// secret claims nothing. `claimed` is `false` on SQLite (where the read and the write are on
    /// different connections) and when the key exists already; the caller then claims it with
    /// ``claimIdempotency(_:)``, which answers replays, other requests and keys in use.
    ///
    /// The hashes are compared by `=` in SQL, not in constant time: what that could reveal is how
    /// much of the stored SHA-256 a guess's SHA-256 shares, which does not help find a 256-bit
    /// secret. The caller is still authorized by the constant-time comparison in Swift.
    func orderAndPayments(
        _ orderId: String,
        claiming claim: IdempotencyRequest,
        ifSecretHash secretHash: String
    ) async throws -> (order: OrderRecord, payments: [PaymentRecord], claimed: Bool)? {
        guard database.dialect == "postgresql" else {
            return try await orderAndPayments(orderId).map { ($0.order, $0.payments, false) }
        }
        let (lockedUntil, created) = claim.lockedUntilAndCreated
        let rows = try await database.write(
            """
            WITH caller_order AS (SELECT body FROM orders WHERE id = $1),
            c AS (INSERT INTO idempotency_keys (key, fingerprint, locked_until_ms, created_ms)
                  SELECT $2, $3, $4, $5 FROM caller_order
                  WHERE CAST(caller_order.body AS json) ->> 'clientSecretHash' = $6
                  ON CONFLICT DO NOTHING RETURNING key)
            SELECT CAST(part AS TEXT) AS part, body FROM (
                SELECT 0 AS part, '' AS created_at, '' AS id, body FROM caller_order
                UNION ALL
                SELECT 1, created_at, id, body FROM payments WHERE order_id = $1
                UNION ALL
                SELECT 2, '', '', key FROM c) AS u
            ORDER BY u.part, u.created_at, u.id
            """,
            [
                .text(orderId), .text(claim.key), .text(claim.fingerprint), .int(lockedUntil), .int(created),
                .text(secretHash),
            ]
        )
        let claimed = try rows.last?.text("part") == "2"
        guard let (order, payments) = try PaymentStore.orderAndPayments(from: claimed ? rows.dropLast() : rows[...])
        else { return nil }
        return (order, payments, claimed)
    }
}
