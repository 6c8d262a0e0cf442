import Foundation

/// Validates a page's payment request exactly as Safari's `ApplePaySession` constructor does:
/// the WebIDL conversion first (``WebIDLBinding``), then WebKit's `ApplePayRequestBase` and
/// `ApplePaySession` checks and `PaymentRequestValidator`, in WebKit's order, with WebKit's
/// exception kinds and messages (WebKit's `ApplePayPaymentRequest` binding and `PaymentRequestValidator`).
public struct RequestValidator: Sendable {
    /// The Safari whose rules apply.
    public var profile: SafariProfile

    /// A validator for `profile`.
    public init(profile: SafariProfile = .current) { self.profile = profile }

    var binding: WebIDLBinding { WebIDLBinding(profile: profile) }

    /// The WebIDL conversion of the constructor's arguments: the `TypeError`s a page gets before
    /// any other check (including the user-gesture check).
    public func bind(_ json: JSONValue) throws(ScriptError) -> ApplePayPaymentRequest {
        let b = binding
        let o = try b.dictionary(json)
        let d = "ApplePayPaymentRequest"
        var r = try bindBase(o, dictionary: d)
        // ApplePayPaymentRequest members, lexicographic order.
        r.automaticReloadPaymentRequest = try b.optionalDictionary(o, "automaticReloadPaymentRequest").map {
            v throws(ScriptError) in try b.automaticReload(v)
        }
        guard let cur = o["currencyCode"] else { throw b.missing(d, "currencyCode", "DOMString") }
        r.currencyCode = b.string(cur)
        r.deferredPaymentRequest = try b.optionalDictionary(o, "deferredPaymentRequest").map { v throws(ScriptError) in
            try b.deferred(v)
        }
        r.lineItems = try o["lineItems"].map { v throws(ScriptError) in try b.lineItems(v) }
        r.multiTokenContexts = try o["multiTokenContexts"].map { v throws(ScriptError) in try b.tokenContexts(v) }
        r.recurringPaymentRequest = try b.optionalDictionary(o, "recurringPaymentRequest").map {
            v throws(ScriptError) in try b.recurring(v)
        }
        r.shippingMethods = try o["shippingMethods"].map { v throws(ScriptError) in try b.shippingMethods(v) }
        r.shippingType = try o["shippingType"].map { v throws(ScriptError) in
            try b.enumeration(v, ApplePayShippingType.self)
        }
        guard let totalValue = o["total"] else { throw b.missing(d, "total", "ApplePayLineItem") }
        r.total = try b.lineItem(totalValue)
        return r
    }

    /// The `ApplePayRequestBase` members of dictionary `d` (lexicographic order, as WebKit's
    /// binding converts them), in a request whose own members are still empty.
    func bindBase(_ o: JSONObject, dictionary d: String) throws(ScriptError) -> ApplePayPaymentRequest {
        let b = binding
        let later = try o["applePayLaterAvailability"].map { v throws(ScriptError) in
            try b.enumeration(v, ApplePayLaterAvailability.self)
        }
        let applicationData = o["applicationData"].map(b.string)
        let billingContact = try b.optionalDictionary(o, "billingContact").map { v throws(ScriptError) in
            try b.contact(.object(v))
        }
        let couponCode = b.optionalString(o, "couponCode")
        guard let cc = o["countryCode"] else { throw b.missing(d, "countryCode", "DOMString") }
        let countryCode = b.string(cc)
        let features = try o["features"].map { v throws(ScriptError) in try b.sequence(v).map(b.string) }
        let installment = try o["installmentConfiguration"].flatMap { $0.isNull ? nil : $0 }
            .map { v throws(ScriptError) in try b.installmentConfiguration(v) }
        guard let caps = o["merchantCapabilities"] else { throw b.missing(d, "merchantCapabilities", "sequence") }
        var capabilities: [ApplePayMerchantCapability] = []
        for c in try b.sequence(caps) { capabilities.append(try b.enumeration(c, ApplePayMerchantCapability.self)) }
        let mcc = b.optionalString(o, "merchantCategoryCode")
        let billingFields = try o["requiredBillingContactFields"].map { v throws(ScriptError) in try b.contactFields(v)
        }
        let shippingFields = try o["requiredShippingContactFields"].map { v throws(ScriptError) in
            try b.contactFields(v)
        }
        let shippingContact = try b.optionalDictionary(o, "shippingContact").map { v throws(ScriptError) in
            try b.contact(.object(v))
        }
        let editing = try o["shippingContactEditingMode"].map { v throws(ScriptError) in
            try b.enumeration(v, ApplePayShippingContactEditingMode.self)
        }
        let countries = try o["supportedCountries"].map { v throws(ScriptError) in try b.sequence(v).map(b.string) }
        guard let nets = o["supportedNetworks"] else { throw b.missing(d, "supportedNetworks", "sequence") }
        let networks = try b.sequence(nets).map(b.string)
        let supportsCoupon = o["supportsCouponCode"].map(b.boolean)

        var r = ApplePayPaymentRequest(
            countryCode: countryCode,
            currencyCode: "",
            supportedNetworks: networks,
            merchantCapabilities: capabilities,
            total: ApplePayLineItem(label: nil, amount: nil)
        )
        r.applePayLaterAvailability = later
        r.applicationData = applicationData
        r.billingContact = billingContact
        r.couponCode = couponCode
        r.features = features
        r.installmentConfiguration = installment
        r.merchantCategoryCode = mcc
        r.requiredBillingContactFields = billingFields
        r.requiredShippingContactFields = shippingFields
        r.shippingContact = shippingContact
        r.shippingContactEditingMode = editing
        r.supportedCountries = countries
        r.supportsCouponCode = supportsCoupon
        return r
    }

