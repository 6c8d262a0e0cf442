import PaysheetPayments
import Crypto
import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import PaysheetContact
import PaysheetModel
import PaysheetToken
import PaysheetTokenFormat
import Tracing

/// Drives payments: authorization (verify, decrypt, check, charge, wait for the outcome),
/// refunds and voids, notifications and the query schedule. Every decision is the pure core's
/// (`OrderLifecycle` in PaysheetPayments); this is its one writer, with the acquirer, the store
/// and the clock (docs/payment-core.md).
public final class PaymentService: Sendable {
    let store: PaymentStore
    let acquirer: any Acquirer
    let decryptor: PaymentTokenDecryptor
    let settings: MerchantSettings
    let lifecycle: LifecycleConfiguration
    let logger: Logger
    let waiters = PaymentWaiters()
    /// Work that follows a change and must not hold up its request (a canceled order's unwind
    /// after a notification settled its charge): done by the query poller's service.
    let followUps = FollowUps()
    /// Charges waiting for their notification, as this process committed them.
    let awaited = AwaitedCharges()
    /// Seconds between reads of a payment an authorization waits for, for changes made by other
    /// servers that were not announced (0.5 s; ``announcedReadInterval`` where they are announced,
    /// PostgreSQL's `LISTEN`).
    var otherServersPoll: Double { changesAnnounced.value ? announcedReadInterval : 0.5 }
    /// See ``ServerConfiguration/announcedReadInterval`` (10 s).
    let announcedReadInterval: Double
    /// Whether `seconds` may be ``announcedReadInterval``: above 0, at most an hour (never a loop
    /// of reads). The configuration refuses any other; a service made in code keeps 10 s.
    static func acceptsAnnouncedReadInterval(_ seconds: Double) -> Bool { seconds > 0 && seconds <= 3_600 }
    let changesAnnounced = Flag()
    /// Seconds `authorize` waits for a certain outcome (the sheet allows 30).
    let authorizeWait: Double
    /// The clock (the core takes the time as an input).
    let now: @Sendable () -> Date
    /// Seals the merchant tokens of agreements (``CredentialVault``); `nil`: no plan can be sold.
    let vault: CredentialVault?
    /// What the tokens are verified and decrypted with, as a refusal names it.
    let tokenTrust: TokenTrustDescription

    /// A service.
    public init(
        store: PaymentStore,
        acquirer: any Acquirer,
        decryptor: PaymentTokenDecryptor,
        settings: MerchantSettings,
        lifecycle: LifecycleConfiguration = LifecycleConfiguration(),
        authorizeWait: Double = 20,
        shopperCancelWindow: Double = 120,
        announcedReadInterval: Double = 10,
        logger: Logger = Logger(label: "paysheet.payments"),
        now: @escaping @Sendable () -> Date = { Date() },
        vault: CredentialVault? = nil,
        tokenTrust: TokenTrustDescription = TokenTrustDescription()
    ) {
        self.vault = vault
        self.tokenTrust = tokenTrust
        self.store = store
        self.acquirer = acquirer
        self.decryptor = decryptor
        self.settings = settings
        var lifecycle = lifecycle
        lifecycle.shopperCancelWindow = shopperCancelWindow  // the core decides with it
        self.lifecycle = lifecycle
        self.authorizeWait = authorizeWait
        self.announcedReadInterval =
            Self.acceptsAnnouncedReadInterval(announcedReadInterval) ? announcedReadInterval : 10
        self.logger = logger
        self.now = now
    }

    // MARK: Feeding a payment's lifecycle

