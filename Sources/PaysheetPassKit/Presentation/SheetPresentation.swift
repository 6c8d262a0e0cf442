import Foundation

/// What a presenter (``PKPaymentAuthorizationController``, ``PKPaymentAuthorizationViewController``)
/// holds: its request, its simulator, the one sheet it may present and the tasks it started.
final class SheetPresentation: @unchecked Sendable {
    // `@unchecked`: its state is only touched under `lock` (`Synchronization.Mutex` needs macOS 15,
    // the package supports macOS 14, and this target depends on nothing that has a checked lock).
    let request: PKPaymentRequest
    let simulator: PaysheetSimulator
    private let lock = NSLock()
    private var _session: PaysheetSheetSession?
    /// The sheet's run: the shopper acts in a task of its own, as iOS's sheet runs beside the app
    /// (`present` is synchronous and returns at once). It ends by itself — the shopper's steps are
    /// finite, each delegate question is bounded by the completion timeout, waits are virtual —
    /// and ``dismissed()`` cancels it: the shopper's remaining steps are not taken.
    private var running: Task<Void, Never>?
    /// Completion handlers called later, as iOS calls them (never from within the call that
    /// takes them); each removes itself when it has run.
    private var callbacks: [Int: Task<Void, Never>] = [:]
    private var lastCallback = 0

    init(request: PKPaymentRequest, simulator: PaysheetSimulator) {
        self.request = request
        self.simulator = simulator
    }

    deinit {
        running?.cancel()
        for callback in callbacks.values { callback.cancel() }
    }

    /// The sheet, once presented.
    var session: PaysheetSheetSession? {
        lock.lock()
        defer { lock.unlock() }
        return _session
    }

    var currentSummaryItems: [PKPaymentSummaryItem] { session?.summaryItems ?? request.paymentSummaryItems }
    var currentShippingMethods: [PKShippingMethod] { session?.shippingMethods ?? request.shippingMethods ?? [] }

    /// Makes the sheet and starts it (the shopper acts in a task of its own); `false`, with the
    /// reason in the simulator's log under `who`, when it is not presented.
    func begin(host: PaysheetSheetSession.Host, who: String) -> Bool {
        let made: Result<PaysheetSheetSession, PresentationRefusal> = {
            lock.lock()
            defer { lock.unlock() }
            guard _session == nil else { return .failure(PresentationRefusal("this sheet was presented already")) }
            let made = PaysheetSheetSession.make(request: request, host: host, simulator: simulator)
            if case .success(let session) = made { _session = session }
            return made
        }()
        switch made {
        case .failure(let refusal):
            simulator.note("\(who): not presented: \(refusal)")
            return false
        case .success(let session):
            simulator.add(session)
            lock.lock()
            defer { lock.unlock() }
            running = Task { await session.run() }
            return true
        }
    }

    /// The presenter dismissed the sheet: a sheet still open is canceled (its run stops taking
    /// the shopper's steps; the delegate is told it finished). After `…DidFinish`, nothing.
    func dismissed() {
        lock.lock()
        let run = running
        lock.unlock()
        run?.cancel()
    }

    /// Calls `handler` soon, from a task held here until it has run.
    func callLater(_ handler: @escaping @Sendable () async -> Void) {
        lock.lock()
        defer { lock.unlock() }
        lastCallback += 1
        let id = lastCallback
        // The task takes `lock` to remove itself, so it cannot do so before it is stored.
        callbacks[id] = Task { [weak self] in
            await handler()
            self?.called(id)
        }
    }

    private func called(_ id: Int) {
        lock.lock()
        defer { lock.unlock() }
        callbacks[id] = nil
    }
}
