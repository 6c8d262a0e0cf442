import Foundation
import PaysheetPayments

extension PaymentStore {
    // MARK: Merchant-token lifecycle events

    /// A lifecycle event received before: when, its type and what it did.
    struct ReceivedTokenEvent: Sendable, Equatable {
        var eventType: String
        var result: String
        var receivedAt: Date
    }

    /// Inserts a new agreement with its merchant token's keyed reference (see
    /// `CredentialVault.tokenReference(_:)`); `false` when one with its id exists.
    func insert(_ agreement: AgreementRecord, tokenReference: String) async throws -> Bool {
        let rows = try await database.write(
            """
            INSERT INTO agreements (id, order_id, status, version, body, created_ms, token_ref)
            VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING RETURNING id
            """,
            [
                .text(agreement.id), .text(agreement.orderId), .text(agreement.canceledAt == nil ? "open" : "canceled"),
                .int(agreement.version), .text(try PaymentStore.json(agreement)),
                .int(PaymentStore.ms(agreement.startedAt)), .text(tokenReference),
            ]
        )
        return !rows.isEmpty
    }

    /// Writes `agreement` and its token's reference if its stored version is still
    /// `agreement.version`; `nil` when another writer was first.
    func update(_ agreement: AgreementRecord, tokenReference: String) async throws -> AgreementRecord? {
        var next = agreement
        next.version += 1
        let rows = try await database.write(
            """
            UPDATE agreements SET status = $1, version = $2, body = $3, token_ref = $4 WHERE id = $5 AND version = $6
            RETURNING id
            """,
            [
                .text(next.canceledAt == nil ? "open" : "canceled"), .int(next.version),
                .text(try PaymentStore.json(next)), .text(tokenReference), .text(agreement.id),
                .int(agreement.version),
            ]
        )
        return rows.isEmpty ? nil : next
    }

    /// The agreements charged with the merchant token of reference `tokenReference`, oldest first.
    func agreements(tokenReference: String) async throws -> [AgreementRecord] {
        try await database.read(
            "SELECT body FROM agreements WHERE token_ref = $1 ORDER BY created_ms, id",
            [.text(tokenReference)]
        ).map { try $0.record(AgreementRecord.self, "body") }
    }

    /// Open agreements stored without a token reference (before migration 5), at most `limit`.
    func agreementsWithoutTokenReference(limit: Int) async throws -> [AgreementRecord] {
        try await database.read(
            "SELECT body FROM agreements WHERE token_ref IS NULL AND status = 'open' ORDER BY created_ms, id LIMIT $1",
            [.int(limit)]
        ).map { try $0.record(AgreementRecord.self, "body") }
    }

    /// Sets the token reference of agreement `id` (one stored without it).
    func setTokenReference(_ tokenReference: String, of id: String) async throws {
        try await database.write(
            "UPDATE agreements SET token_ref = $1 WHERE id = $2 AND token_ref IS NULL",
            [.text(tokenReference), .text(id)]
        )
    }

    /// The lifecycle event `eventId` as received before, if it was.
    func receivedTokenEvent(_ eventId: String) async throws -> ReceivedTokenEvent? {
        guard
            let row = try await database.read(
                """
                SELECT event_type, result, CAST(received_ms AS TEXT) AS received_ms FROM merchant_token_events
                WHERE event_id = $1
                """,
                [.text(eventId)]
            ).first
        else { return nil }
        return ReceivedTokenEvent(
            eventType: try row.text("event_type") ?? "",
            result: try row.text("result") ?? "",
            receivedAt: Date(timeIntervalSince1970: Double(try row.int("received_ms") ?? 0) / 1000)
        )
    }

    /// Records the lifecycle event `eventId` as received at `now` with its `result` and the number
    /// of agreements it concerned; `false` when it was recorded before (a replay, or the same
    /// notification at once on another server).
    func recordTokenEvent(
        _ eventId: String,
        eventType: String,
        result: String,
        agreements: Int,
        at now: Date
    ) async throws -> Bool {
        !(try await database.write(
            """
            INSERT INTO merchant_token_events (event_id, event_type, result, agreements, received_ms)
            VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING event_id
            """,
            [.text(eventId), .text(eventType), .text(result), .int(agreements), .int(PaymentStore.ms(now))]
        ).isEmpty)
    }
}