    /// Feeds `input` to the payment `id` through the core (`OrderLifecycle/advance(_:_:now:configuration:)` (PaysheetPayments)),
    /// storing the result (applied again to the newer version when another writer was first);
    /// wakes waiters on a state change.
    /// A `notification` (key, raw body) is stored with the change, deduplicated. The acquirer's
    /// acceptance of the payment, when this process holds it unstored (``AwaitedCharges``), goes
    /// with the input and is stored first, with its own history row. `time`: when `input` came,
    /// if not now.
    @discardableResult
    func advance(
        _ id: String,
        _ input: OrderLifecycle.PaymentInput,
        loaded: PaymentRecord? = nil,
        notification: (key: String, body: String)? = nil,
        snapshot: (OrderRecord, [PaymentRecord])? = nil,
        at time: Date? = nil
    ) async throws -> PaymentRecord? {
        var current = loaded
        var orderSnapshot = snapshot
        for _ in 0..<8 {
            if current == nil { current = try await store.payment(id) }
            guard let payment = current else { return nil }
            let held = awaited.acceptance(id).map { OrderLifecycle.Acceptance(answer: $0.answer, at: $0.at) }
            let changedAt = time ?? now()
            let step = OrderLifecycle.advance(
                payment,
                input.with(earlier: held),
                now: changedAt,
                configuration: lifecycle
            )
            guard let next = step.next else {
                // Nothing changed (late, duplicate, terminal): a notification is still recorded.
                if let notification { try await record(notification, of: id, at: changedAt) }
                return payment
            }
            let result: (PaymentRecord, OrderRecord?)?
            do {
                result = try await store.update(
                    next,
                    transition: step.transition,
                    at: changedAt,
                    notification: notification,
                    earlier: step.earlier,
                    reprice: step.settlesOrder ? OrderLifecycle.settle : nil,
                    snapshot: orderSnapshot
                )
            } catch is PaymentStore.DuplicateNotification {
                Counter(label: "paysheet_notifications_duplicate_total").increment()
                return current
            }
            if let (stored, order) = result {
                if held != nil { awaited.acceptanceStored(id) }
                if let earlier = step.earlier { recorded(stored, earlier) }
                if let transition = step.transition {
                    recorded(stored, transition)
                    await waiters.signal(id, stored, order: order)
                    // A canceled order's charge (or reversal) became certain: return the money.
                    if step.settlesOrder, let order, OrderLifecycle.needsUnwind(order) { followUps.unwind(order.id) }
                }
                return stored
            }
            // Another writer was first: apply again to the newer version — as this process
            // committed it when it was the writer (typically the payment's notification racing its
            // acquirer's answer), else as read anew.
            current = nil
            if let (newer, _) = await waiters.committed(id), newer.version > payment.version { current = newer }
            orderSnapshot = nil
        }
        throw StorageError("payment \(id) kept changing under eight attempts to update it")
    }

    /// Records a notification that changed nothing (deduplicated), for reconciliation.
    private func record(_ notification: (key: String, body: String), of id: String?, at: Date) async throws {
        let fresh = try await store.recordNotification(
            key: notification.key,
            paymentId: id,
            body: notification.body,
            at: at
        )
        if !fresh { Counter(label: "paysheet_notifications_duplicate_total").increment() }
    }

    /// Logs and counts a stored change of `payment`'s state.
    private func recorded(_ payment: PaymentRecord, _ transition: PaymentTransition) {
        let from = transition.from?.rawValue ?? "new"
        logger.info("payment \(payment.id) \(from) → \(transition.to.rawValue): \(transition.cause)")
        Counter(
            label: "paysheet_payment_transitions_total",
            dimensions: [("to", transition.to.rawValue), ("kind", payment.kind.rawValue)]
        ).increment()
    }

    /// Waits until `id` is terminal or `deadline` passes; returns its last state, and its order
    /// when the change that made it terminal was committed by this process.
    ///
    /// `known`: the payment as this request last committed it, and the payment's generation when
    /// the request started watching it, before the change that committed it (``PaymentWaiters``
    /// counts every change from then on, made here or announced by another server). While the
    /// generation is the same, nothing changed the payment since: it is not read back. Used once;
    /// after a wait that times out the payment is always read.
    func waitForOutcome(
        _ id: String,
        until deadline: Date,
        known: (payment: PaymentRecord, generation: Int)? = nil
    ) async throws -> (payment: PaymentRecord, order: OrderRecord?)? {
        if known == nil { await waiters.watch(id) }  // else the caller watches it already
        do {
            let result = try await waitWatched(id, until: deadline, known: known)
            await waiters.unwatch(id)
            return result
        } catch {
            await waiters.unwatch(id)
            throw error
        }
    }

