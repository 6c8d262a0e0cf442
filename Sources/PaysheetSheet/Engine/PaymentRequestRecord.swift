import PaysheetModel

/// One `PaymentRequest` of the page: what its constructor kept and where it stands (WebKit's
/// `PaymentRequest` and `PaymentResponse` states).
struct PaymentRequestRecord: Sendable {
    enum State: String, Sendable { case created, interactive, closed }

    var methods: [PaymentMethodData]
    var details: PaymentDetails
    var options: PaymentOptions
    var shippingOption: String?
    var state: State = .created
    /// The engine session (0-based) the request showed.
    var session: Int?
    /// The selection event the page was told of and has not answered (`updateWith`) yet.
    var awaitingUpdate: UpdateValidator.Kind?
    /// Whether `updateWith` was called and its promise has not settled.
    var updating = false
    /// The user canceled while an update was pending: abort once it settles.
    var cancelPending = false
    /// The kind of card selected last (for the modifiers).
    var selectedType: ApplePayPaymentMethodType?
    /// A payment method WebKit's mock chose while an update was pending, for when it settles.
    var deferredMethodChange: ApplePayPaymentMethod?
    /// `show(detailsPromise)`'s promise has not settled yet: the page's events wait for it.
    var showDetails = false
    /// The mock's shipping contact, held until `show()`'s details settle.
    var heldShippingContact = false
    /// Whether the merchant-validation event's `complete()` was called.
    var merchantValidationCompleted = false
    /// The response's state: none yet, waiting for `complete()`/`retry()`, retrying, completed.
    var response: ResponseState = .none

    enum ResponseState: String, Sendable { case none, open, retrying, completed, closed }
}

/// What a `PaymentRequest` learns from the sheet.
public enum PaymentRequestEvent: Sendable, Hashable {
    /// `merchantvalidation` (`MerchantValidationEvent`).
    case merchantValidation(validationURL: String)
    /// `shippingaddresschange`; the request's `shippingAddress` is now this `PaymentAddress`.
    case shippingAddressChange(JSONValue)
    /// `shippingoptionchange`; the request's `shippingOption` is now this identifier.
    case shippingOptionChange(String)
    /// `paymentmethodchange` (`PaymentMethodChangeEvent`, its `methodDetails`).
    case paymentMethodChange(ApplePayPaymentMethod)
    /// A coupon code entered: `paymentmethodchange` whose details are `{couponCode}`.
    case couponCodeChange(String)
    /// The user authorized: `show()` resolves (or a pending `retry()`) with this `PaymentResponse`.
    case accepted(JSONValue)
    /// `show()` (or a pending `retry()`) rejects with this exception.
    case rejected(ScriptError)

    /// The event's `type`.
    public var type: String {
        switch self {
        case .merchantValidation: return "merchantvalidation"
        case .shippingAddressChange: return "shippingaddresschange"
        case .shippingOptionChange: return "shippingoptionchange"
        case .paymentMethodChange, .couponCodeChange: return "paymentmethodchange"
        case .accepted: return "accepted"
        case .rejected: return "rejected"
        }
    }

    var members: JSONObject {
        var members = JSONObject()
        members["type"] = .string(type)
        switch self {
        case .merchantValidation(let url):
            members["validationURL"] = .string(url)
            members["methodName"] = .string(PaymentRequestBinding.applePayMethod)
        case .shippingAddressChange(let address): members["shippingAddress"] = address
        case .shippingOptionChange(let id): members["shippingOption"] = .string(id)
        case .paymentMethodChange(let method):
            members["methodName"] = .string(PaymentRequestBinding.applePayMethod)
            members["methodDetails"] = method.jsonValue
        case .couponCodeChange(let code):
            members["methodName"] = .string(PaymentRequestBinding.applePayMethod)
            members["methodDetails"] = ["couponCode": .string(code)]
        case .accepted(let response): members["response"] = response
        case .rejected(let error): members["error"] = error.json
        }
        return members
    }
}

/// A call the page makes on a `PaymentRequest`, its events or its `PaymentResponse`.
public enum PaymentRequestCall: Sendable, Hashable {
    /// `show()`; `userGesture` says whether the page is handling a user gesture.
    case show(userGesture: Bool)
    /// `show(detailsPromise)` was given a promise: it settles through `detailsSettled`.
    case showDetailsPending
    /// `abort()`.
    case abort
    /// `canMakePayment()`.
    case canMakePayment
    /// `MerchantValidationEvent.complete(promise)`, when called.
    case completeMerchantValidation
    /// That promise settled: with the merchant session, or rejected (`nil`).
    case merchantSessionSettled(JSONValue?)
    /// `ApplePayMerchantValidationEvent.complete(merchantSession)` of WebKit's first Payment Request
    /// support (the `applepayvalidatemerchant` event, 2017–2018): the session itself, checked at once.
    case completeMerchantValidationNow(JSONValue)
    /// `PaymentRequestUpdateEvent.updateWith(promise)`, when called.
    case updateWith
    /// That promise settled: with the `PaymentDetailsUpdate`, or rejected (`nil`).
    case detailsSettled(JSONValue?)
    /// The event was dispatched and no listener called `updateWith`.
    case notUpdated
    /// `PaymentResponse.complete(result)` (`nil`: no argument).
    case complete(JSONValue?)
    /// `PaymentResponse.complete(result, details)` with its second argument (`PaymentCompleteDetails`,
    /// whose `data` carries `ApplePayPaymentCompleteDetails`: the order details for Wallet).
    case completeWithDetails(JSONValue?, details: JSONValue)
    /// `PaymentResponse.retry(errors)` (`nil`: no argument).
    case retry(JSONValue?)
}
