import Foundation

/// What a presenter (``PKPaymentAuthorizationController``, ``PKPaymentAuthorizationViewController``)
/// holds: its request, its simulator and the one sheet it may present.
final class SheetPresentation: @unchecked Sendable {
    let request: PKPaymentRequest
    let simulator: PaysheetSimulator
    private let lock = NSLock()
    private var _session: PaysheetSheetSession?

    init(request: PKPaymentRequest, simulator: PaysheetSimulator) {
        self.request = request
        self.simulator = simulator
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
            Task { await session.run() }
            return true
        }
    }
}
