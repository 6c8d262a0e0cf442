import Foundation

/// Wakes the requests waiting for a payment (an `authorize` that answers the sheet) when this
/// process changes the payment's state.
actor PaymentWaiters {
    private var waiting: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
    private var nextToken = 0

    /// Returns when `paymentId` changes, or after `timeout` seconds.
    func wait(_ paymentId: String, timeout: Double) async {
        nextToken += 1
        let token = nextToken
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            waiting[paymentId, default: [:]][token] = c
            Task {
                try? await Task.sleep(for: .milliseconds(Int(max(0, timeout) * 1000)))
                self.fire(paymentId, token)
            }
        }
    }

    private func fire(_ paymentId: String, _ token: Int) {
        if let c = waiting[paymentId]?.removeValue(forKey: token) { c.resume() }
        if waiting[paymentId]?.isEmpty == true { waiting.removeValue(forKey: paymentId) }
    }

    /// Wakes everyone waiting for `paymentId`.
    func signal(_ paymentId: String) {
        guard let all = waiting.removeValue(forKey: paymentId) else { return }
        for c in all.values { c.resume() }
    }
}
