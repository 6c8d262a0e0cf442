import PaysheetPayments
import Foundation
import NIOConcurrencyHelpers

/// The charges this process has sent to the acquirer and is waiting to hear about, each with its
/// order and the order's payments as this process committed them: the payment's notification is
/// applied from them instead of reading them again (one round trip fewer per payment on
/// PostgreSQL).
///
/// A copy may be stale — another server, an update endpoint or a query may have changed the
/// payment or its order since — and that is safe: every write that applies a notification checks
/// the payment's and the order's versions, and a write that finds either changed writes nothing
/// and is applied again to what it reads (``PaymentService/advance(_:_:loaded:notification:snapshot:at:)``).
/// Taken once; bounded in count (when full it starts over, and notifications read as before).
///
/// **The acquirer's acceptance** of a charge (`00`: not yet paid) is not stored when it comes: it
/// is kept here until the next write of that payment in this process — its notification's, or a
/// query's — which stores it first, with its own history row: one write fewer per payment. The
/// stored charge says `submitting` meanwhile, which after a crash is queried like any charge whose
/// answer was lost (docs/payment-rules.md R7); when no outcome comes within the sheet's time, the
/// authorization stores the acceptance itself. A charge settled by another server (its
/// notification reached that one) goes from `submitting` to its outcome in the history.
final class AwaitedCharges: Sendable {
    typealias Snapshot = (payment: PaymentRecord, order: OrderRecord, payments: [PaymentRecord])

    private struct State {
        var charges: [TransactionIdentity: Snapshot] = [:]
        var acceptances: [String: (answer: SubmitAnswer, at: Date)] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let capacity: Int

    init(capacity: Int = 10_000) { self.capacity = capacity }

    /// Remembers `payment`, sent to the acquirer, as stored, with its order and the order's
    /// payments, and the acquirer's acceptance when it is not stored (`accepted`).
    func remember(
        _ payment: PaymentRecord,
        order: OrderRecord,
        payments: [PaymentRecord],
        accepted: (answer: SubmitAnswer, at: Date)? = nil
    ) {
        let others = payments.filter { $0.id != payment.id }
        state.withLockedValue { state in
            if state.charges.count >= capacity || state.acceptances.count >= capacity {
                state.charges.removeAll(keepingCapacity: true)
                state.acceptances.removeAll(keepingCapacity: true)
            }
            state.charges[payment.identity] = (payment, order, others + [payment])
            if let accepted { state.acceptances[payment.id] = accepted }
        }
    }

    /// The charge the acquirer knows as `identity`, forgotten as it is handed out.
    func take(_ identity: TransactionIdentity) -> Snapshot? {
        state.withLockedValue { $0.charges.removeValue(forKey: identity) }
    }

    /// The acquirer's acceptance of the payment `id`, not stored yet.
    func acceptance(_ id: String) -> (answer: SubmitAnswer, at: Date)? {
        state.withLockedValue { $0.acceptances[id] }
    }

    /// Forgets the acceptance of the payment `id` (stored, or superseded).
    func acceptanceStored(_ id: String) { _ = state.withLockedValue { $0.acceptances.removeValue(forKey: id) } }

    /// Forgets the charge `payment` (its authorization has answered).
    func forget(_ payment: PaymentRecord) {
        state.withLockedValue { state in
            _ = state.charges.removeValue(forKey: payment.identity)
            _ = state.acceptances.removeValue(forKey: payment.id)
        }
    }
}
