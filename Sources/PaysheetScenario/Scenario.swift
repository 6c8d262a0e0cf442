import PaysheetModel
import PaysheetSheet

/// A scenario file (`docs/scenario-format.md`): one payment-sheet session played step by step.
public struct Scenario: Sendable {
    /// What the scenario shows.
    public var name: String
    /// The file it came from.
    public var file: String
    /// The ApplePaySession API version.
    public var version: Int
    /// The request, exactly as a page passes it.
    public var request: JSONValue
    /// The sheet's configuration (wallet and options).
    public var configuration: SheetConfiguration
    /// The steps.
    public var steps: [ScenarioStep]
    /// The steps as written, for transcripts.
    public var rawSteps: [JSONValue] = []
}

/// One step of a scenario.
public enum ScenarioStep: Sendable {
    /// A page call on session `instance` (1-based).
    case page(PageStep, instance: Int)
    /// A user action.
    case user(UserAction)
    /// Virtual seconds pass.
    case wait(Double)
    /// Checks.
    case expect(Expectation)
}

/// The page calls a scenario can make.
public enum PageStep: Sendable {
    case construct(version: Int?, request: JSONValue?, userGesture: Bool)
    case call(PageCall)
    case supportsVersion(Int)
    case canMakePayments
    case canMakePaymentsWithActiveCard
    case openPaymentSetup(userGesture: Bool)
    case newApplePayError([JSONValue])
    case navigate
    /// `new PaymentRequest(methodData, details, options)` (instance: the request's number).
    case newPaymentRequest(methodData: JSONValue, details: JSONValue, options: JSONValue?)
    /// Calls on a `PaymentRequest`, its events or its response, made in one step (`updateWith`
    /// and its promise settling, for example); the step stops at the first exception.
    case request(name: String, [PaymentRequestCall])
}

/// The checks of an `expect` step; `nil` members are not checked.
public struct Expectation: Sendable {
    /// `null` (threw nothing), a name, or `{"name", "message"}`.
    public var threw: JSONValue??
    /// The events since the previous `expect` with `events`.
    public var events: [JSONValue]?
    /// The page-visible session state.
    public var session: String?
    /// A subset of the sheet snapshot.
    public var sheet: JSONValue?
    /// Whether a payment completed with SUCCESS.
    public var paid: Bool?
    /// The value the last page step returned (Paysheet's extension).
    public var returned: JSONValue??
    /// The expectation as written.
    public var raw: JSONValue
}
