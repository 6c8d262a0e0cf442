import PaysheetModel
import PaysheetPayments
import Foundation

/// Wakes the requests waiting for a payment (an `authorize` that answers the sheet) when this
/// process changes the payment's state, and hands them the payment (and its order) as committed,
/// so that they need not read it back.
actor PaymentWaiters {
    private var waiting: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
    private var nextToken = 0
    /// The waits in progress: a timeout or cancellation that comes after its wait ended finds
    /// its token gone and does nothing.
    private var active: Set<Int> = []
    /// Waits in progress ended by their timeout or cancellation while not parked (a signal had
    /// woken them already): `suspend` returns at once for these.
    private var fired: Set<Int> = []
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
        active.insert(token)
        // The timeout is one of the process's deadlines (no task or timer of its own); it and a
        // cancellation end the wait as a signal would, through the actor.
        let timer = Deadlines.shared.schedule(after: timeout) { Task { await self.fire(paymentId, token) } }
        await withTaskCancellationHandler {
            await suspend(paymentId, token, after: generation)
        } onCancel: {
            Task { await self.fire(paymentId, token) }
        }
        timer.cancel()
        active.remove(token)
        fired.remove(token)
        return generations[paymentId, default: 0] != generation
    }

    /// Waits for a signal of `paymentId` after `generation`, unless it came already or the wait's
    /// timeout fired first.
    private func suspend(_ paymentId: String, _ token: Int, after generation: Int) async {
        if fired.contains(token) || generations[paymentId, default: 0] != generation { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            waiting[paymentId, default: [:]][token] = c
        }
    }

    /// Ends the wait `token` (its timeout, or its request cancelled); nothing once it has ended.
    private func fire(_ paymentId: String, _ token: Int) {
        guard active.contains(token) else { return }
        if let continuation = waiting[paymentId]?.removeValue(forKey: token) {
            continuation.resume()
        } else {
            fired.insert(token)  // not parked (a signal ended it already, or it has yet to park)
        }
        if waiting[paymentId]?.isEmpty == true { waiting.removeValue(forKey: paymentId) }
    }

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

    /// How many waits for `paymentId` are parked (for tests: waiting without a clock).
    func parked(_ paymentId: String) -> Int { waiting[paymentId]?.count ?? 0 }

    /// What waits leave behind once ended: tokens in progress, tokens fired, parked waits (all
    /// zero when no wait is in progress).
    var leftovers: (active: Int, fired: Int, parked: Int) {
        (active.count, fired.count, waiting.values.reduce(0) { $0 + $1.count })
    }

    /// Ends the wait `token` as its timeout or its request's cancellation would (for tests).
    func fireForTesting(_ paymentId: String, _ token: Int) { fire(paymentId, token) }

    /// The token of the newest wait (for tests).
    var lastToken: Int { nextToken }

    /// How many requests watch `paymentId` (wait, or are about to wait, for its outcome).
    func watching(_ paymentId: String) -> Int { watchers[paymentId, default: 0] }

    /// Wakes everyone waiting for `paymentId`, which another server changed: they read it anew
    /// (whatever this process committed of it before is older).
    func poke(_ paymentId: String) {
        guard generations[paymentId] != nil else { return }
        latest.removeValue(forKey: paymentId)
        generations[paymentId]! += 1
        if let all = waiting.removeValue(forKey: paymentId) { for continuation in all.values { continuation.resume() } }
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
        for continuation in all.values { continuation.resume() }
    }
}
