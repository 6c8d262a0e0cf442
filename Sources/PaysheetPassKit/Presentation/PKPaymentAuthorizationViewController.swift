import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// The payment sheet as a view controller (`PKPaymentAuthorizationViewController`, seed 004's).
/// Where UIKit does not exist it is not a `UIViewController`: present it with
/// ``paysheetPresent()`` (or a ``PaysheetHostViewController``'s `present(_:animated:completion:)`,
/// shaped like UIKit's), which runs the simulated sheet as ``PKPaymentAuthorizationController`` does.
open class PKPaymentAuthorizationViewController: NSObject, @unchecked Sendable {
    /// The delegate.
    open weak var delegate: (any PKPaymentAuthorizationViewControllerDelegate)?
    let presentation: SheetPresentation
    var request: PKPaymentRequest { presentation.request }
    var simulator: PaysheetSimulator { presentation.simulator }

    /// A sheet for `request`; `nil` where iOS gives none: the device cannot make payments, or the
    /// request is not valid (the reason is in ``PaysheetSimulator/log``).
    public init?(paymentRequest request: PKPaymentRequest) {
        self.presentation = SheetPresentation(request: request, simulator: .shared)
        super.init()
        guard Self.canMakePayments() else {
            simulator.note("PKPaymentAuthorizationViewController(paymentRequest:) is nil: the wallet has no card")
            return nil
        }
        if case .failure(let refusal) = PaysheetSheetSession.make(
            request: request,
            host: .viewController(self),
            simulator: simulator
        ) {
            simulator.note("PKPaymentAuthorizationViewController(paymentRequest:) is nil: \(refusal)")
            return nil
        }
    }

    /// The sheet, once presented.
    public var session: PaysheetSheetSession? { presentation.session }

    var currentSummaryItems: [PKPaymentSummaryItem] { presentation.currentSummaryItems }
    var currentShippingMethods: [PKShippingMethod] { presentation.currentShippingMethods }

    /// Shows the simulated sheet (what `present(_:animated:completion:)` does on iOS); whether it was.
    @discardableResult
    open func paysheetPresent() async -> Bool { beginPresentation() }

    /// Makes the session and starts it (the shopper acts in a task of its own).
    func beginPresentation() -> Bool {
        presentation.begin(host: .viewController(self), who: "PKPaymentAuthorizationViewController")
    }

    /// Whether the device can take payments at all.
    open class func canMakePayments() -> Bool { PaysheetSimulator.shared.hasCard(of: nil) }

    /// Whether the wallet has a card of one of `supportedNetworks`.
    open class func canMakePayments(usingNetworks supportedNetworks: [PKPaymentNetwork]) -> Bool {
        PaysheetSimulator.shared.hasCard(of: supportedNetworks)
    }

    /// Whether the wallet has a card of one of `supportedNetworks` that `capabilties` allow.
    open class func canMakePayments(
        usingNetworks supportedNetworks: [PKPaymentNetwork],
        capabilities capabilties: PKMerchantCapability
    ) -> Bool {
        PaysheetSimulator.shared.hasCard(of: supportedNetworks, capabilities: capabilties)
    }
}

/// Where UIKit does not exist, a stand-in for the view controller that presents the sheet: app
/// code written as `self.present(avc, animated: true, completion: nil)` in a `UIViewController`
/// runs unchanged in a subclass of this one.
open class PaysheetHostViewController: NSObject {
    public override init() { super.init() }

    /// Presents the sheet (``PKPaymentAuthorizationViewController/paysheetPresent()``).
    open func present(
        _ viewControllerToPresent: PKPaymentAuthorizationViewController,
        animated flag: Bool,
        completion: (() -> Void)? = nil
    ) {
        _ = viewControllerToPresent.beginPresentation()
        viewControllerToPresent.presentation.callLater { completion?() }
    }

    /// Dismisses what it presented.
    open func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) {
        PaysheetSimulator.shared.record(event: "dismiss(animated:)")
        completion?()
    }
}
