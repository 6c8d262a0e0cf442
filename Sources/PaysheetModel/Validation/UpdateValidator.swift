/// Converts and checks what the page passes to the `complete*` methods, as Safari does
/// (WebKit's `ApplePaySession` completion checks). Conversion (``bindUpdate(_:kind:)``) happens before the
/// session's state check, the semantic checks (``checkUpdate(_:kind:)``) after it; a failed
/// check leaves the session unchanged.
public struct UpdateValidator: Sendable {
    /// Which completion an update is for.
    public enum Kind: String, Sendable, CaseIterable {
        /// `completeShippingContactSelection`.
        case shippingContact = "ApplePayShippingContactUpdate"
        /// `completeShippingMethodSelection`.
        case shippingMethod = "ApplePayShippingMethodUpdate"
        /// `completePaymentMethodSelection`.
        case paymentMethod = "ApplePayPaymentMethodUpdate"
        /// `completeCouponCodeChange`.
        case couponCode = "ApplePayCouponCodeUpdate"
    }

    /// The Safari whose rules apply.
    public var profile: SafariProfile

    /// A validator.
    public init(profile: SafariProfile = .current) { self.profile = profile }

    var binding: WebIDLBinding { WebIDLBinding(profile: profile) }

    /// The WebIDL conversion of an update dictionary.
    public func bindUpdate(_ json: JSONValue, kind: Kind) throws(ScriptError) -> ApplePayUpdate {
        let b = binding
        let o = try b.dictionary(json)
        // ApplePayDetailsUpdateBase, lexicographic.
        let reload = try b.optionalDictionary(o, "newAutomaticReloadPaymentRequest").map { v throws(ScriptError) in
            try b.automaticReload(v)
        }
        let deferred = try b.optionalDictionary(o, "newDeferredPaymentRequest").map { v throws(ScriptError) in
            try b.deferred(v)
        }
        let items = try o["newLineItems"].map { v throws(ScriptError) in try b.lineItems(v) }
        let contexts = try o["newMultiTokenContexts"].map { v throws(ScriptError) in try b.tokenContexts(v) }
        let recurring = try b.optionalDictionary(o, "newRecurringPaymentRequest").map { v throws(ScriptError) in
            try b.recurring(v)
        }
        guard let t = o["newTotal"] else { throw b.missing(kind.rawValue, "newTotal", "ApplePayLineItem") }
        let total = try b.lineItem(t)
        // Derived members.
        let errors = kind == .shippingMethod ? nil : try o["errors"].map { v throws(ScriptError) in try b.errors(v) }
        let methods = try o["newShippingMethods"].map { v throws(ScriptError) in try b.shippingMethods(v) }
        var u = ApplePayUpdate(newTotal: total, newLineItems: items, newShippingMethods: methods, errors: errors)
        u.newAutomaticReloadPaymentRequest = reload
        u.newDeferredPaymentRequest = deferred
        u.newMultiTokenContexts = contexts
        u.newRecurringPaymentRequest = recurring
        return u
    }

    /// The checks after the state check: shipping-method amounts, the total, the line items.
    /// Returns the update with pending amounts dropped.
    public func checkUpdate(_ update: ApplePayUpdate, kind: Kind) throws(ScriptError) -> ApplePayUpdate {
        let v = RequestValidator(profile: profile)
        var u = update
        if let m = u.newShippingMethods { try v.checkMethodAmounts(m) }
        if let t = u.newTotal { u.newTotal = try v.checkTotal(t) }
        if let items = u.newLineItems { u.newLineItems = try v.checkLineItems(items) }
        return u
    }

    /// The WebIDL conversion of `ApplePayPaymentAuthorizationResult`.
    public func bindResult(_ json: JSONValue) throws(ScriptError) -> ApplePayPaymentAuthorizationResult {
        let b = binding
        let o = try b.dictionary(json)
        let errors = try o["errors"].map { v throws(ScriptError) in try b.errors(v) }
        var details: ApplePayPaymentOrderDetails?
        if let d = try b.optionalDictionary(o, "orderDetails") {
            let n = "ApplePayPaymentOrderDetails"
            let token = try b.requiredString(d, "authenticationToken", dictionary: n)
            let id = try b.requiredString(d, "orderIdentifier", dictionary: n)
            let type = try b.requiredString(d, "orderTypeIdentifier", dictionary: n)
            let url = try b.requiredString(d, "webServiceURL", dictionary: n)
            details = ApplePayPaymentOrderDetails(
                orderTypeIdentifier: type,
                orderIdentifier: id,
                webServiceURL: url,
                authenticationToken: token
            )
        }
        guard let s = o["status"] else {
            throw b.missing("ApplePayPaymentAuthorizationResult", "status", "unsigned short")
        }
        var r = ApplePayPaymentAuthorizationResult(status: .success, errors: errors, orderDetails: details)
        r.status = b.unsignedLong(s) & 0xFFFF
        return r
    }

    /// The checks after the state check: the status must be 0…7 (`InvalidAccessError`), the
    /// order details' URL valid; statuses 2–4 gain the error WebKit prepends (§5.2).
    public func checkResult(
        _ result: ApplePayPaymentAuthorizationResult
    ) throws(ScriptError) -> ApplePayPaymentAuthorizationResult {
        guard let status = ApplePayStatus(rawValue: result.status) else { throw .invalidAccess() }
        if let d = result.orderDetails {
            guard let u = URL(string: d.webServiceURL), u.scheme != nil else {
                throw .typeError("\"\(d.webServiceURL)\" is not a valid URL.")
            }
        }
        var r = result
        let prepended: ApplePayError?
        switch status {
        case .invalidBillingPostalAddress: prepended = ApplePayError(.billingContactInvalid)
        case .invalidShippingPostalAddress:
            prepended = ApplePayError(.shippingContactInvalid, contactField: .postalAddress)
        case .invalidShippingContact: prepended = ApplePayError(.shippingContactInvalid)
        default: prepended = nil
        }
        if let prepended { r.errors = [prepended] + (r.errors ?? []) }
        return r
    }
}

import Foundation
