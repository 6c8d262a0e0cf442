import Foundation

/// The Payment Request API as Safari checks it: the WebIDL conversion of `new PaymentRequest(…)`'s
/// three arguments and of `updateWith`'s details, the constructor's "check and canonicalize" steps
/// (WebKit's `PaymentRequest.cpp`), and the Apple Pay method's own conversion and checks at `show()`
/// (WebKit's `ApplePayPaymentHandler.cpp`), which end in the same validator as `ApplePaySession`.
public struct PaymentRequestBinding: Sendable {
    /// The identifier of the Apple Pay payment method.
    public static let applePayMethod = "https://apple.com/apple-pay"

    /// The Safari whose rules apply.
    public var profile: SafariProfile

    /// A binding for `profile`.
    public init(profile: SafariProfile = .current) { self.profile = profile }

    var b: WebIDLBinding { WebIDLBinding(profile: profile) }

    /// What the constructor keeps.
    public struct Constructed: Sendable, Hashable {
        public var methods: [PaymentMethodData]
        public var details: PaymentDetails
        public var options: PaymentOptions
        /// The shipping option marked `selected` (the last one), when shipping is requested.
        public var shippingOption: String?
    }

    // MARK: The constructor

    /// `new PaymentRequest(methodData, details, options)`: the binding of all three arguments,
    /// then the constructor's steps, in WebKit's order, with its exceptions.
    ///
    /// `refusal`, if any, is thrown once the arguments are converted: why the document may not
    /// request payments at all (its frame).
    public func construct(
        methodData: JSONValue,
        details: JSONValue,
        options: JSONValue?,
        refusal: ScriptError? = nil
    ) throws(ScriptError) -> Constructed {
        // WebIDL conversion of every argument first.
        var methods: [PaymentMethodData] = []
        for m in try b.sequence(methodData) {
            let o = try b.dictionary(m)
            let data = try o["data"].map { v throws(ScriptError) in try object(v) }
            guard let id = o["supportedMethods"] else {
                throw b.missing("PaymentMethodData", "supportedMethods", "DOMString")
            }
            methods.append(PaymentMethodData(supportedMethods: b.string(id), data: data))
        }
        let o = try b.dictionary(details)
        var d = try detailsBase(o)
        d.id = o["id"].map(b.string)
        guard let total = o["total"] else { throw b.missing("PaymentDetailsInit", "total", "PaymentItem") }
        d.total = try item(total)
        let opts = try paymentOptions(options ?? .null)
        if let refusal { throw refusal }

        // The constructor's steps.
        if methods.isEmpty { throw .typeError("At least one payment method is required.") }
        for m in methods where !Self.isValidMethodIdentifier(m.supportedMethods) {
            throw ScriptError(.rangeError, "\"\(m.supportedMethods)\" is an invalid payment method identifier.")
        }
        try checkTotal(&d.total!.amount)
        let selected = try checkDetails(&d, requestShipping: opts.requestShipping, validateIdentifiers: false)
        if d.id == nil { d.id = UUID().uuidString.lowercased() }
        return Constructed(methods: methods, details: d, options: opts, shippingOption: selected)
    }

    /// `PaymentDetailsUpdate` as `updateWith`'s promise resolved it, checked as WebKit's
    /// `settleDetailsPromise` does. Returns the update and its selected shipping option.
    public func update(_ json: JSONValue, requestShipping: Bool) throws(ScriptError) -> (PaymentDetails, String?) {
        let o = try b.dictionary(json)
        var d = try detailsBase(o)
        d.error = o["error"].map(b.string)
        if let v = o["payerErrors"], !v.isNull { d.payerErrors = try payerErrors(v) }
        // `object? paymentMethodErrors` (WebKit's test: a null list is no errors).
        if let v = o["paymentMethodErrors"], !v.isNull { d.paymentMethodErrors = try object(v) }
        if let v = o["shippingAddressErrors"], !v.isNull { d.shippingAddressErrors = try addressErrors(v) }
        if let t = o["total"], !t.isNull { d.total = try item(t) }
        if d.total != nil { try checkTotal(&d.total!.amount) }
        let selected = try checkDetails(&d, requestShipping: requestShipping, validateIdentifiers: true)
        return (d, selected)
    }

    /// `PaymentValidationErrors` (`PaymentResponse.retry`'s argument), in a details value's error
    /// members.
    public func validationErrors(_ json: JSONValue?) throws(ScriptError) -> PaymentDetails {
        let o = try b.dictionary(json ?? .null)
        var d = PaymentDetails()
        d.error = o["error"].map(b.string)
        if let v = o["payer"], !v.isNull { d.payerErrors = try payerErrors(v) }
        if let v = o["paymentMethod"], !v.isNull { d.paymentMethodErrors = try object(v) }
        if let v = o["shippingAddress"], !v.isNull { d.shippingAddressErrors = try addressErrors(v) }
        return d
    }

