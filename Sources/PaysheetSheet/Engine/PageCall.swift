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
    case legacy(method: Method, arguments: [JSONValue])

    /// The `ApplePaySession` methods a page calls, by name: the one table from names to calls that
    /// the browser bridge and the scenario format both read.
    public enum Method: String, Sendable, CaseIterable {
        case begin, abort, completeMerchantValidation, completePaymentMethodSelection, completeShippingContactSelection
        case completeShippingMethodSelection, completeCouponCodeChange, completePayment

        /// Whether the method has positional overloads (API versions 1 and 2).
        public var hasPositionalForm: Bool {
            switch self {
            case .completePayment, .completePaymentMethodSelection, .completeShippingMethodSelection,
                .completeShippingContactSelection:
                return true
            case .begin, .abort, .completeMerchantValidation, .completeCouponCodeChange:
                return false
            }
        }
    }

    /// The method called.
    public var method: Method {
        switch self {
        case .begin: return .begin
        case .abort: return .abort
        case .completeMerchantValidation: return .completeMerchantValidation
        case .completePaymentMethodSelection: return .completePaymentMethodSelection
        case .completeShippingContactSelection: return .completeShippingContactSelection
        case .completeShippingMethodSelection: return .completeShippingMethodSelection
        case .completeCouponCodeChange: return .completeCouponCodeChange
        case .completePayment: return .completePayment
        case .legacy(let method, _): return method
        }
    }

    /// The method's name.
    public var name: String { method.rawValue }

    /// The call of `method` with one dictionary argument (`update`, `result`, the merchant session),
    /// as the scenario format names it; `begin` and `abort` take none.
    public init(_ method: Method, argument: JSONValue) {
        switch method {
        case .begin: self = .begin
        case .abort: self = .abort
        case .completeMerchantValidation: self = .completeMerchantValidation(argument)
        case .completePaymentMethodSelection: self = .completePaymentMethodSelection(argument)
        case .completeShippingContactSelection: self = .completeShippingContactSelection(argument)
        case .completeShippingMethodSelection: self = .completeShippingMethodSelection(argument)
        case .completeCouponCodeChange: self = .completeCouponCodeChange(argument)
        case .completePayment: self = .completePayment(argument)
        }
    }

    /// The call of `method` with the arguments as a page passed them, or `nil` when they are too few
    /// for any of its forms (the page then gets "Not enough arguments").
    public init?(_ method: Method, arguments: [JSONValue]) {
        if method.hasPositionalForm {
            guard !arguments.isEmpty else { return nil }
            self = .legacy(method: method, arguments: arguments)
            return
        }
        switch method {
        case .begin, .abort:
            self.init(method, argument: .null)
        default:
            guard let first = arguments.first else { return nil }
            self.init(method, argument: first)
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
