import Foundation

/// An order's Wallet authentication token as stored: its SHA-256, never the token.
struct WalletOrderToken: Sendable, Equatable {
    /// SHA-256 of the token, hexadecimal.
    var hash: String
    /// The order it authenticates.
    var orderId: String
    /// The order type it was issued under.
    var orderTypeIdentifier: String
    /// When it was issued.
    var issuedAt: Date
    /// When a newer token replaced it, if one did.
    var revokedAt: Date?
}

/// A device registered for an order's updates (`POST /v1/devices/…/registrations/…`).
struct WalletOrderRegistration: Sendable, Equatable {
    var deviceIdentifier: String
    var orderTypeIdentifier: String
    var orderId: String
    var pushToken: String
}

extension PaymentStore {
    // MARK: Wallet orders

    /// Stores a new token (its `hash`) for `orderId`; with `replacing`, every earlier token of the
    /// order is revoked in the same transaction.
    func insertWalletOrderToken(_ token: WalletOrderToken, replacing: Bool) async throws {
        let insert = """
            INSERT INTO wallet_order_tokens (hash, order_id, order_type_identifier, issued_ms)
            VALUES ($1, $2, $3, $4)
            """
        let binds: [SQLValue] = [
            .text(token.hash), .text(token.orderId), .text(token.orderTypeIdentifier),
            .int(PaymentStore.ms(token.issuedAt)),
        ]
        guard replacing else {
            try await database.write(insert, binds)
            return
        }
        let at = PaymentStore.ms(token.issuedAt)
        try await database.transaction { db in
            try await db.execute(
                "UPDATE wallet_order_tokens SET revoked_ms = $1 WHERE order_id = $2 AND revoked_ms IS NULL",
                [.int(at), .text(token.orderId)]
            )
            try await db.execute(insert, binds)
        }
    }

    /// Stores the answer for an idempotency `key` and, with it, the Wallet order token its body
    /// hands out: one statement on PostgreSQL, one transaction (one commit) on SQLite.
    func finishIdempotency(
        key: String,
        status: Int,
        response: String,
        walletOrderToken token: WalletOrderToken
    )
        async throws
    {
        let update = Self.finishIdempotencyStatement
        let binds: [SQLValue] = [.int(status), .text(response), .text(key)]
        let tokenBinds: [SQLValue] = [
            .text(token.hash), .text(token.orderId), .text(token.orderTypeIdentifier),
            .int(PaymentStore.ms(token.issuedAt)),
        ]
        if database.dialect == "postgresql" {
            try await database.write(
                """
                WITH t AS (
                    INSERT INTO wallet_order_tokens (hash, order_id, order_type_identifier, issued_ms)
                    VALUES ($4, $5, $6, $7)
                )
                \(update)
                """,
                binds + tokenBinds
            )
            return
        }
        try await database.transaction { db in
            try await db.execute(update, binds)
            try await db.execute(
                "INSERT INTO wallet_order_tokens (hash, order_id, order_type_identifier, issued_ms) VALUES ($1, $2, $3, $4)",
                tokenBinds
            )
        }
    }

    /// The tokens of `orderId` issued under `orderTypeIdentifier`, revoked ones included.
    func walletOrderTokens(orderId: String, orderTypeIdentifier: String) async throws -> [WalletOrderToken] {
        try await database.read(
            """
            SELECT hash, order_id, order_type_identifier, CAST(issued_ms AS TEXT) AS issued_ms,
                CAST(revoked_ms AS TEXT) AS revoked_ms
            FROM wallet_order_tokens WHERE order_id = $1 AND order_type_identifier = $2
            """,
            [.text(orderId), .text(orderTypeIdentifier)]
        ).map { row in
            WalletOrderToken(
                hash: try row.string("hash"),
                orderId: try row.string("order_id"),
                orderTypeIdentifier: try row.string("order_type_identifier"),
                issuedAt: Date(timeIntervalSince1970: Double(try row.int("issued_ms") ?? 0) / 1000),
                revokedAt: try row.int("revoked_ms").map { Date(timeIntervalSince1970: Double($0) / 1000) }
            )
        }
    }

    /// Registers a device for an order's updates unless the order has `limit` devices already.
    /// Returns `true` when the registration is new, `false` when it existed (its push token
    /// updated), `nil` when the order is full.
    func registerWalletOrderDevice(
        _ registration: WalletOrderRegistration,
        at date: Date,
        limit: Int
    ) async throws -> Bool? {
        let binds: [SQLValue] = [
            .text(registration.deviceIdentifier), .text(registration.orderTypeIdentifier), .text(registration.orderId),
            .text(registration.pushToken), .int(PaymentStore.ms(date)), .int(limit),
        ]
        return try await database.transaction { db in
            let inserted = try await db.execute(
                """
                INSERT INTO wallet_order_registrations (device_id, order_type_identifier, order_id, push_token, created_ms)
                SELECT CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS TEXT), CAST($5 AS BIGINT)
                WHERE (SELECT COUNT(*) FROM wallet_order_registrations WHERE order_id = $3) < CAST($6 AS BIGINT)
                ON CONFLICT DO NOTHING RETURNING device_id
                """,
                binds
            )
            if !inserted.isEmpty { return true }
            let updated = try await db.execute(
                """
                UPDATE wallet_order_registrations SET push_token = $1
                WHERE device_id = $2 AND order_type_identifier = $3 AND order_id = $4 RETURNING device_id
                """,
                [
                    .text(registration.pushToken), .text(registration.deviceIdentifier),
                    .text(registration.orderTypeIdentifier), .text(registration.orderId),
                ]
            )
            return updated.isEmpty ? nil : false
        }
    }

    /// Removes a device's registration for an order; `false` when there was none.
    func unregisterWalletOrderDevice(
        deviceIdentifier: String,
        orderTypeIdentifier: String,
        orderId: String
    ) async throws -> Bool {
        !(try await database.write(
            """
            DELETE FROM wallet_order_registrations
            WHERE device_id = $1 AND order_type_identifier = $2 AND order_id = $3 RETURNING device_id
            """,
            [.text(deviceIdentifier), .text(orderTypeIdentifier), .text(orderId)]
        )).isEmpty
    }

    /// The orders `deviceIdentifier` registered for under `orderTypeIdentifier` (at most `limit`).
    func walletOrderRegistrations(
        deviceIdentifier: String,
        orderTypeIdentifier: String,
        limit: Int
    ) async throws -> [String] {
        try await database.read(
            """
            SELECT order_id FROM wallet_order_registrations WHERE device_id = $1 AND order_type_identifier = $2
            ORDER BY wallet_order_registrations.order_id LIMIT $3
            """,
            [.text(deviceIdentifier), .text(orderTypeIdentifier), .int(limit)]
        ).map { try $0.string("order_id") }
    }
}
