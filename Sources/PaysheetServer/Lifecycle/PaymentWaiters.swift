import PaysheetModel
import PaysheetPayments
import Foundation

/// Wakes the requests waiting for a payment (an `authorize` that answers the sheet) when this
/// process changes the payment's state, and hands them the payment (and its order) as committed,
/// so that they need not read it back.
actor PaymentWaiters {
    /// The waits in progress by payment, each a continuation resumed once by whichever ends it
    /// first: a signal (here, on the actor), its timeout or its request's cancellation (from any
    /// thread, without a hop to the actor).
    private var waiting: [String: [Int: OneShot<Void>]] = [:]
    private var nextToken = 0
    private var generations: [String: Int] = [:]
    private var watchers: [String: Int] = [:]
    private var latest: [String: (PaymentRecord, OrderRecord?)] = [:]

    /// The newest version of a watched payment this process committed (with its order when the
    /// change settled it), if it signalled one.
    func committed(_ paymentId: String) -> (PaymentRecord, OrderRecord?)? { latest[paymentId] }

    /// How many times `paymentId` was signalled: read it before looking at the payment, then
    /// pass it to ``wait(_:after:timeout:)`` so that a change in between is not missed.
    func generation(_ paymentId: String) -> Int { generations[paymentId, default: 0] }

    /// Returns when `paymentId` changes after `generation` (true), or after `timeout` seconds, or
    /// when the waiting request is cancelled (false).
    @discardableResult
    func wait(_ paymentId: String, after generation: Int, timeout: Double) async -> Bool {
        if generations[paymentId, default: 0] != generation { return true }
        nextToken += 1
        let token = nextToken
        let ended = OneShot<Void>()
        waiting[paymentId, default: [:]][token] = ended
        // The timeout is one of the process's deadlines (no task or timer of its own).
        let timer = Deadlines.shared.schedule(after: timeout) { ended.resume(.success(())) }
        await withTaskCancellationHandler {
            _ = try? await withCheckedThrowingContinuation { ended.arm($0) }
        } onCancel: {
            ended.resume(.success(()))
        }
        timer.cancel()
        waiting[paymentId]?.removeValue(forKey: token)
        if waiting[paymentId]?.isEmpty == true { waiting.removeValue(forKey: paymentId) }
        return generations[paymentId, default: 0] != generation
    }

    /// How many waits for `paymentId` are in progress (for tests: waiting without a clock).
    func waits(_ paymentId: String) -> Int { waiting[paymentId]?.count ?? 0 }

    /// Starts counting signals of `paymentId` (a request is about to wait for it); returns its
    /// generation. Each watch is ended by one ``unwatch(_:)``.
    @discardableResult
    func watch(_ paymentId: String) -> Int {
        watchers[paymentId, default: 0] += 1
        if generations[paymentId] == nil { generations[paymentId] = 0 }
        return generations[paymentId]!
    }

    /// Ends one watch (its request has its answer); the count is forgotten with the last one, so
    /// that a request still watching never sees its generation start again.
    func unwatch(_ paymentId: String) {
        let left = watchers[paymentId, default: 1] - 1
        watchers[paymentId] = left > 0 ? left : nil
        if left <= 0, waiting[paymentId] == nil {
            generations.removeValue(forKey: paymentId)
            latest.removeValue(forKey: paymentId)
        }
    }

    /// How many requests watch `paymentId` (wait, or are about to wait, for its outcome).
    func watching(_ paymentId: String) -> Int { watchers[paymentId, default: 0] }

    /// Wakes everyone waiting for `paymentId`, which another server changed: they read it anew
    /// (whatever this process committed of it before is older).
    func poke(_ paymentId: String) {
        guard generations[paymentId] != nil else { return }
        latest.removeValue(forKey: paymentId)
        generations[paymentId]! += 1
        if let all = waiting.removeValue(forKey: paymentId) { for ended in all.values { ended.resume(.success(())) } }
    }

    /// Wakes everyone waiting for `paymentId`, which this process committed as `payment`.
    func signal(_ paymentId: String, _ payment: PaymentRecord, order: OrderRecord?) {
        if generations[paymentId] != nil, payment.version > (latest[paymentId]?.0.version ?? Int.min) {
            latest[paymentId] = (payment, order)
        }
        guard let all = waiting.removeValue(forKey: paymentId) else {
            if generations[paymentId] != nil { generations[paymentId]! += 1 }
            return
        }
        generations[paymentId, default: 0] += 1
        for ended in all.values { ended.resume(.success(())) }
    }
}