    func payerErrors(_ v: JSONValue) throws(ScriptError) -> PaymentPayerErrors {
        let p = try b.dictionary(v)
        return PaymentPayerErrors(
            email: p["email"].map(b.string),
            name: p["name"].map(b.string),
            phone: p["phone"].map(b.string)
        )
    }

    func addressErrors(_ v: JSONValue) throws(ScriptError) -> PaymentAddressErrors {
        let a = try b.dictionary(v)
        func s(_ k: String) -> String? { a[k].map(b.string) }
        return PaymentAddressErrors(
            addressLine: s("addressLine"),
            city: s("city"),
            country: s("country"),
            dependentLocality: s("dependentLocality"),
            organization: s("organization"),
            phone: s("phone"),
            postalCode: s("postalCode"),
            recipient: s("recipient"),
            region: s("region"),
            sortingCode: s("sortingCode")
        )
    }

    // MARK: The Apple Pay method at show()

    /// The Apple Pay method's data converted as an `ApplePayRequest` (its binding's `TypeError`s),
    /// with its version.
    public func applePayRequest(
        _ data: JSONValue?
    ) throws(ScriptError) -> (version: Int, request: ApplePayPaymentRequest) {
        let validator = RequestValidator(profile: profile)
        let o = try b.dictionary(data ?? .null)
        let d = "ApplePayRequest"
        let r = try validator.bindBase(o, dictionary: d)
        guard o["merchantIdentifier"] != nil else { throw b.missing(d, "merchantIdentifier", "DOMString") }
        guard let v = o["version"] else { throw b.missing(d, "version", "unsigned long") }
        return (b.unsignedLong(v), r)
    }

    /// The Apple Pay handler's `show()`: the base checks, the details and options merged in (every
    /// amount in the total's currency), then `PaymentRequestValidator`. Returns the request the
    /// sheet shows.
    public func sheetRequest(
        version: Int,
        base: ApplePayPaymentRequest,
        details: PaymentDetails,
        options: PaymentOptions,
        shippingOption: String?
    ) throws(ScriptError) -> ApplePayPaymentRequest {
        let validator = RequestValidator(profile: profile)
        var r = try validator.checkBase(base, version: version)
        let total = details.total!
        let currency = total.amount.currency
        r.currencyCode = currency
        r.total = Self.lineItem(total)
        r.lineItems = try details.displayItems.map { i throws(ScriptError) in try Self.lineItem(i, currency: currency) }
        var fields = Set(r.requiredShippingContactFields ?? [])
        if options.requestPayerEmail { fields.insert(.email) }
        if options.requestPayerName { fields.insert(.name) }
        if options.requestPayerPhone { fields.insert(.phone) }
        if options.requestShipping { fields.insert(.postalAddress) }
        if !fields.isEmpty || r.requiredShippingContactFields != nil {
            r.requiredShippingContactFields = ApplePayContactField.allCases.filter { fields.contains($0) }
        }
        if options.requestShipping {
            switch options.shippingType {
            case .shipping: r.shippingType = .shipping
            case .delivery: r.shippingType = .delivery
            case .pickup: r.shippingType = .storePickup
            }
        }
        r.shippingMethods = try Self.shippingMethods(
            details.shippingOptions,
            currency: currency,
            selected: shippingOption
        )
        try validator.checkPaymentRequestValidator(r)
        return r
    }

    /// The total and lines the sheet shows for `details` when a card of `type` is selected: the
    /// first Apple Pay modifier for that type replaces the total and adds its lines
    /// (`computeTotalAndLineItems`).
    public func totalAndLineItems(
        _ details: PaymentDetails,
        selectedType: ApplePayPaymentMethodType?
    ) throws(ScriptError)
        -> (total: ApplePayLineItem, lineItems: [ApplePayLineItem])
    {
        let currency = details.total!.amount.currency
        var total = try Self.lineItem(details.total!, currency: currency)
        var lines = try details.displayItems.map { i throws(ScriptError) in try Self.lineItem(i, currency: currency) }
        guard let selectedType else { return (total, lines) }
        for m in details.modifiers where m.supportedMethods == Self.applePayMethod {
            guard let data = m.data else { continue }
            let o = try b.dictionary(data)
            let type = try o["paymentMethodType"].map { v throws(ScriptError) in
                try b.enumeration(v, ApplePayPaymentMethodType.self)
            }
            guard type == selectedType else { continue }
            if let t = m.total { total = try Self.lineItem(t, currency: currency) }
            lines += try m.additionalDisplayItems.map { i throws(ScriptError) in
                try Self.lineItem(i, currency: currency)
            }
            break
        }
        return (total, lines)
    }