    /// Safari's checks after conversion (`ApplePaySession::create`, step 4 onwards). Returns the
    /// request as Safari stores it: networks in canonical spelling, pending amounts dropped,
    /// `supportedCountries` dropped below version 3, phonetic names dropped below version 3.
    public func check(_ request: ApplePayPaymentRequest, version: Int) throws(ScriptError) -> ApplePayPaymentRequest {
        var r = try checkBase(request, version: version)
        try checkSessionMembers(&r)
        try checkPaymentRequestValidator(r)
        return r
    }

    /// `ApplePayRequestBase`'s checks (the version, capabilities, networks, contact fields), shared
    /// by `ApplePaySession` and the Payment Request API's Apple Pay method.
    func checkBase(_ request: ApplePayPaymentRequest, version: Int) throws(ScriptError) -> ApplePayPaymentRequest {
        var r = request
        if version == 0 || version > profile.currentAPIVersion {
            throw .invalidAccess("\"\(version)\" is not a supported version.")
        }
        if r.merchantCapabilities.isEmpty { throw .typeError("At least one merchant capability must be provided.") }
        if r.supportedNetworks.isEmpty, !(version >= 8 && r.installmentConfiguration != nil) {
            throw .typeError("At least one supported network must be provided.")
        }
        var canonical: [String] = []
        for n in r.supportedNetworks {
            guard let c = PaymentNetwork.canonical(n, version: version, profile: profile) else {
                throw .typeError("\"\(n)\" is not a valid payment network.")
            }
            canonical.append(c)
        }
        r.supportedNetworks = canonical
        if let f = r.requiredBillingContactFields { try checkContactFields(f, version: version) }
        if version < 3 { r.billingContact = r.billingContact.map(Self.withoutPhonetics) }
        if let f = r.requiredShippingContactFields { try checkContactFields(f, version: version) }
        if version < 3 { r.shippingContact = r.shippingContact.map(Self.withoutPhonetics) }
        if version < 3 { r.supportedCountries = nil }
        return r
    }

    /// `ApplePaySession::convertAndValidate`: the amounts and the payment kinds of version 14.
    func checkSessionMembers(_ r: inout ApplePayPaymentRequest) throws(ScriptError) {
        r.total = try checkTotal(r.total)
        if let items = r.lineItems { r.lineItems = try checkLineItems(items) }
        if let methods = r.shippingMethods { try checkMethodAmounts(methods) }
        if let rec = r.recurringPaymentRequest {
            _ = try checkBilling(rec.regularBilling, name: "regularBilling", timing: .recurring)
            if let trial = rec.trialBilling { _ = try checkBilling(trial, name: "trialBilling", timing: .recurring) }
            try checkURL(rec.managementURL)
            if let t = rec.tokenNotificationURL { try checkURL(t) }
        }
        if let rel = r.automaticReloadPaymentRequest {
            _ = try checkBilling(rel.automaticReloadBilling, name: "automaticReloadBilling", timing: .automaticReload)
            let t = rel.automaticReloadBilling.automaticReloadPaymentThresholdAmount ?? ""
            if !isValidAmount(t) { throw .typeError("\"\(t)\" is not a valid automaticReloadPaymentThresholdAmount.") }
            try checkURL(rel.managementURL)
            if let t = rel.tokenNotificationURL { try checkURL(t) }
        }
        if let contexts = r.multiTokenContexts {
            for c in contexts where !isValidAmount(c.amount) {
                throw .typeError("\"\(c.amount)\" is not a valid amount.")
            }
        }
        if let def = r.deferredPaymentRequest {
            _ = try checkBilling(def.deferredBilling, name: "deferredBilling", timing: .deferred)
            try checkURL(def.managementURL)
            if def.freeCancellationDate == nil, let z = def.freeCancellationDateTimeZone, !z.isEmpty {
                throw .typeError("Unexpected 'freeCancellationDateTimeZone' when 'freeCancellationDate' is not set.")
            }
            if def.freeCancellationDate != nil {
                let z = def.freeCancellationDateTimeZone ?? ""
                if z.isEmpty {
                    throw .typeError("Missing 'freeCancellationDateTimeZone' when 'freeCancellationDate' is set.")
                }
                if TimeZone(identifier: z) == nil { throw .typeError("\"\(z)\" is not a valid time zone.") }
            }
            if def.paymentDescription.isEmpty { throw .typeError("Missing 'paymentDescription'.") }
            if let t = def.tokenNotificationURL { try checkURL(t) }
        }
    }

