import Foundation

/// Presents the payment sheet without a view controller (`PKPaymentAuthorizationController`).
/// Here the sheet is Paysheet's simulation: the sheet engine that also serves the web, a
/// simulated shopper (``PaysheetSimulator/shopper``) and real sandbox tokens.
open class PKPaymentAuthorizationController: NSObject, @unchecked Sendable {
    /// The delegate (held weakly, as PassKit holds it).
    open weak var delegate: (any PKPaymentAuthorizationControllerDelegate)?
    let request: PKPaymentRequest
    let simulator: PaysheetSimulator
    private let lock = NSLock()
    private var _session: PaysheetSheetSession?

    /// A controller for `request`.
    public init(paymentRequest request: PKPaymentRequest) {
        self.request = request
        self.simulator = .shared
        super.init()
    }

    /// The sheet, once presented.
    public var session: PaysheetSheetSession? {
        lock.lock()
        defer { lock.unlock() }
        return _session
    }

    var currentSummaryItems: [PKPaymentSummaryItem] { session?.summaryItems ?? request.paymentSummaryItems }
    var currentShippingMethods: [PKShippingMethod] { session?.shippingMethods ?? request.shippingMethods ?? [] }

    /// Presents the sheet; `completion` says whether it was (false for a request iOS refuses,
    /// with the reason in ``PaysheetSimulator/log``).
    open func present(completion: ((Bool) -> Void)? = nil) {
        let presented = beginPresentation()
        Task { completion?(presented) }
    }

    /// Presents the sheet; whether it was presented.
    open func present() async -> Bool { beginPresentation() }

    /// Makes the session and starts it (the shopper acts in a task of its own).
    func beginPresentation() -> Bool {
        let made: Result<PaysheetSheetSession, PresentationRefusal> = {
            lock.lock()
            defer { lock.unlock() }
            guard _session == nil else { return .failure(PresentationRefusal("this controller was presented already")) }
            let made = PaysheetSheetSession.make(request: request, host: .controller(self), simulator: simulator)
            if case .success(let session) = made { _session = session }
            return made
        }()
        switch made {
        case .failure(let refusal):
            simulator.note("PKPaymentAuthorizationController.present: not presented: \(refusal)")
            return false
        case .success(let session):
            simulator.add(session)
            Task { await session.run() }
            return true
        }
    }

    /// Dismisses the sheet (after `…DidFinish`).
    open func dismiss(completion: (() -> Void)? = nil) {
        Task {
            await self.dismiss()
            completion?()
        }
    }

    /// Dismisses the sheet.
    open func dismiss() async {
        simulator.record(event: "PKPaymentAuthorizationController.dismiss")
    }

    /// Whether the device can take payments at all (the simulated wallet has a card).
    open class func canMakePayments() -> Bool { PaysheetSimulator.shared.hasCard(of: nil) }

    /// Whether the wallet has a card of one of `supportedNetworks`.
    open class func canMakePayments(usingNetworks supportedNetworks: [PKPaymentNetwork]) -> Bool {
        PaysheetSimulator.shared.hasCard(of: supportedNetworks)
    }

    /// Whether the wallet has a card of one of `supportedNetworks` that `capabilties` allow
    /// (PassKit's own spelling of the label).
    open class func canMakePayments(
        usingNetworks supportedNetworks: [PKPaymentNetwork],
        capabilities capabilties: PKMerchantCapability
    ) -> Bool {
        PaysheetSimulator.shared.hasCard(of: supportedNetworks, capabilities: capabilties)
    }
}

extension PaysheetSheetSession {
    /// The controller's session's note, for the delegate defaults.
    func noteOnce(_ line: String) { note(line) }
}
