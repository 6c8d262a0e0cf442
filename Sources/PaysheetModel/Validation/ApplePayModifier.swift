import Foundation

/// `ApplePayModifier`: the Apple Pay data of a `PaymentDetailsModifier` (WebKit's
/// `ApplePayModifier.idl`), converted and checked as `ApplePayPaymentHandler` does.
public struct ApplePayModifier: Sendable, Hashable {
    /// The kind of card it applies to; `nil` = whatever card is selected.
    public var paymentMethodType: ApplePayPaymentMethodType?
    /// The total that replaces the details' total (in updates).
    public var total: ApplePayLineItem?
    /// Lines added after the details' display items.
    public var additionalLineItems: [ApplePayLineItem] = []
    /// Shipping methods added after the details' shipping options.
    public var additionalShippingMethods: [ApplePayShippingMethod] = []
    public var recurringPaymentRequest: ApplePayRecurringPaymentRequest?
    public var automaticReloadPaymentRequest: ApplePayAutomaticReloadPaymentRequest?
    public var multiTokenContexts: [ApplePayPaymentTokenContext]?
    public var deferredPaymentRequest: ApplePayDeferredPaymentRequest?
    public var disbursementRequest: ApplePayDisbursementRequest?

    public init() {}
}

extension PaymentRequestBinding {
    /// A modifier's `data` as an `ApplePayModifier`: the binding's `TypeError`s (members in
    /// lexicographic order), then `ApplePayPaymentHandler::validate(ApplePayModifier)`'s.
    public func applePayModifier(_ data: JSONValue) throws(ScriptError) -> ApplePayModifier {
        let members = try binding.dictionary(data)
        var modifier = ApplePayModifier()
        modifier.additionalLineItems =
            try members["additionalLineItems"].map { value throws(ScriptError) in
                try binding.lineItems(value)
            } ?? []
        modifier.additionalShippingMethods =
            try members["additionalShippingMethods"].map { value throws(ScriptError) in
                try binding.shippingMethods(value)
            } ?? []
        modifier.automaticReloadPaymentRequest = try binding.optionalDictionary(
            members,
            "automaticReloadPaymentRequest"
        ).map { value throws(ScriptError) in try binding.automaticReload(value) }
        modifier.deferredPaymentRequest = try binding.optionalDictionary(members, "deferredPaymentRequest").map {
            value throws(ScriptError) in
            var deferred = try binding.deferred(value)
            // A modifier's data reaches WebKit as JSON: a `Date` member that is not a date's text
            // is dropped by the date parser, not refused.
            if let date = deferred.freeCancellationDate, !Self.isJSONDate(date) { deferred.freeCancellationDate = nil }
            return deferred
        }
        modifier.disbursementRequest = try binding.optionalDictionary(members, "disbursementRequest").map {
            value throws(ScriptError) in try binding.disbursement(value)
        }
        modifier.multiTokenContexts = try members["multiTokenContexts"].map { value throws(ScriptError) in
            try binding.tokenContexts(value)
        }
        modifier.paymentMethodType = try members["paymentMethodType"].map { value throws(ScriptError) in
            try binding.enumeration(value, ApplePayPaymentMethodType.self)
        }
        modifier.recurringPaymentRequest = try binding.optionalDictionary(members, "recurringPaymentRequest").map {
            value throws(ScriptError) in try binding.recurring(value)
        }
        modifier.total = try members["total"].map { value throws(ScriptError) in try binding.lineItem(value) }

        var kinds = ApplePayPaymentRequest(
            countryCode: "",
            currencyCode: "",
            supportedNetworks: [],
            merchantCapabilities: [],
            total: ApplePayLineItem(label: nil, amount: nil)
        )
        kinds.recurringPaymentRequest = modifier.recurringPaymentRequest
        kinds.automaticReloadPaymentRequest = modifier.automaticReloadPaymentRequest
        kinds.multiTokenContexts = modifier.multiTokenContexts
        kinds.deferredPaymentRequest = modifier.deferredPaymentRequest
        try RequestValidator(profile: profile).checkPaymentKinds(kinds)
        return modifier
    }

    /// Whether `text` is a date as `JSON.stringify` writes one (ISO 8601, UTC).
    static func isJSONDate(_ text: String) -> Bool {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if formatter.date(from: text) != nil { return true }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text) != nil
    }

    /// `firstApplicableModifier`: the first Apple Pay modifier with data whose type is unset or
    /// the selected card's. Every modifier before it is checked, applicable or not.
    public func firstApplicableModifier(
        _ details: PaymentDetails,
        selectedType: ApplePayPaymentMethodType?
    ) throws(ScriptError) -> (PaymentDetailsModifier, ApplePayModifier)? {
        for modifier in details.modifiers where Self.isApplePay(modifier.supportedMethods) {
            guard let data = modifier.data else { continue }
            let applePay = try applePayModifier(data)
            if let type = applePay.paymentMethodType, type != selectedType { continue }
            return (modifier, applePay)
        }
        return nil
    }
}
