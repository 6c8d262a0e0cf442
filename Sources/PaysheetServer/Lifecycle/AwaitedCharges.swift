import Foundation

/// The charges this process has sent to the acquirer and is waiting to hear about, each with its
/// order and the order's payments as this process committed them: the payment's notification is
/// applied from them instead of reading them again (one round trip fewer per payment on
/// PostgreSQL).
///
/// A copy may be stale — another server, an update endpoint or a query may have changed the
/// payment or its order since — and that is safe: every write that applies a notification checks
/// the payment's and the order's versions, and a write that finds either changed writes nothing
/// and is applied again to what it reads (``PaymentService/advance(_:_:loaded:notification:snapshot:)``).
/// Taken once; bounded in count (when full it starts over, and notifications read as before).
final class AwaitedCharges: @unchecked Sendable {
    typealias Snapshot = (payment: PaymentRecord, order: OrderRecord, payments: [PaymentRecord])

    private let lock = NSLock()
    private var charges: [TransactionIdentity: Snapshot] = [:]
    private let capacity: Int

    init(capacity: Int = 10_000) { self.capacity = capacity }

    /// Remembers `payment`, sent to the acquirer, with its order and the order's payments.
    func remember(_ payment: PaymentRecord, order: OrderRecord, payments: [PaymentRecord]) {
        let others = payments.filter { $0.id != payment.id }
        lock.withLock {
            if charges.count >= capacity { charges.removeAll(keepingCapacity: true) }
            charges[payment.identity] = (payment, order, others + [payment])
        }
    }

    /// The charge the acquirer knows as `identity`, forgotten as it is handed out.
    func take(_ identity: TransactionIdentity) -> Snapshot? {
        lock.withLock { charges.removeValue(forKey: identity) }
    }

    /// Forgets the charge `identity` (its authorization has answered).
    func forget(_ identity: TransactionIdentity) { _ = take(identity) }
}
