import PaysheetModel

/// The kinds of event a session dispatches to the page.
public enum SheetEventType: String, Sendable, Hashable, CaseIterable, Codable {
    case validatemerchant, paymentmethodselected, shippingcontactselected, shippingmethodselected
    case couponcodechanged, paymentauthorized, cancel
}

/// Something that reached the page, or a user action the sheet ignored.
public enum SheetEvent: Sendable, Hashable {
    case validateMerchant(validationURL: String)
    case paymentMethodSelected(ApplePayPaymentMethod)
    case shippingContactSelected(ApplePayPaymentContact)
    case shippingMethodSelected(ApplePayShippingMethod)
    case couponCodeChanged(String)
    case paymentAuthorized(ApplePayPayment)
    case cancel(ApplePaySessionError)
    /// A user action the sheet could not take now (not dispatched to the page).
    case ignored(action: String, reason: String)
    /// What a `PaymentRequest` (its number, 1-based) learns: an event to dispatch, or its
    /// `show()` (or `retry()`) promise settled.
    case paymentRequest(request: Int, PaymentRequestEvent)

    /// The event's `type` string.
    public var type: String {
        switch self {
        case .validateMerchant: return "validatemerchant"
        case .paymentMethodSelected: return "paymentmethodselected"
        case .shippingContactSelected: return "shippingcontactselected"
        case .shippingMethodSelected: return "shippingmethodselected"
        case .couponCodeChanged: return "couponcodechanged"
        case .paymentAuthorized: return "paymentauthorized"
        case .cancel: return "cancel"
        case .ignored: return "ignored"
        case .paymentRequest(_, let request): return request.type
        }
    }

    /// The event as the scenario format writes it.
    public var json: JSONValue {
        var members = JSONObject()
        members["type"] = .string(type)
        switch self {
        case .validateMerchant(let url): members["validationURL"] = .string(url)
        case .paymentMethodSelected(let method): members["paymentMethod"] = method.jsonValue
        case .shippingContactSelected(let contact): members["shippingContact"] = contact.jsonValue
        case .shippingMethodSelected(let method): members["shippingMethod"] = method.jsonValue
        case .couponCodeChanged(let code): members["couponCode"] = .string(code)
        case .paymentAuthorized(let payment): members["payment"] = payment.jsonValue
        case .cancel(let error): members["sessionError"] = error.jsonValue
        case .ignored(let action, let reason):
            members["action"] = .string(action)
            members["reason"] = .string(reason)
        case .paymentRequest(let number, let request):
            members["paymentRequest"] = .number(String(number))
            for (key, value) in request.members { members[key] = value }
        }
        return .object(members)
    }
}

/// An event with the session it was dispatched to (1-based, in construction order).
public struct DispatchedEvent: Sendable, Hashable {
    /// The session.
    public var session: Int
    /// The event.
    public var event: SheetEvent
}
