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
        let members = try binding.dictionary(json)
        // ApplePayDetailsUpdateBase, lexicographic.
        let reload = try binding.optionalDictionary(members, "newAutomaticReloadPaymentRequest").map {
            value throws(ScriptError) in
            try binding.automaticReload(value)
        }
        let deferred = try binding.optionalDictionary(members, "newDeferredPaymentRequest").map {
            value throws(ScriptError) in
            try binding.deferred(value)
        }
        let items = try members["newLineItems"].map { value throws(ScriptError) in try binding.lineItems(value) }
        let contexts = try members["newMultiTokenContexts"].map { value throws(ScriptError) in
            try binding.tokenContexts(value)
        }
        let recurring = try binding.optionalDictionary(members, "newRecurringPaymentRequest").map {
            value throws(ScriptError) in
            try binding.recurring(value)
        }
        guard let totalValue = members["newTotal"] else {
            throw binding.missing(kind.rawValue, "newTotal", "ApplePayLineItem")
        }
        let total = try binding.lineItem(totalValue)
        // Derived members.
        let errors =
            kind == .shippingMethod
            ? nil : try members["errors"].map { value throws(ScriptError) in try binding.errors(value) }
        let methods = try members["newShippingMethods"].map { value throws(ScriptError) in
            try binding.shippingMethods(value)
        }
        var result = ApplePayUpdate(newTotal: total, newLineItems: items, newShippingMethods: methods, errors: errors)
        result.newAutomaticReloadPaymentRequest = reload
        result.newDeferredPaymentRequest = deferred
        result.newMultiTokenContexts = contexts
        result.newRecurringPaymentRequest = recurring
        return result
    }

    /// The checks after the state check: shipping-method amounts, the total, the line items.
    /// Returns the update with pending amounts dropped.
    public func checkUpdate(_ update: ApplePayUpdate, kind: Kind) throws(ScriptError) -> ApplePayUpdate {
        let validator = RequestValidator(profile: profile)
        var checked = update
        if let methods = checked.newShippingMethods { try validator.checkMethodAmounts(methods) }
        if let total = checked.newTotal { checked.newTotal = try validator.checkTotal(total) }
        if let items = checked.newLineItems { checked.newLineItems = try validator.checkLineItems(items) }
        return checked
    }

    /// The WebIDL conversion of `ApplePayPaymentAuthorizationResult`.
    public func bindResult(_ json: JSONValue) throws(ScriptError) -> ApplePayPaymentAuthorizationResult {
        let members = try binding.dictionary(json)
        let errors = try members["errors"].map { value throws(ScriptError) in try binding.errors(value) }
        let details = try orderDetails(members)
        guard let statusValue = members["status"] else {
            throw binding.missing("ApplePayPaymentAuthorizationResult", "status", "unsigned short")
        }
        var result = ApplePayPaymentAuthorizationResult(status: .success, errors: errors, orderDetails: details)
        result.status = binding.unsignedLong(statusValue) & 0xFFFF
        return result
    }

    /// The checks after the state check: the status must be 0…7 (`InvalidAccessError`), the
    /// order details' URL valid; statuses 2–4 gain the error WebKit prepends (§5.2).
    public func checkResult(
        _ result: ApplePayPaymentAuthorizationResult
    ) throws(ScriptError) -> ApplePayPaymentAuthorizationResult {
        guard let status = ApplePayStatus(rawValue: result.status) else { throw .invalidAccess() }
        if let details = result.orderDetails {
            guard let url = URL(string: details.webServiceURL), url.scheme != nil else {
                throw .typeError("\"\(details.webServiceURL)\" is not a valid URL.")
            }
        }
        var checked = result
        let prepended: ApplePayError?
        switch status {
        case .invalidBillingPostalAddress: prepended = ApplePayError(.billingContactInvalid)
        case .invalidShippingPostalAddress:
            prepended = ApplePayError(.shippingContactInvalid, contactField: .postalAddress)
        case .invalidShippingContact: prepended = ApplePayError(.shippingContactInvalid)
        default: prepended = nil
        }
        if let prepended { checked.errors = [prepended] + (checked.errors ?? []) }
        return checked
    }
}

import Foundation