    /// The shipping options as the sheet's shipping methods, every price in `currency`.
    public static func shippingMethods(
        _ options: [PaymentShippingOption],
        currency: String,
        selected: String?
    ) throws(ScriptError)
        -> [ApplePayShippingMethod]
    {
        try options.map { o throws(ScriptError) in
            try sameCurrency(o.amount, currency)
            var m = ApplePayShippingMethod(label: o.label, detail: "", amount: o.amount.value, identifier: o.id)
            if let selected, o.id == selected { m.selected = true }
            return m
        }
    }

    static func sameCurrency(_ a: PaymentCurrencyAmount, _ expected: String) throws(ScriptError) {
        if a.currency != expected {
            throw .typeError(
                "\"\(a.currency)\" does not match the expected currency of \"\(expected)\". Apple Pay requires all PaymentCurrencyAmounts to use the same currency code."
            )
        }
    }

    static func lineItem(_ i: PaymentItem) -> ApplePayLineItem {
        var l = ApplePayLineItem(label: i.label, amount: i.amount.value)
        if i.pending { l.type = .pending }
        return l
    }

    static func lineItem(_ i: PaymentItem, currency: String) throws(ScriptError) -> ApplePayLineItem {
        try sameCurrency(i.amount, currency)
        return lineItem(i)
    }

    // MARK: Conversions

    /// `object`: any object (arrays included); other values are `TypeError`s.
    func object(_ v: JSONValue) throws(ScriptError) -> JSONValue {
        switch v {
        case .object, .array: return v
        default: throw .typeError("Type error")
        }
    }

    func amount(_ v: JSONValue) throws(ScriptError) -> PaymentCurrencyAmount {
        let o = try b.dictionary(v)
        guard let c = o["currency"] else { throw b.missing("PaymentCurrencyAmount", "currency", "DOMString") }
        guard let value = o["value"] else { throw b.missing("PaymentCurrencyAmount", "value", "DOMString") }
        return PaymentCurrencyAmount(currency: b.string(c), value: b.string(value))
    }

    func item(_ v: JSONValue) throws(ScriptError) -> PaymentItem {
        let o = try b.dictionary(v)
        guard let a = o["amount"] else { throw b.missing("PaymentItem", "amount", "PaymentCurrencyAmount") }
        let amount = try amount(a)
        guard let label = o["label"] else { throw b.missing("PaymentItem", "label", "DOMString") }
        return PaymentItem(label: b.string(label), amount: amount, pending: o["pending"].map(b.boolean) ?? false)
    }

    func items(_ v: JSONValue) throws(ScriptError) -> [PaymentItem] {
        try b.sequence(v).map { x throws(ScriptError) in try item(x) }
    }

    /// `PaymentDetailsBase`'s members (`displayItems`, `modifiers`, `shippingOptions`).
    func detailsBase(_ o: JSONObject) throws(ScriptError) -> PaymentDetails {
        var d = PaymentDetails()
        if let v = o["displayItems"] { d.displayItems = try items(v) }
        if let v = o["modifiers"] {
            d.modifiers = try b.sequence(v).map { x throws(ScriptError) in
                let m = try b.dictionary(x)
                let extra = try m["additionalDisplayItems"].map { v throws(ScriptError) in try items(v) } ?? []
                let data = try m["data"].map { v throws(ScriptError) in try object(v) }
                guard let s = m["supportedMethods"] else {
                    throw b.missing("PaymentDetailsModifier", "supportedMethods", "DOMString")
                }
                let total = try m["total"].map { v throws(ScriptError) in try item(v) }
                return PaymentDetailsModifier(
                    supportedMethods: b.string(s),
                    total: total,
                    additionalDisplayItems: extra,
                    data: data
                )
            }
        }
        if let v = o["shippingOptions"] {
            d.shippingOptions = try b.sequence(v).map { x throws(ScriptError) in
                let s = try b.dictionary(x)
                guard let a = s["amount"] else {
                    throw b.missing("PaymentShippingOption", "amount", "PaymentCurrencyAmount")
                }
                let amount = try amount(a)
                guard let id = s["id"] else { throw b.missing("PaymentShippingOption", "id", "DOMString") }
                guard let label = s["label"] else { throw b.missing("PaymentShippingOption", "label", "DOMString") }
                return PaymentShippingOption(
                    id: b.string(id),
                    label: b.string(label),
                    amount: amount,
                    selected: s["selected"].map(b.boolean) ?? false
                )
            }
        }
        return d
    }