    /// WebKit's `PaymentRequestValidator::validate`, the last checks of both APIs.
    func checkPaymentRequestValidator(_ r: ApplePayPaymentRequest) throws(ScriptError) {
        if !ISOCodes.countryCodes.contains(r.countryCode) {
            throw .typeError("\"\(r.countryCode)\" is not a valid country code.")
        }
        if !ISOCodes.currencyCodes.contains(r.currencyCode) {
            throw .typeError("\"\(r.currencyCode)\" is not a valid currency code.")
        }
        if r.supportedNetworks.isEmpty, r.installmentConfiguration == nil {
            throw .typeError("Missing supported networks.")
        }
        if !r.merchantCapabilities.contains(where: {
            [.supports3DS, .supportsEMV, .supportsCredit, .supportsDebit].contains($0)
        }) {
            throw .typeError("Missing merchant capabilities.")
        }
        _ = try checkTotal(r.total)
        for m in r.shippingMethods ?? [] {
            if let v = AmountGrammar.value(m.amount), v <= -1 {
                throw .typeError("Shipping method amount must be greater than or equal to zero.")
            }
        }
        for c in r.supportedCountries ?? [] where !ISOCodes.countryCodes.contains(c) {
            throw .typeError("\"\(c)\" is not a valid country code.")
        }
    }

    /// Both phases: what `new ApplePaySession(version, request)` does to a page's value, minus the
    /// user-gesture and secure-context checks, which the caller owns.
    public func validate(_ json: JSONValue, version: Int) throws(ScriptError) -> ApplePayPaymentRequest {
        try check(try bind(json), version: version)
    }

    /// Validates a request built in Swift, through the same path as a page's JSON.
    public func validate(_ request: ApplePayPaymentRequest, version: Int) throws(ScriptError) -> ApplePayPaymentRequest
    {
        try validate(request.jsonValue, version: version)
    }

    // MARK: Pieces shared with the update validator

    func isValidAmount(_ text: String) -> Bool {
        AmountGrammar.isValid(text, maxFractionDigits: profile.allowsLongFractions ? nil : 2)
    }

    /// The grammar check then `validateTotal`.
    func checkTotal(_ total: ApplePayLineItem) throws(ScriptError) -> ApplePayLineItem {
        let amount = total.amount ?? ""
        if !isValidAmount(amount) { throw .typeError("\"\(amount)\" is not a valid amount.") }
        if total.label == nil { throw .typeError("Missing total label.") }
        guard let value = AmountGrammar.value(amount) else { throw .typeError("Missing total amount.") }
        if profile.rejectsZeroTotal {
            if value <= 0 { throw .typeError("Total amount must be greater than zero.") }
        } else if value < 0 {
            throw .typeError("Total amount must not be negative.")
        }
        if let max = profile.maximumTotal, value > max { throw .typeError("Total amount is too big.") }
        return total
    }

    /// Pending items lose their amount; other amounts must match the grammar.
    func checkLineItems(_ items: [ApplePayLineItem]) throws(ScriptError) -> [ApplePayLineItem] {
        var out = items
        for i in out.indices {
            if out[i].isPending {
                out[i].amount = nil
                continue
            }
            let a = out[i].amount ?? ""
            if !isValidAmount(a) { throw .typeError("\"\(a)\" is not a valid amount.") }
        }
        return out
    }

    func checkMethodAmounts(_ methods: [ApplePayShippingMethod]) throws(ScriptError) {
        for m in methods where !isValidAmount(m.amount) { throw .typeError("\"\(m.amount)\" is not a valid amount.") }
    }

    private func checkBilling(
        _ item: ApplePayLineItem,
        name: String,
        timing: ApplePayPaymentTiming
    ) throws(ScriptError) -> ApplePayLineItem {
        let article = timing == .automaticReload ? "an" : "a"
        if (item.paymentTiming ?? .immediate) != timing {
            throw .typeError("'\(name)' must be \(article) '\(timing.rawValue)' line item.")
        }
        if item.label == nil { throw .typeError("Missing label for '\(name)'.") }
        if !item.isPending {
            let a = item.amount ?? ""
            if !isValidAmount(a) { throw .typeError("\"\(a)\" is not a valid amount.") }
        }
        return item
    }

    private func checkURL(_ text: String) throws(ScriptError) {
        guard let u = URL(string: text), let scheme = u.scheme, !scheme.isEmpty,
            text.range(of: "^[A-Za-z][A-Za-z0-9+.-]*:", options: .regularExpression) != nil
        else { throw .typeError("\"\(text)\" is not a valid URL.") }
    }

    private func checkContactFields(_ fields: [ApplePayContactField], version: Int) throws(ScriptError) {
        if fields.isEmpty, profile.rejectsEmptyContactFields {
            throw .typeError("At least one contact field must be provided.")
        }
        if version < 3, fields.contains(.phoneticName) {
            throw .typeError("\"phoneticName\" is not a valid contact field.")
        }
    }

    static func withoutPhonetics(_ c: ApplePayPaymentContact) -> ApplePayPaymentContact {
        var c = c
        c.phoneticGivenName = nil
        c.phoneticFamilyName = nil
        return c
    }
}
