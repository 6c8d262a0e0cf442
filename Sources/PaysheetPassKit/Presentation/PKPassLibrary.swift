import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// The wallet's passes (`PKPassLibrary`): of its API, the simulator keeps what a checkout uses.
open class PKPassLibrary: NSObject, @unchecked Sendable {
    public override init() { super.init() }

    /// Whether the pass library is available (it is, on the simulated device).
    open class func isPassLibraryAvailable() -> Bool { true }

    /// Opens Wallet's screen to add a card: recorded as an event (``PaysheetSimulator/events``).
    open func openPaymentSetup() {
        PaysheetSimulator.shared.record(event: "PKPassLibrary.openPaymentSetup")
    }
}

/// What a payment button says (`PKPaymentButtonType`).
public enum PKPaymentButtonType: Int, Sendable {
    case plain = 0
    case buy = 1
    case setUp = 2
    case inStore = 3
    case donate = 4
    case checkout = 5
    case book = 6
    case subscribe = 7
    case reload = 8
    case addMoney = 9
    case topUp = 10
    case order = 11
    case rent = 12
    case support = 13
    case contribute = 14
    case tip = 15
    case `continue` = 16
}

/// A payment button's colours (`PKPaymentButtonStyle`).
public enum PKPaymentButtonStyle: Int, Sendable {
    case white = 0
    case whiteOutline = 1
    case black = 2
    case automatic = 3
}

/// A payment button (`PKPaymentButton`) as a value: its type and style are kept, nothing is drawn
/// (Paysheet draws no Apple artwork).
open class PKPaymentButton: NSObject, @unchecked Sendable {
    /// What it says.
    public let paymentButtonType: PKPaymentButtonType
    /// Its colours.
    public let paymentButtonStyle: PKPaymentButtonStyle
    /// Its corner radius.
    open var cornerRadius: Double = 4

    /// A button.
    public init(paymentButtonType type: PKPaymentButtonType, paymentButtonStyle style: PKPaymentButtonStyle) {
        self.paymentButtonType = type
        self.paymentButtonStyle = style
        super.init()
    }
}
