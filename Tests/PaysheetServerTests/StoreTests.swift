import Foundation
import PaysheetModel
import Testing
@testable import PaysheetServer

/// The same storage suite on SQLite and PostgreSQL.
@Suite struct StoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func order(_ id: String = IDs.make("ord_")) -> OrderRecord {
        OrderRecord(
            id: id,
            status: .created,
            currency: Currency("CNY")!,
            countryCode: "CN",
            lineItems: [.init(label: "Tea", amount: "10.00")],
            shippingMethods: [],
            amount: 1000,
            applicationData: "e30=",
            createdAt: t0
        )
    }

    static func payment(_ order: OrderRecord, id: String = IDs.make("pay_")) -> PaymentRecord {
        PaymentRecord(
            id: id,
            orderId: order.id,
            kind: .charge,
            identity: TransactionIdentity(
                orderId: id.replacingOccurrences(of: "_", with: ""),
                txnTime: "20270115080000"
            ),
            amount: order.amount,
            lifecycle: PaymentLifecycle(
                expectedAmount: order.amount.minorUnits,
                submittedAt: t0,
                configuration: LifecycleConfiguration()
            ),
            card: CardSummary(network: "visa", type: "credit", displayName: "Visa 1234", suffix: "4321"),
            createdAt: t0
        )
    }

    @Test(arguments: TestDatabases.kinds) func migrationsRunOnceAndOrdersRoundTrip(kind: String) async throws {
        try await TestDatabases.withStore(kind) { store in
            try await store.migrate()  // a second time: nothing to do
            let o = Self.order()
            try await store.insert(o)
            #expect(try await store.order(o.id) == o)
            #expect(try await store.order("ord_missing") == nil)
            await #expect(throws: (any Error).self) { try await store.insert(o) }  // same id twice
        }
    }

    @Test(arguments: TestDatabases.kinds) func anOrderAndItsPaymentsAreReadTogether(kind: String) async throws {
        try await TestDatabases.withStore(kind) { store in
            let o = Self.order()
            try await store.insert(o)
            #expect(try await store.orderAndPayments("ord_missing") == nil)
            let alone = try #require(try await store.orderAndPayments(o.id))
            #expect(alone.order == o && alone.payments.isEmpty)
            // Two payments inserted newest-id first: read back by creation time, then id.
            var order = o
            for id in ["pay_b", "pay_a"] {
                guard
                    case .inserted(let stored) = try await store.insert(
                        Self.payment(o, id: id),
                        cause: "created",
                        order: order
                    )
                else {
                    Issue.record("not inserted")
                    return
                }
                order = stored
            }
            let other = Self.order()
            try await store.insert(other)
            _ = try await store.insert(Self.payment(other, id: "pay_c"), cause: "created", order: other)
            let both = try #require(try await store.orderAndPayments(o.id))
            #expect(both.order == order)
            #expect(both.payments.map(\.id) == ["pay_a", "pay_b"])
            #expect(both.payments == (try await store.payments(order: o.id)))
        }
    }

    @Test(arguments: TestDatabases.kinds) func historiesComeBackInNumericOrder(kind: String) async throws {
        // Twelve rows: a text sort would put 10, 11, 12 before 2 (PostgreSQL names CAST(seq AS TEXT) "seq").
        try await TestDatabases.withStore(kind) { store in
            let o = Self.order()
            try await store.insert(o)
            let p = Self.payment(o, id: "pay_1")
            let q = Self.payment(o, id: "pay_0")
            guard case .inserted(let after) = try await store.insert(p, cause: "created", order: o) else {
                Issue.record("not inserted")
                return
            }
            _ = try await store.insert(q, cause: "created", order: after)
            // Rows the store takes as given (the chain's shape is the core's business, not the store's).
            let states: [PaymentLifecycle.State] = [.submitting, .accepted, .unknown]
            for n in 2...12 {
                try await store.database.transaction { db in
                    try await PaymentStore.addEvent(
                        p.id,
                        PaymentTransition(
                            from: states[(n - 1) % 3],
                            to: states[n % 3],
                            cause: "step \(n)",
                            at: Self.t0.addingTimeInterval(Double(n))
                        ),
                        db
                    )
                }
            }
            let history = try await store.events(payment: p.id)
            #expect(history.map(\.sequence) == Array(1...12))
            #expect(history.last?.cause == "step 12" && history.last?.to == states[0].rawValue)
            #expect(history.last?.from == states[2].rawValue)
            let both = try await store.events(payments: [p.id, q.id, "pay_none"])
            #expect(both[p.id] == history)
            #expect(both[q.id]?.map(\.sequence) == [1])
            #expect(both["pay_none"] == nil)
            // More ids than one statement takes: every history still comes back.
            let many = try await store.events(payments: (0..<70).map { "pay_x\($0)" } + [q.id])
            #expect(many.keys.sorted() == [q.id])
        }
    }

    @Test(arguments: TestDatabases.kinds) func paymentStateChangeAndHistoryCommitTogether(kind: String) async throws {
        try await TestDatabases.withStore(kind) { store in
            let o = Self.order()
            try await store.insert(o)
            var p = Self.payment(o)
            var pending = OrderSettlement.settle(o, [p])
            pending.version = o.version
            guard
                case .inserted(let stored) = try await store.insert(
                    p,
                    cause: "created",
                    order: pending,
                    tokenTransactionId: "T1"
                )
            else {
                Issue.record("not inserted")
                return
            }
            #expect(stored.status == .pending && stored.version == 1)
            // The stale order version loses, and writes nothing (not even the token use).
            let q = Self.payment(o)
            #expect(
                try await store.insert(q, cause: "created", order: pending, tokenTransactionId: "T2") == .orderChanged
            )
            #expect(try await store.payment(q.id) == nil)
            let t2Unused = try await store.recordTokenUse("T2", order: o.id, at: Self.t0)
            #expect(t2Unused)
            // A token used before is refused, and nothing is written.
            var current = try #require(try await store.order(o.id))
            current.status = .pending
            let r = Self.payment(o)
            #expect(
                try await store.insert(r, cause: "created", order: current, tokenTransactionId: "t1") == .tokenReplayed
            )
            #expect(try await store.payment(r.id) == nil)
            #expect(
                try await store.order(o.id)?.version == current.version,
                "a refused insert leaves the order as it was"
            )

            let e = p.lifecycle.receive(
                .notification(.succeeded(amount: .yuan(1000), reference: "Q")),
                now: Self.t0,
                configuration: LifecycleConfiguration()
            )
            guard case .transition(let from, let to, let cause) = e else {
                Issue.record("no transition")
                return
            }
            let (saved, order) = try #require(
                try await store.update(
                    p,
                    transition: PaymentTransition(from: from, to: to, cause: cause, at: Self.t0),
                    at: Self.t0,
                    reprice: OrderSettlement.settle
                )
            )
            #expect(saved.version == 1 && saved.lifecycle.state == .succeeded)
            #expect(order?.status == .paid && order?.paid == .yuan(1000))
            // A writer holding the old version is refused.
            #expect(try await store.update(p, transition: nil, at: Self.t0, reprice: OrderSettlement.settle) == nil)
            // ... and a notification stored with it is not kept (it is stored with the change, or not at all).
            #expect(
                try await store.update(
                    p,
                    transition: PaymentTransition(from: .submitting, to: .succeeded, cause: "late", at: Self.t0),
                    at: Self.t0,
                    notification: ("N-late", "body"),
                    reprice: OrderSettlement.settle
                ) == nil
            )
            #expect(try await store.recordNotification(key: "N-late", paymentId: p.id, body: "body", at: Self.t0))
            // A notification stored before is a duplicate, and nothing changes.
            var later = saved
            _ = later.lifecycle.receive(
                .query(.succeeded(amount: .yuan(1000), reference: "Q")),
                now: Self.t0,
                configuration: LifecycleConfiguration()
            )
            await #expect(throws: PaymentStore.DuplicateNotification.self) {
                _ = try await store.update(
                    later,
                    transition: nil,
                    at: Self.t0,
                    notification: ("N-late", "body"),
                    reprice: nil
                )
            }
            #expect(try await store.payment(p.id)?.version == 1)
            let history = try await store.events(payment: p.id)
            #expect(history.map(\.to) == ["submitting", "succeeded"])
            #expect(history.map(\.sequence) == [1, 2])
            #expect(try await store.payment(p.identity)?.id == p.id)
            #expect(try await store.payments(order: o.id).map(\.id) == [p.id])
        }
    }

    /// An acceptance held unstored is written with the change that follows it: its history row
    /// first, at its own time; with a stale version, neither.
    @Test(arguments: TestDatabases.kinds) func anEarlierChangeIsStoredBeforeTheChangeItPrecedes(
        kind: String
    ) async throws {
        try await TestDatabases.withStore(kind) { store in
            let o = Self.order()
            try await store.insert(o)
            var p = Self.payment(o)
            _ = try await store.insert(p, cause: "created", order: OrderSettlement.settle(o, [p]))
            let configuration = LifecycleConfiguration()
            let acceptedAt = Self.t0.addingTimeInterval(1)
            guard
                case .transition(let f0, let t0, let c0) = p.lifecycle.receive(
                    .answer(.accepted(reference: "Q")),
                    now: acceptedAt,
                    configuration: configuration
                ),
                case .transition(let f1, let t1, let c1) = p.lifecycle.receive(
                    .notification(.succeeded(amount: .yuan(1000), reference: "Q")),
                    now: Self.t0.addingTimeInterval(2),
                    configuration: configuration
                )
            else {
                Issue.record("no transitions")
                return
            }
            let earlier = PaymentTransition(from: f0, to: t0, cause: c0, at: acceptedAt)
            var stale = p
            stale.version += 5
            #expect(
                try await store.update(
                    stale,
                    transition: PaymentTransition(from: f1, to: t1, cause: c1, at: Self.t0.addingTimeInterval(2)),
                    at: Self.t0.addingTimeInterval(2),
                    notification: ("N-1", "body"),
                    earlier: earlier,
                    reprice: OrderSettlement.settle
                ) == nil
            )
            #expect(try await store.events(payment: p.id).map(\.to) == ["submitting"])
            let (saved, order) = try #require(
                try await store.update(
                    p,
                    transition: PaymentTransition(from: f1, to: t1, cause: c1, at: Self.t0.addingTimeInterval(2)),
                    at: Self.t0.addingTimeInterval(2),
                    notification: ("N-1", "body"),
                    earlier: earlier,
                    reprice: OrderSettlement.settle
                )
            )
            #expect(saved.lifecycle.state == .succeeded && order?.status == .paid)
            let history = try await store.events(payment: p.id)
            #expect(history.map(\.from) == [nil, "submitting", "accepted"])
            #expect(history.map(\.to) == ["submitting", "accepted", "succeeded"])
            #expect(history.map(\.sequence) == [1, 2, 3])
            #expect(history[1].at == acceptedAt && history[1].cause == c0)
            #expect(history[2].at == Self.t0.addingTimeInterval(2))
        }
    }

    @Test(arguments: TestDatabases.kinds) func duePaymentsAndCounts(kind: String) async throws {
        try await TestDatabases.withStore(kind) { store in
            let o = Self.order()
            try await store.insert(o)
            let p = Self.payment(o)
            _ = try await store.insert(p, cause: "created", order: o)
            #expect(try await store.duePayments(at: Self.t0.addingTimeInterval(2.9)).isEmpty)
            #expect(try await store.duePayments(at: Self.t0.addingTimeInterval(3)).map(\.id) == [p.id])
            #expect(try await store.openPaymentCount() == 1)
            // Terminal: no next query, no longer open.
            var done = p
            guard
                case .transition(let from, let to, let cause) = done.lifecycle.receive(
                    .notification(.succeeded(amount: .yuan(1000), reference: "Q")),
                    now: Self.t0,
                    configuration: LifecycleConfiguration()
                )
            else {
                Issue.record("no transition")
                return
            }
            #expect(
                try await store.update(
                    done,
                    transition: PaymentTransition(from: from, to: to, cause: cause, at: Self.t0),
                    at: Self.t0,
                    reprice: OrderSettlement.settle
                ) != nil
            )
            #expect(try await store.openPaymentCount() == 0)
            #expect(try await store.duePayments(at: Self.t0.addingTimeInterval(100)).isEmpty)
        }
    }

    @Test(arguments: TestDatabases.kinds) func notificationsAndTokenUsesAreRecordedOnce(kind: String) async throws {
        try await TestDatabases.withStore(kind) { store in
            let first = try await store.recordNotification(key: "k1", paymentId: nil, body: "a=b", at: Self.t0)
            let again = try await store.recordNotification(key: "k1", paymentId: nil, body: "a=b", at: Self.t0)
            let use = try await store.recordTokenUse("ABCDEF", order: "o1", at: Self.t0)
            let replay = try await store.recordTokenUse("abcdef", order: "o2", at: Self.t0)
            #expect(first && !again)
            #expect(use && !replay)
        }
    }

    @Test(arguments: TestDatabases.kinds) func idempotencyKeys(kind: String) async throws {
        try await TestDatabases.withStore(kind) { store in
            #expect(try await store.claimIdempotency(key: "k", fingerprint: "f1", at: Self.t0) == .claimed)
            #expect(try await store.claimIdempotency(key: "k", fingerprint: "f1", at: Self.t0) == .inFlight)
            #expect(try await store.claimIdempotency(key: "k", fingerprint: "f2", at: Self.t0) == .mismatch)
            try await store.finishIdempotency(key: "k", status: 201, response: "{}")
            #expect(
                try await store.claimIdempotency(key: "k", fingerprint: "f1", at: Self.t0)
                    == .replay(status: 201, response: "{}")
            )
            // A crashed request's key can be retried after its lock expires.
            #expect(try await store.claimIdempotency(key: "c", fingerprint: "f", at: Self.t0) == .claimed)
            #expect(
                try await store.claimIdempotency(key: "c", fingerprint: "f", at: Self.t0.addingTimeInterval(61))
                    == .claimed
            )
            try await store.releaseIdempotency(key: "c")
            #expect(try await store.claimIdempotency(key: "c", fingerprint: "other", at: Self.t0) == .claimed)
            try await store.pruneIdempotency(olderThan: 10, now: Self.t0.addingTimeInterval(100))
            #expect(try await store.claimIdempotency(key: "k", fingerprint: "f9", at: Self.t0) == .claimed)
        }
    }

    /// A shopper's key is claimed by the statement that reads the order, on PostgreSQL, and only
    /// when the order's client secret is the caller's; on SQLite the caller claims it after.
    @Test(arguments: TestDatabases.kinds) func anOrdersReadClaimsAKeyOnlyForItsSecret(kind: String) async throws {
        try await TestDatabases.withStore(kind) { store in
            var o = Self.order()
            o.clientSecretHash = Secrets.hash("pcs_right")
            try await store.insert(o)
            func claim(_ key: String, _ fingerprint: String = "f") -> PaymentStore.IdempotencyRequest {
                .init(key: key, fingerprint: fingerprint, at: Self.t0)
            }
            // Another secret, or no such order: nothing claimed, the key stays free.
            let stranger = try #require(
                try await store.orderAndPayments(o.id, claiming: claim("k1", "g"), ifSecretHash: Secrets.hash("pcs_x"))
            )
            #expect(stranger.order == o && !stranger.claimed)
            #expect(
                try await store.orderAndPayments(
                    "ord_missing",
                    claiming: claim("k2"),
                    ifSecretHash: Secrets.hash("pcs_x")
                )
                    == nil
            )
            #expect(try await store.claimIdempotency(claim("k2")) == .claimed)
            // The order's secret: claimed by the read on PostgreSQL (then held), by the caller on SQLite.
            let owner = try #require(
                try await store.orderAndPayments(o.id, claiming: claim("k1"), ifSecretHash: Secrets.hash("pcs_right"))
            )
            #expect(owner.order == o && owner.payments.isEmpty)
            if kind == "postgres" {
                #expect(owner.claimed)
            } else {
                #expect(!owner.claimed)
                #expect(try await store.claimIdempotency(claim("k1")) == .claimed)
            }
            #expect(try await store.claimIdempotency(claim("k1")) == .inFlight)
            #expect(try await store.claimIdempotency(claim("k1", "other")) == .mismatch)
            // A key that exists is not claimed again by the read: the caller learns what it is.
            try await store.finishIdempotency(key: "k1", status: 200, response: "{}")
            let again = try #require(
                try await store.orderAndPayments(o.id, claiming: claim("k1"), ifSecretHash: Secrets.hash("pcs_right"))
            )
            #expect(!again.claimed)
            #expect(try await store.claimIdempotency(claim("k1")) == .replay(status: 200, response: "{}"))
            // With a payment: the claim's row is not taken for a payment.
            _ = try await store.insert(Self.payment(o, id: "pay_a"), cause: "created", order: o)
            let paid = try #require(
                try await store.orderAndPayments(o.id, claiming: claim("k3"), ifSecretHash: Secrets.hash("pcs_right"))
            )
            #expect(paid.payments.map(\.id) == ["pay_a"] && paid.claimed == (kind == "postgres"))
        }
    }
}
