import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// Presents the payment sheet without a view controller (`PKPaymentAuthorizationController`).
/// Here the sheet is Paysheet's simulation: the sheet engine that also serves the web, a
/// simulated shopper (``PaysheetSimulator/shopper``) and real sandbox tokens.
open class PKPaymentAuthorizationController: NSObject, @unchecked Sendable {
    /// The delegate (held weakly, as PassKit holds it).
    open weak var delegate: (any PKPaymentAuthorizationControllerDelegate)?
    let presentation: SheetPresentation
    var request: PKPaymentRequest { presentation.request }
    var simulator: PaysheetSimulator { presentation.simulator }

    /// A controller for `request`.
    public init(paymentRequest request: PKPaymentRequest) {
        self.presentation = SheetPresentation(request: request, simulator: .shared)
        super.init()
    }

    /// The sheet, once presented.
    public var session: PaysheetSheetSession? { presentation.session }

    var currentSummaryItems: [PKPaymentSummaryItem] { presentation.currentSummaryItems }
    var currentShippingMethods: [PKShippingMethod] { presentation.currentShippingMethods }

    /// Presents the sheet; `completion` says whether it was (false for a request iOS refuses,
    /// with the reason in ``PaysheetSimulator/log``).
    open func present(completion: ((Bool) -> Void)? = nil) {
        let presented = beginPresentation()
        presentation.callLater { completion?(presented) }
    }

    /// Presents the sheet; whether it was presented.
    open func present() async -> Bool { beginPresentation() }

    /// Makes the session and starts it (the shopper acts in a task of its own).
    func beginPresentation() -> Bool {
        presentation.begin(host: .controller(self), who: "PKPaymentAuthorizationController.present")
    }

    /// Dismisses the sheet (after `…DidFinish`; a sheet still open is canceled).
    open func dismiss(completion: (() -> Void)? = nil) {
        presentation.callLater {
            await self.dismiss()
            completion?()
        }
    }

    /// Dismisses the sheet (after `…DidFinish`; a sheet still open is canceled).
    open func dismiss() async {
        simulator.record(event: "PKPaymentAuthorizationController.dismiss")
        presentation.dismissed()
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
