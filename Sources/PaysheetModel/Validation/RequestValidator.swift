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
        let members = try binding.dictionary(json)
        let dictionaryName = "ApplePayPaymentRequest"
        var request = try bindBase(members, dictionary: dictionaryName)
        // ApplePayPaymentRequest members, lexicographic order.
        request.automaticReloadPaymentRequest = try binding.optionalDictionary(members, "automaticReloadPaymentRequest")
            .map {
                value throws(ScriptError) in try binding.automaticReload(value)
            }
        guard let cur = members["currencyCode"] else {
            throw binding.missing(dictionaryName, "currencyCode", "DOMString")
        }
        request.currencyCode = binding.string(cur)
        request.deferredPaymentRequest = try binding.optionalDictionary(members, "deferredPaymentRequest").map {
            value throws(ScriptError) in
            try binding.deferred(value)
        }
        request.disbursementRequest = try binding.optionalDictionary(members, "disbursementRequest").map {
            value throws(ScriptError) in try binding.disbursement(value)
        }
        request.lineItems = try members["lineItems"].map { value throws(ScriptError) in try binding.lineItems(value) }
        request.multiTokenContexts = try members["multiTokenContexts"].map { value throws(ScriptError) in
            try binding.tokenContexts(value)
        }
        request.recurringPaymentRequest = try binding.optionalDictionary(members, "recurringPaymentRequest").map {
            value throws(ScriptError) in try binding.recurring(value)
        }
        request.shippingMethods = try members["shippingMethods"].map { value throws(ScriptError) in
            try binding.shippingMethods(value)
        }
        request.shippingType = try members["shippingType"].map { value throws(ScriptError) in
            try binding.enumeration(value, ApplePayShippingType.self)
        }
        guard let totalValue = members["total"] else {
            throw binding.missing(dictionaryName, "total", "ApplePayLineItem")
        }
        request.total = try binding.lineItem(totalValue)
        return request
    }

    /// The `ApplePayRequestBase` members of dictionary `dictionaryName` (lexicographic order, as WebKit's
    /// binding converts them), in a request whose own members are still empty.
    func bindBase(
        _ members: JSONObject,
        dictionary dictionaryName: String
    ) throws(ScriptError) -> ApplePayPaymentRequest {
        let later = try members["applePayLaterAvailability"].map { value throws(ScriptError) in
            try binding.enumeration(value, ApplePayLaterAvailability.self)
        }
        let applicationData = members["applicationData"].map(binding.string)
        let billingContact = try binding.optionalDictionary(members, "billingContact").map {
            value throws(ScriptError) in
            try binding.contact(.object(value))
        }
        let couponCode = binding.optionalString(members, "couponCode")
        guard let countryCodeValue = members["countryCode"] else {
            throw binding.missing(dictionaryName, "countryCode", "DOMString")
        }
        let countryCode = binding.string(countryCodeValue)
        let features = try members["features"].map { value throws(ScriptError) in
            try binding.sequence(value).map { element throws(ScriptError) in
                try binding.enumeration(element, ApplePayFeature.self).rawValue
            }
        }
        let installment = try members["installmentConfiguration"].flatMap { $0.isNull ? nil : $0 }
            .map { value throws(ScriptError) in try binding.installmentConfiguration(value) }
        guard let caps = members["merchantCapabilities"] else {
            throw binding.missing(dictionaryName, "merchantCapabilities", "sequence")
        }
        var capabilities: [ApplePayMerchantCapability] = []
        for capability in try binding.sequence(caps) {
            capabilities.append(try binding.enumeration(capability, ApplePayMerchantCapability.self))
        }
        let delegated = members["isDelegatedRequest"].map(binding.boolean)
        let mcc = binding.optionalString(members, "merchantCategoryCode")
        let billingFields = try members["requiredBillingContactFields"].map { value throws(ScriptError) in
            try binding.contactFields(value)
        }
        let shippingFields = try members["requiredShippingContactFields"].map { value throws(ScriptError) in
            try binding.contactFields(value)
        }
        let shippingContact = try binding.optionalDictionary(members, "shippingContact").map {
            value throws(ScriptError) in
            try binding.contact(.object(value))
        }
        let editing = try members["shippingContactEditingMode"].map { value throws(ScriptError) in
            try binding.enumeration(value, ApplePayShippingContactEditingMode.self)
        }
        let countries = try members["supportedCountries"].map { value throws(ScriptError) in
            try binding.sequence(value).map(binding.string)
        }
        guard let nets = members["supportedNetworks"] else {
            throw binding.missing(dictionaryName, "supportedNetworks", "sequence")
        }
        let networks = try binding.sequence(nets).map(binding.string)
        let supportsCoupon = members["supportsCouponCode"].map(binding.boolean)

        var request = ApplePayPaymentRequest(
            countryCode: countryCode,
            currencyCode: "",
            supportedNetworks: networks,
            merchantCapabilities: capabilities,
            total: ApplePayLineItem(label: nil, amount: nil)
        )
        request.applePayLaterAvailability = later
        request.applicationData = applicationData
        request.billingContact = billingContact
        request.couponCode = couponCode
        request.features = features
        request.installmentConfiguration = installment
        request.isDelegatedRequest = delegated
        request.merchantCategoryCode = mcc
        request.requiredBillingContactFields = billingFields
        request.requiredShippingContactFields = shippingFields
        request.shippingContact = shippingContact
        request.shippingContactEditingMode = editing
        request.supportedCountries = countries
        request.supportsCouponCode = supportsCoupon
        return request
    }

    /// Safari's checks after conversion (`ApplePaySession::create`, step 4 onwards). Returns the
    /// request as Safari stores it: networks in canonical spelling, pending amounts dropped,
    /// `supportedCountries` dropped below version 3, phonetic names dropped below version 3.
    public func check(_ request: ApplePayPaymentRequest, version: Int) throws(ScriptError) -> ApplePayPaymentRequest {
        var request = try checkBase(request, version: version)
        try checkSessionMembers(&request)
        try checkPaymentRequestValidator(request)
        return request
    }

    /// `ApplePayRequestBase`'s checks (the version, capabilities, networks, contact fields), shared
    /// by `ApplePaySession` and the Payment Request API's Apple Pay method.
    func checkBase(_ request: ApplePayPaymentRequest, version: Int) throws(ScriptError) -> ApplePayPaymentRequest {
        var request = request
        if version == 0 || version > profile.currentAPIVersion {
            throw .invalidAccess("\"\(version)\" is not a supported version.")
        }
        if request.merchantCapabilities.isEmpty {
            throw .typeError("At least one merchant capability must be provided.")
        }
        if request.supportedNetworks.isEmpty, !(version >= 8 && request.installmentConfiguration != nil) {
            throw .typeError("At least one supported network must be provided.")
        }
        var canonical: [String] = []
        for network in request.supportedNetworks {
            guard let canonicalName = PaymentNetwork.canonical(network, version: version, profile: profile) else {
                throw .typeError("\"\(network)\" is not a valid payment network.")
            }
            canonical.append(canonicalName)
        }
        request.supportedNetworks = canonical
        if let fields = request.requiredBillingContactFields { try checkContactFields(fields, version: version) }
        if version < 3 { request.billingContact = request.billingContact.map(Self.withoutPhonetics) }
        if let fields = request.requiredShippingContactFields { try checkContactFields(fields, version: version) }
        if version < 3 { request.shippingContact = request.shippingContact.map(Self.withoutPhonetics) }
        if version < 3 { request.supportedCountries = nil }
        return request
    }

    /// `ApplePaySession::convertAndValidate`: the amounts and the payment kinds of version 14.
    func checkSessionMembers(_ request: inout ApplePayPaymentRequest) throws(ScriptError) {
        request.total = try checkTotal(request.total)
        if let items = request.lineItems { request.lineItems = try checkLineItems(items) }
        if let methods = request.shippingMethods { try checkMethodAmounts(methods) }
        try checkPaymentKinds(request)
    }

    /// The recurring, automatic reload, multi-merchant and deferred requests' own checks
    /// (`ApplePaySession::convertAndValidate`, and `ApplePayPaymentHandler::validate` for a modifier).
    func checkPaymentKinds(_ request: ApplePayPaymentRequest) throws(ScriptError) {
        if let rec = request.recurringPaymentRequest {
            _ = try checkBilling(rec.regularBilling, name: "regularBilling", timing: .recurring)
            if let trial = rec.trialBilling { _ = try checkBilling(trial, name: "trialBilling", timing: .recurring) }
            try checkURL(rec.managementURL)
            if let url = rec.tokenNotificationURL { try checkURL(url) }
        }
        if let rel = request.automaticReloadPaymentRequest {
            _ = try checkBilling(rel.automaticReloadBilling, name: "automaticReloadBilling", timing: .automaticReload)
            let threshold = rel.automaticReloadBilling.automaticReloadPaymentThresholdAmount ?? ""
            if !isValidAmount(threshold) {
                throw .typeError("\"\(threshold)\" is not a valid automaticReloadPaymentThresholdAmount.")
            }
            try checkURL(rel.managementURL)
            if let url = rel.tokenNotificationURL { try checkURL(url) }
        }
        if let contexts = request.multiTokenContexts {
            for context in contexts where !isValidAmount(context.amount) {
                throw .typeError("\"\(context.amount)\" is not a valid amount.")
            }
        }
        if let def = request.deferredPaymentRequest {
            _ = try checkBilling(def.deferredBilling, name: "deferredBilling", timing: .deferred)
            try checkURL(def.managementURL)
            if def.freeCancellationDate == nil, let zone = def.freeCancellationDateTimeZone, !zone.isEmpty {
                throw .typeError("Unexpected 'freeCancellationDateTimeZone' when 'freeCancellationDate' is not set.")
            }
            if def.freeCancellationDate != nil {
                let zone = def.freeCancellationDateTimeZone ?? ""
                if zone.isEmpty {
                    throw .typeError("Missing 'freeCancellationDateTimeZone' when 'freeCancellationDate' is set.")
                }
                if TimeZone(identifier: zone) == nil { throw .typeError("\"\(zone)\" is not a valid time zone.") }
            }
            if def.paymentDescription.isEmpty { throw .typeError("Missing 'paymentDescription'.") }
            if let url = def.tokenNotificationURL { try checkURL(url) }
        }
    }

    /// WebKit's `PaymentRequestValidator::validate`, the last checks of both APIs.
    func checkPaymentRequestValidator(_ request: ApplePayPaymentRequest) throws(ScriptError) {
        if !ISOCodes.countryCodes.contains(request.countryCode) {
            throw .typeError("\"\(request.countryCode)\" is not a valid country code.")
        }
        if !ISOCodes.currencyCodes.contains(request.currencyCode) {
            throw .typeError("\"\(request.currencyCode)\" is not a valid currency code.")
        }
        if request.supportedNetworks.isEmpty, request.installmentConfiguration == nil {
            throw .typeError("Missing supported networks.")
        }
        if !request.merchantCapabilities.contains(where: {
            [.supports3DS, .supportsEMV, .supportsCredit, .supportsDebit].contains($0)
        }) {
            throw .typeError("Missing merchant capabilities.")
        }
        _ = try checkTotal(request.total)
        for method in request.shippingMethods ?? [] {
            if let value = AmountGrammar.value(method.amount), value <= -1 {
                throw .typeError("Shipping method amount must be greater than or equal to zero.")
            }
        }
        for country in request.supportedCountries ?? [] where !ISOCodes.countryCodes.contains(country) {
            throw .typeError("\"\(country)\" is not a valid country code.")
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
        for index in out.indices {
            if out[index].isPending {
                out[index].amount = nil
                continue
            }
            let amount = out[index].amount ?? ""
            if !isValidAmount(amount) { throw .typeError("\"\(amount)\" is not a valid amount.") }
        }
        return out
    }

    func checkMethodAmounts(_ methods: [ApplePayShippingMethod]) throws(ScriptError) {
        for method in methods where !isValidAmount(method.amount) {
            throw .typeError("\"\(method.amount)\" is not a valid amount.")
        }
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
            let amount = item.amount ?? ""
            if !isValidAmount(amount) { throw .typeError("\"\(amount)\" is not a valid amount.") }
        }
        return item
    }

    private func checkURL(_ text: String) throws(ScriptError) {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty,
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

    static func withoutPhonetics(_ contact: ApplePayPaymentContact) -> ApplePayPaymentContact {
        var contact = contact
        contact.phoneticGivenName = nil
        contact.phoneticFamilyName = nil
        return contact
    }
}
