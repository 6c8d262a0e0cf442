/// The schema, as numbered migrations; the same SQL runs on SQLite and PostgreSQL.
enum Migrations {
    static let all: [(version: Int, statements: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE orders (id TEXT PRIMARY KEY, status TEXT NOT NULL, version BIGINT NOT NULL,
                    body TEXT NOT NULL, created_at TEXT NOT NULL)
                """,
                """
                CREATE TABLE payments (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, kind TEXT NOT NULL, state TEXT NOT NULL,
                    acquirer_order_id TEXT NOT NULL, acquirer_txn_time TEXT NOT NULL, next_query_at BIGINT,
                    version BIGINT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL)
                """,
                "CREATE UNIQUE INDEX payments_acquirer ON payments (acquirer_order_id, acquirer_txn_time)",
                "CREATE INDEX payments_order ON payments (order_id)",
                "CREATE INDEX payments_due ON payments (next_query_at)",
                """
                CREATE TABLE payment_events (payment_id TEXT NOT NULL, seq BIGINT NOT NULL, from_state TEXT, to_state TEXT NOT NULL,
                    cause TEXT NOT NULL, at_ms BIGINT NOT NULL, PRIMARY KEY (payment_id, seq))
                """,
                """
                CREATE TABLE notifications (dedup_key TEXT PRIMARY KEY, payment_id TEXT, body TEXT NOT NULL, received_ms BIGINT NOT NULL)
                """,
                "CREATE TABLE token_uses (transaction_id TEXT PRIMARY KEY, order_id TEXT NOT NULL, used_ms BIGINT NOT NULL)",
                """
                CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status BIGINT,
                    response TEXT, locked_until_ms BIGINT, created_ms BIGINT NOT NULL)
                """,
            ]
        ),
        (
            2,
            [
                """
                CREATE TABLE api_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, created_ms BIGINT NOT NULL,
                    revoked_ms BIGINT)
                """,
                "CREATE INDEX orders_created ON orders (created_at, id)",
                "CREATE INDEX orders_status ON orders (status)",
                "ALTER TABLE payments ADD COLUMN leased_until BIGINT",
            ]
        ),
        (
            3,
            [
                "CREATE TABLE reconciliations (day TEXT PRIMARY KEY, body TEXT NOT NULL, checked_ms BIGINT NOT NULL)",
                "CREATE INDEX payments_txn_time ON payments (acquirer_txn_time)",
            ]
        ),
        (
            4,
            [
                """
                CREATE TABLE agreements (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, status TEXT NOT NULL, version BIGINT NOT NULL,
                    body TEXT NOT NULL, created_ms BIGINT NOT NULL)
                """
            ]
        ),
        (
            5,
            [
                // Merchant-token lifecycle notifications: an agreement found by its token's keyed
                // reference (never the identifier), and the events received (replays refused).
                "ALTER TABLE agreements ADD COLUMN token_ref TEXT",
                "CREATE INDEX agreements_token_ref ON agreements (token_ref)",
                """
                CREATE TABLE merchant_token_events (event_id TEXT PRIMARY KEY, event_type TEXT NOT NULL, result TEXT NOT NULL,
                    agreements BIGINT NOT NULL, received_ms BIGINT NOT NULL)
                """,
            ]
        ),
        (
            6,
            [
                // Orders in Wallet: each order's authentication tokens (their SHA-256) and the devices
                // registered for its updates (`WalletOrders/`).
                """
                CREATE TABLE wallet_order_tokens (hash TEXT PRIMARY KEY, order_id TEXT NOT NULL,
                    order_type_identifier TEXT NOT NULL, issued_ms BIGINT NOT NULL, revoked_ms BIGINT)
                """,
                "CREATE INDEX wallet_order_tokens_order ON wallet_order_tokens (order_id)",
                """
                CREATE TABLE wallet_order_registrations (device_id TEXT NOT NULL, order_type_identifier TEXT NOT NULL,
                    order_id TEXT NOT NULL, push_token TEXT NOT NULL, created_ms BIGINT NOT NULL,
                    PRIMARY KEY (device_id, order_type_identifier, order_id))
                """,
                "CREATE INDEX wallet_order_registrations_order ON wallet_order_registrations (order_id)",
            ]
        ),
        (
            7,
            [
                // The charge a token's first use made, so that the same token presented again (an
                // authorization retried after its answer was lost) is answered with that charge's
                // outcome. Uses stored before have none: they keep the replay's refusal.
                "ALTER TABLE token_uses ADD COLUMN payment_id TEXT"
            ]
        ),
    ]
}
