import PaysheetPayments
import Foundation

/// Wakes the requests waiting for a payment (an `authorize` that answers the sheet) when this
/// process changes the payment's state, and hands them the payment (and its order) as committed,
/// so that they need not read it back.
actor PaymentWaiters {
    private var waiting: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
    private var nextToken = 0
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

    /// Returns when `paymentId` changes after `generation` (true), or after `timeout` seconds (false).
    @discardableResult
    func wait(_ paymentId: String, after generation: Int, timeout: Double) async -> Bool {
        if generations[paymentId, default: 0] != generation { return true }
        nextToken += 1
        let token = nextToken
        // Two children, both owned: the wait for a signal, and the timeout that ends it (also
        // when the waiting request is cancelled: the sleep throws, and the wait is ended at once).
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.suspend(paymentId, token, after: generation) }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int(max(0, timeout) * 1000)))
                await self.fire(paymentId, token)
            }
            await group.next()
            group.cancelAll()
        }
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

    private func fire(_ paymentId: String, _ token: Int) {
        if let continuation = waiting[paymentId]?.removeValue(forKey: token) {
            continuation.resume()
        } else {
            fired.insert(token)  // before the wait was parked (or after a signal ended it)
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
