import PaysheetModel

/// A call the page makes on an `ApplePaySession`, with its arguments as the page passed them.
public enum PageCall: Sendable, Hashable {
    case begin
    case abort
    case completeMerchantValidation(JSONValue)
    case completePaymentMethodSelection(JSONValue)
    case completeShippingContactSelection(JSONValue)
    case completeShippingMethodSelection(JSONValue)
    case completeCouponCodeChange(JSONValue)
    case completePayment(JSONValue)
    /// The positional (v1/v2) forms: `completePayment(status)`,
    /// `completeShippingMethodSelection(status, newTotal, newLineItems)`, … The method is picked by
    /// name and the overload by argument count and type, as WebKit's binding does.
    case legacy(method: String, arguments: [JSONValue])

    /// The method's name.
    public var name: String {
        switch self {
        case .begin: return "begin"
        case .abort: return "abort"
        case .completeMerchantValidation: return "completeMerchantValidation"
        case .completePaymentMethodSelection: return "completePaymentMethodSelection"
        case .completeShippingContactSelection: return "completeShippingContactSelection"
        case .completeShippingMethodSelection: return "completeShippingMethodSelection"
        case .completeCouponCodeChange: return "completeCouponCodeChange"
        case .completePayment: return "completePayment"
        case .legacy(let m, _): return m
        }
    }
}

/// What the simulated user does on the sheet.
public enum UserAction: Sendable, Hashable {
    case selectPaymentMethod(index: Int)
    case selectShippingContact(index: Int)
    case editShippingContact(ApplePayPaymentContact)
    case editContact(email: String?, phone: String?)
    case selectShippingMethod(identifier: String)
    case enterCouponCode(String)
    case authorize
    case cancel

    /// The action's name in the scenario format.
    public var name: String {
        switch self {
        case .selectPaymentMethod: return "selectPaymentMethod"
        case .selectShippingContact: return "selectShippingContact"
        case .editShippingContact: return "editShippingContact"
        case .editContact: return "editContact"
        case .selectShippingMethod: return "selectShippingMethod"
        case .enterCouponCode: return "enterCouponCode"
        case .authorize: return "authorize"
        case .cancel: return "cancel"
        }
    }
}

/// The outcome of a page call: what it threw or returned, and the events it caused.
public struct PageResult: Sendable, Hashable {
    /// The exception, if the call threw.
    public var threw: ScriptError?
    /// The value returned (e.g. `supportsVersion`'s boolean), if any.
    public var returned: JSONValue?
    /// Events dispatched as a consequence, in order.
    public var events: [DispatchedEvent]

    /// A result.
    public init(threw: ScriptError? = nil, returned: JSONValue? = nil, events: [DispatchedEvent] = []) {
        self.threw = threw
        self.returned = returned
        self.events = events
    }
}
