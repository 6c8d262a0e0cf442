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
                                await payments.waiters.poke(notification.payload)
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
}
