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
                                let (id, version) = Self.announced(notification.payload)
                                await payments.waiters.poke(id, version: version)
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

    /// An announcement's payment id and version (`pay_… 7`, as the settling statement sends it);
    /// the version is nil in a payload without one.
    static func announced(_ payload: String) -> (id: String, version: Int?) {
        let parts = payload.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let version = Int(parts[1]) else { return (payload, nil) }
        return (String(parts[0]), version)
    }
}
