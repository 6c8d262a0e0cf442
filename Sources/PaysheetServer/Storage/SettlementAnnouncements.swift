import Metrics
import NIOConcurrencyHelpers

/// Tells the other servers on one PostgreSQL that payments settled (`pg_notify` on
/// ``PaymentStore/settledChannel``), after the commit that settled them rather than inside it.
///
/// PostgreSQL takes one lock for the whole cluster when a transaction that notified commits, and
/// holds it until the commit is on disk: a notification inside the settling statement made every
/// settlement of every server wait for the others' `fsync`s, one at a time (the load benchmark's
/// lock sampler saw up to 14 backends waiting on it with three servers). A statement that only
/// notifies writes nothing to the log, so its commit does not wait for the disk, and the lock is
/// held for a moment. The announcement is a hint, as before: a server that misses one (this
/// process stopped between the commit and the announcement, or PostgreSQL was unreachable) reads
/// the payment on its own schedule (``PaymentService/otherServersPoll``).
///
/// Payload: the payments' ids, then this server's ``PaymentStore/announcer``, separated by
/// spaces (``SettlementListener/paymentsChanged(by:notHere:)`` reads it).
final class SettlementAnnouncements: Sendable {
    private let database: any SQLDatabase
    private let announcer: String
    private let state = NIOLockedValueBox(State())
    private static let failures = Counter(label: "paysheet_settlement_announcements_failed_total")

    private struct State {
        var queue = AnnouncementQueue()
        /// The running sender (owned here; it ends when it finds the queue empty).
        var sender: Task<Void, Never>?
    }

    init(database: any SQLDatabase, announcer: String) {
        self.database = database
        self.announcer = announcer
    }

    /// Announces that `paymentId` settled: at once when no announcement is being sent, else with
    /// the next one.
    func announce(_ paymentId: String) {
        state.withLockedValue { state in
            guard state.queue.add(paymentId) else { return }
            state.sender = Task { await self.send() }
        }
    }

    /// Waits until what was announced before the call has been sent (tests).
    func sent() async {
        while let sender = state.withLockedValue({ $0.queue.sending ? $0.sender : nil }) { await sender.value }
    }

    private func send() async {
        while let batch = state.withLockedValue({ $0.queue.next() }) {
            do {
                try await database.write(Self.statement, [.text(PaymentStore.settledChannel), .text(payload(batch))])
            } catch {
                Self.failures.increment()
            }
        }
    }

    /// The announcement of `batch`: its payment ids and this server's announcer.
    func payload(_ batch: [String]) -> String { (batch + [announcer]).joined(separator: " ") }

    /// `pg_notify` answers `void`, which is counted rather than read (`SELECT pg_notify` in the
    /// server's statement counts).
    static let statement = "SELECT CAST(COUNT(*) AS TEXT) AS sent FROM pg_notify($1, $2) AS announced"
}
