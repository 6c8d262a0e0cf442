import Logging
import PostgresNIO
import ServiceLifecycle

/// Listens on PostgreSQL for payments that another server settled (`pg_notify` at commit, see
/// ``PaymentStore``) and wakes the authorizations waiting for them here at once. Reconnects after
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
                                guard let id = Self.paymentChanged(by: notification.payload, notHere: payments.store)
                                else { continue }
                                await payments.waiters.poke(id)
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

    /// The payment an announcement (`pay_… STORE`, as the settling statement sends it) says another
    /// server changed; nil for one `store` sent itself — PostgreSQL delivers a server's own
    /// announcements to it too, and its waiters get that change in-process (reading it back here,
    /// where this delivery can beat the hand-off, cost three round trips). A payload without its
    /// announcer is a payment id.
    static func paymentChanged(by payload: String, notHere store: PaymentStore) -> String? {
        let parts = payload.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return payload }
        return parts[1] == store.announcer ? nil : parts[0]
    }
}
