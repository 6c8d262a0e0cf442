import Logging
import Metrics
import NIOConcurrencyHelpers

/// Tells the other servers on one PostgreSQL that payments settled (`pg_notify` on
/// ``PaymentStore/settledChannel``), after the commit that settled them rather than inside it.
///
/// PostgreSQL takes one lock for the whole cluster when a transaction that notified commits, and
/// holds it until the commit is on disk: a notification inside the settling statement made every
/// settlement of every server wait for the others' `fsync`s, one at a time (the load benchmark's
/// lock sampler saw up to 21 backends waiting on it with three servers). A transaction that only
/// notifies changes no data, so its commit does not wait for the disk, and the lock is held for a
/// moment. The announcement is a hint, as before: a server that misses one reads the payment on
/// its own schedule (``PaymentService/otherServersPoll``) — when this process stops between the
/// commit and the announcement, or an announcement cannot be sent twice in a row (counted in
/// `paysheet_settlement_announcements_dropped_total`, by payment).
///
/// Payload: the payments' ids, then this server's ``PaymentStore/announcer``, separated by
/// spaces (``SettlementListener/paymentsChanged(by:notHere:)`` reads it).
final class SettlementAnnouncements: Sendable {
    private let database: any SQLDatabase
    private let announcer: String
    private let statement: String
    private let state = NIOLockedValueBox(State())

    private struct State {
        var queue = AnnouncementQueue()
        /// The running sender (owned here; it ends when it finds the queue empty).
        var sender: Task<Void, Never>?
    }

    /// Announcements sent through `database` as `announcer`. `statement` takes the channel and the
    /// payload (`$1`, `$2`); PostgreSQL's ``notifyStatement`` but in tests.
    init(database: any SQLDatabase, announcer: String, statement: String = notifyStatement) {
        self.database = database
        self.announcer = announcer
        self.statement = statement
    }

    /// Announces that `paymentId` settled: at once when no announcement is being sent, else with
    /// the next one.
    func announce(_ paymentId: String) {
        let overflowed = state.withLockedValue { state -> Bool in
            let before = state.queue.dropped
            if state.queue.add(paymentId) {
                // Detached: the sender outlives the request that started it, and must not keep its
                // task-local values (its trace) for the announcements of others.
                state.sender = Task.detached { await self.send() }
            }
            return state.queue.dropped > before
        }
        if overflowed { Self.dropped(1) }
    }

    /// Waits until the sender has found the queue empty: everything announced before the call,
    /// and anything announced meanwhile, sent or dropped.
    func sent() async {
        while let sender = state.withLockedValue({ $0.queue.sending ? $0.sender : nil }) { await sender.value }
    }

    private func send() async {
        while let batch = state.withLockedValue({ $0.queue.next() }) {
            let arguments: [SQLValue] = [.text(PaymentStore.settledChannel), .text(payload(batch))]
            // Tried twice (a connection lost in between is replaced by the pool); then given up
            // for the readers' own schedule.
            if (try? await database.write(statement, arguments)) != nil { continue }
            do {
                try await database.write(statement, arguments)
            } catch {
                Self.dropped(batch.count)
                Logger(label: "paysheet.store").warning(
                    "settlement announcement not sent (\(error)): the other servers read these \(batch.count) payments on their own schedule"
                )
            }
        }
    }

    /// Counts `count` payments whose announcement was dropped (made when counted: after the
    /// metrics system is set up, whenever the store was made).
    private static func dropped(_ count: Int) {
        Counter(label: "paysheet_settlement_announcements_dropped_total").increment(by: count)
    }

    /// The announcement of `batch`: its payment ids and this server's announcer.
    func payload(_ batch: [String]) -> String { (batch + [announcer]).joined(separator: " ") }

    /// `pg_notify` answers `void`, which is counted rather than read (`SELECT pg_notify` in the
    /// server's statement counts).
    static let notifyStatement = "SELECT CAST(COUNT(*) AS TEXT) AS sent FROM pg_notify($1, $2) AS announced"
}
