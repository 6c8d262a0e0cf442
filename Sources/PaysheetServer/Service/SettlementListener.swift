import Logging
import PostgresNIO
import ServiceLifecycle

/// Listens on PostgreSQL for payments that another server settled (`pg_notify` after their commit,
/// ``SettlementAnnouncements``) and wakes the authorizations waiting for them here at once. Reconnects after
/// a lost connection; while it is not listening, waiters fall back to reading every 0.5 s.
struct SettlementListener: Service {
    let database: PostgresDatabase
    let payments: PaymentService
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await database.client.withConnection { connection in
                        try await connection.listen(on: PaymentStore.settledChannel) { notifications in
                            payments.changesAnnounced.raise()
                            for try await notification in notifications {
                                for id in Self.paymentsChanged(by: notification.payload, notHere: payments.store) {
                                    await payments.waiters.poke(id)
                                }
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { return }
                    payments.changesAnnounced.lower()
                    logger.warning("listening for settled payments stopped (\(error)); listening again in 1 s")
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// The payments an announcement (`pay_1 pay_2 … STORE`, as ``SettlementAnnouncements`` sends it)
    /// says another server settled; none for one `store` sent itself — PostgreSQL delivers a
    /// server's own announcements to it too, and its waiters get those changes in-process (reading
    /// them back here, where this delivery can beat the hand-off, cost three round trips). A payload
    /// of one word is a payment id without its announcer.
    static func paymentsChanged(by payload: String, notHere store: PaymentStore) -> [String] {
        let words = payload.split(separator: " ").map(String.init)
        guard words.count > 1 else { return words }
        return words.last == store.announcer ? [] : Array(words.dropLast())
    }
}