    /// ``waitForOutcome(_:until:known:)`` while `id` is watched.
    private func waitWatched(
        _ id: String,
        until deadline: Date,
        known: (payment: PaymentRecord, generation: Int)?
    ) async throws -> (payment: PaymentRecord, order: OrderRecord?)? {
        var signalled = false
        var known = known
        while true {
            let generation = await waiters.generation(id)
            let payment: PaymentRecord
            var order: OrderRecord?
            if let first = known, first.generation == generation {
                payment = first.payment  // nothing changed it since this request committed it
            } else if signalled || known != nil, let committed = await waiters.committed(id) {
                (payment, order) = committed  // what this process just committed: no need to read it back
            } else {
                guard let stored = try await store.payment(id) else { return nil }
                payment = stored
            }
            known = nil
            let left = deadline.timeIntervalSince(now())
            if payment.lifecycle.state.isTerminal || left <= 0 || Task.isCancelled { return (payment, order) }
            // Woken by a change made in this process, or (PostgreSQL) announced by another server; the
            // timeout is the safety net for a change whose announcement was lost.
            signalled = await waiters.wait(id, after: generation, timeout: min(left, otherServersPoll))
        }
    }

    // MARK: Queries (R4, R7)

    /// Queries every payment whose query is due; returns how many were queried. Run on start
    /// (crash recovery) and periodically.
    @discardableResult
    public func runDueQueries(limit: Int = 200) async throws -> Int {
        let changedAt = now()
        let due = try await store.claimDuePayments(
            at: changedAt,
            leaseUntil: changedAt.addingTimeInterval(lifecycle.leaseSeconds),
            limit: limit
        )
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for payment in due {
                if running >= 16 {
                    await group.next()
                    running -= 1
                }
                group.addTask {
                    await withSpan("payment.query") { span in
                        span.attributes["paysheet.payment.id"] = payment.id
                        span.attributes["paysheet.order.id"] = payment.orderId
                        let status = await self.acquirer.query(payment.identity)
                        Counter(label: "paysheet_acquirer_queries_total").increment()
                        do {
                            let after = try await self.advance(
                                payment.id,
                                .queried(status, earlier: nil),
                                loaded: payment
                            )
                            if let after { span.attributes["paysheet.payment.state"] = after.lifecycle.state.rawValue }
                            try await self.store.releaseClaim(payment.id)
                        } catch {
                            span.recordError(error)
                            self.logger.error("query of payment \(payment.id) not stored: \(error)")
                        }
                    }
                }
                running += 1
            }
        }
        return due.count
    }

    // MARK: Notifications (R6)

    /// Verifies, stores (deduplicated) and applies a notification body.
    public func receiveNotification(_ body: String) async throws {
        try await withSpan("payment.notification") { span in try await receiveNotification(body, span: span) }
    }

    func receiveNotification(_ body: String, span: any Span) async throws {
        let notification: AcquirerNotification
        do { notification = try acquirer.parseNotification(body) } catch {
            Counter(label: "paysheet_notifications_rejected_total").increment()
            // The reason is logged; the sender learns only that it was not accepted.
            logger.warning("notification rejected: \(error)")
            throw ServiceError(.invalid, code: "notification_rejected", message: "the notification was not accepted")
        }
        Counter(label: "paysheet_notifications_total").increment()
        var loaded = awaited.take(notification.identity)
        if loaded == nil { loaded = try await store.paymentWithOrder(notification.identity) }
        guard let (payment, order, payments) = loaded else {
            span.attributes["paysheet.notification.matched"] = false
            // Not ours (or not yet visible): stored raw, for reconciliation.
            _ = try await store.recordNotification(
                key: notification.deduplicationKey,
                paymentId: nil,
                body: notification.raw,
                at: now()
            )
            return
        }
        span.attributes["paysheet.notification.matched"] = true
        span.attributes["paysheet.payment.id"] = payment.id
        span.attributes["paysheet.order.id"] = order.id
        // Stored, deduplicated and applied in one transaction (R6).
        let after = try await advance(
            payment.id,
            .notified(notification.status, earlier: nil),
            loaded: payment,
            notification: (notification.deduplicationKey, notification.raw),
            snapshot: (order, payments)
        )
        if let after { span.attributes["paysheet.payment.state"] = after.lifecycle.state.rawValue }
    }
}

/// A flag, set and read from any thread.
final class Flag: Sendable {
    private let raised = NIOLockedValueBox(false)
    var value: Bool { raised.withLockedValue { $0 } }
    func raise() { raised.withLockedValue { $0 = true } }
    func lower() { raised.withLockedValue { $0 = false } }
}
