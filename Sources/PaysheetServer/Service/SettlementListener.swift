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
                                let announced = Self.announced(notification.payload)
                                // This server's own: its waiters are handed the change in-process
                                // (reading it back here, before that hand-off, cost three round trips).
                                if announced.announcer == payments.store.announcer { continue }
                                await payments.waiters.poke(announced.id, version: announced.version)
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

    /// An announcement's payment id, version and announcing store (`pay_… 7 UUID`, as the
    /// settling statement sends it); the version and announcer are nil in a payload without them.
    static func announced(_ payload: String) -> (id: String, version: Int?, announcer: String?) {
        let parts = payload.split(separator: " ").map(String.init)
        guard parts.count >= 2, let version = Int(parts[1]) else { return (payload, nil, nil) }
        return (parts[0], version, parts.count >= 3 ? parts[2] : nil)
    }
}