    func paymentOptions(_ v: JSONValue) throws(ScriptError) -> PaymentOptions {
        let o = try b.dictionary(v)
        var p = PaymentOptions()
        p.requestPayerEmail = o["requestPayerEmail"].map(b.boolean) ?? false
        p.requestPayerName = o["requestPayerName"].map(b.boolean) ?? false
        p.requestPayerPhone = o["requestPayerPhone"].map(b.boolean) ?? false
        p.requestShipping = o["requestShipping"].map(b.boolean) ?? false
        if let t = o["shippingType"] { p.shippingType = try b.enumeration(t, PaymentShippingType.self) }
        return p
    }

    // MARK: Check and canonicalize

    /// IsWellFormedCurrencyCode (ECMA-402): three ASCII letters.
    static func isWellFormedCurrencyCode(_ c: String) -> Bool {
        c.utf16.count == 3 && c.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic) }
    }

    /// A valid decimal monetary value: `-?[0-9]+(\.[0-9]+)?`.
    static func isValidDecimalMonetaryValue(_ v: String) -> Bool {
        v.range(of: #"^-?[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil
    }

    func checkAmount(_ a: inout PaymentCurrencyAmount) throws(ScriptError) {
        if !Self.isWellFormedCurrencyCode(a.currency) {
            throw ScriptError(.rangeError, "\"\(a.currency)\" is not a valid currency code.")
        }
        if !Self.isValidDecimalMonetaryValue(a.value) {
            throw .typeError("\"\(a.value)\" is not a valid decimal monetary value.")
        }
        a.currency = a.currency.uppercased()
    }

    func checkTotal(_ a: inout PaymentCurrencyAmount) throws(ScriptError) {
        try checkAmount(&a)
        if a.value.hasPrefix("-") { throw .typeError("Total currency values cannot be negative.") }
    }

    /// `checkAndCanonicalizeDetails`: the lines' amounts; with shipping, the options' amounts,
    /// unique identifiers and the selected one; the modifiers' totals and lines.
    func checkDetails(
        _ d: inout PaymentDetails,
        requestShipping: Bool,
        validateIdentifiers: Bool
    ) throws(ScriptError) -> String? {
        for i in d.displayItems.indices { try checkAmount(&d.displayItems[i].amount) }
        var selected: String?
        if requestShipping {
            var seen = Set<String>()
            for i in d.shippingOptions.indices {
                try checkAmount(&d.shippingOptions[i].amount)
                if !seen.insert(d.shippingOptions[i].id).inserted {
                    throw .typeError("Shipping option IDs must be unique.")
                }
                if d.shippingOptions[i].selected { selected = d.shippingOptions[i].id }
            }
        }
        for i in d.modifiers.indices {
            if validateIdentifiers, !Self.isValidMethodIdentifier(d.modifiers[i].supportedMethods) {
                throw ScriptError(
                    .rangeError,
                    "\"\(d.modifiers[i].supportedMethods)\" is an invalid payment method identifier."
                )
            }
            if d.modifiers[i].total != nil { try checkTotal(&d.modifiers[i].total!.amount) }
            for j in d.modifiers[i].additionalDisplayItems.indices {
                try checkAmount(&d.modifiers[i].additionalDisplayItems[j].amount)
            }
        }
        return selected
    }

    /// "Validate a payment method identifier": an absolute URL must be `https` without
    /// credentials; anything else must be a standardized identifier (`[a-z][a-z0-9]*(-[a-z0-9]+)*`).
    public static func isValidMethodIdentifier(_ id: String) -> Bool {
        if id.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) != nil, let url = URL(string: id) {
            return url.scheme?.lowercased() == "https" && url.user == nil && url.password == nil && url.host != nil
        }
        return id.range(of: #"^[a-z][a-z0-9]*(-[a-z][a-z0-9]*|-[0-9][a-z0-9]*)*$"#, options: .regularExpression) != nil
    }

    /// Whether `id` names the Apple Pay method (host `apple.com`, path `/apple-pay`).
    public static func isApplePay(_ id: String) -> Bool {
        guard let url = URL(string: id), url.scheme?.lowercased() == "https" else { return false }
        return url.host?.lowercased() == "apple.com" && url.path == "/apple-pay"
    }
}
