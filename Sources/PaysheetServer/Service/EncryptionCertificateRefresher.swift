import Foundation
import Logging
import ServiceLifecycle
import UnionPay

/// Asks the gateway for its current encryption certificate at start and then daily
/// (`txnType=95`; UnionPay asks merchants to, and keeps old and new valid for a month while it
/// rotates them). A failure keeps the certificate in use and is logged.
struct EncryptionCertificateRefresher: Service {
    let client: UnionPayClient
    let ready: Readiness
    let logger: Logger
    var interval: Double = 86_400

    func run() async throws {
        await ready.repeatedly(every: interval) {
            let before = client.encryption.current?.certId
            do {
                let now = try await client.updateEncryptionCertificate(txnTime: TransactionTime.format(Date()))
                if now != before {
                    logger.info("UnionPay's encryption certificate is now \(now) (was \(before ?? "none"))")
                }
            } catch {
                logger.warning(
                    "the encryption certificate could not be updated (still using \(before ?? "none")): \(error)"
                )
            }
        }
    }
}
