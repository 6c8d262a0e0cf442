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
        case .paymentRequest(_, let e): return e.type
        }
    }

    /// The event as the scenario format writes it.
    public var json: JSONValue {
        var o = JSONObject()
        o["type"] = .string(type)
        switch self {
        case .validateMerchant(let url): o["validationURL"] = .string(url)
        case .paymentMethodSelected(let m): o["paymentMethod"] = m.jsonValue
        case .shippingContactSelected(let c): o["shippingContact"] = c.jsonValue
        case .shippingMethodSelected(let m): o["shippingMethod"] = m.jsonValue
        case .couponCodeChanged(let c): o["couponCode"] = .string(c)
        case .paymentAuthorized(let p): o["payment"] = p.jsonValue
        case .cancel(let e): o["sessionError"] = e.jsonValue
        case .ignored(let action, let reason):
            o["action"] = .string(action)
            o["reason"] = .string(reason)
        case .paymentRequest(let n, let e):
            o["paymentRequest"] = .number(String(n))
            for (k, v) in e.members { o[k] = v }
        }
        return .object(o)
    }
}

/// An event with the session it was dispatched to (1-based, in construction order).
public struct DispatchedEvent: Sendable, Hashable {
    /// The session.
    public var session: Int
    /// The event.
    public var event: SheetEvent
}
