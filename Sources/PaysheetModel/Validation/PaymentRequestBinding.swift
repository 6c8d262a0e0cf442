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

    var binding: WebIDLBinding { WebIDLBinding(profile: profile) }

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
        for methodValue in try binding.sequence(methodData) {
            let members = try binding.dictionary(methodValue)
            let data = try members["data"].map { dataValue throws(ScriptError) in try object(dataValue) }
            guard let id = members["supportedMethods"] else {
                throw binding.missing("PaymentMethodData", "supportedMethods", "DOMString")
            }
            methods.append(PaymentMethodData(supportedMethods: binding.string(id), data: data))
        }
        let members = try binding.dictionary(details)
        var result = try detailsBase(members)
        result.id = members["id"].map(binding.string)
        guard let total = members["total"] else { throw binding.missing("PaymentDetailsInit", "total", "PaymentItem") }
        result.total = try item(total)
        let opts = try paymentOptions(options ?? .null)
        if let refusal { throw refusal }

        // The constructor's steps.
        if methods.isEmpty { throw .typeError("At least one payment method is required.") }
        for method in methods where !Self.isValidMethodIdentifier(method.supportedMethods) {
            throw ScriptError(.rangeError, "\"\(method.supportedMethods)\" is an invalid payment method identifier.")
        }
        if profile.validatesPaymentMethodDataAtConstruction {
            for method in methods where Self.isApplePay(method.supportedMethods) {
                try validateApplePayData(method.data)
            }
            for method in methods where Self.isAMSUI(method.supportedMethods) {
                // `ApplePayAMSUIRequest`: its `engagementRequest` must be an object (WebKit's
                // `ApplePayAMSUIPaymentHandler::validateData`).
                let members = try binding.dictionary(method.data ?? .null)
                guard case .object = members["engagementRequest"] ?? .null else {
                    throw .typeError(
                        "Member ApplePayAMSUIRequest.engagementRequest is required and must be a JSON-serializable object"
                    )
                }
            }
        }
        try checkTotal(&result.total!.amount)
        let selected = try checkDetails(&result, requestShipping: opts.requestShipping, validateIdentifiers: false)
        if result.id == nil { result.id = UUID().uuidString.lowercased() }
        return Constructed(methods: methods, details: result, options: opts, shippingOption: selected)
    }

    /// `PaymentDetailsUpdate` as `updateWith`'s promise resolved it, checked as WebKit's
    /// `settleDetailsPromise` does. Returns the update and its selected shipping option.
    public func update(_ json: JSONValue, requestShipping: Bool) throws(ScriptError) -> (PaymentDetails, String?) {
        let members = try binding.dictionary(json)
        var result = try detailsBase(members)
        result.error = members["error"].map(binding.string)
        if let errorsValue = members["payerErrors"], !errorsValue.isNull {
            result.payerErrors = try payerErrors(errorsValue)
        }
        // `object? paymentMethodErrors` (WebKit's test: a null list is no errors).
        if let errorsValue = members["paymentMethodErrors"], !errorsValue.isNull {
            result.paymentMethodErrors = try object(errorsValue)
        }
        if let errorsValue = members["shippingAddressErrors"], !errorsValue.isNull {
            result.shippingAddressErrors = try addressErrors(errorsValue)
        }
        if let totalValue = members["total"], !totalValue.isNull { result.total = try item(totalValue) }
        if result.total != nil { try checkTotal(&result.total!.amount) }
        let selected = try checkDetails(&result, requestShipping: requestShipping, validateIdentifiers: true)
        return (result, selected)
    }

    /// `PaymentValidationErrors` (`PaymentResponse.retry`'s argument), in a details value's error
    /// members.
    public func validationErrors(_ json: JSONValue?) throws(ScriptError) -> PaymentDetails {
        let members = try binding.dictionary(json ?? .null)
        var result = PaymentDetails()
        result.error = members["error"].map(binding.string)
        if let errorsValue = members["payer"], !errorsValue.isNull { result.payerErrors = try payerErrors(errorsValue) }
        if let errorsValue = members["paymentMethod"], !errorsValue.isNull {
            result.paymentMethodErrors = try object(errorsValue)
        }
        if let errorsValue = members["shippingAddress"], !errorsValue.isNull {
            result.shippingAddressErrors = try addressErrors(errorsValue)
        }
        return result
    }

    func payerErrors(_ json: JSONValue) throws(ScriptError) -> PaymentPayerErrors {
        let members = try binding.dictionary(json)
        return PaymentPayerErrors(
            email: members["email"].map(binding.string),
            name: members["name"].map(binding.string),
            phone: members["phone"].map(binding.string)
        )
    }

    func addressErrors(_ json: JSONValue) throws(ScriptError) -> PaymentAddressErrors {
        let members = try binding.dictionary(json)
        func member(_ key: String) -> String? { members[key].map(binding.string) }
        return PaymentAddressErrors(
            addressLine: member("addressLine"),
            city: member("city"),
            country: member("country"),
            dependentLocality: member("dependentLocality"),
            organization: member("organization"),
            phone: member("phone"),
            postalCode: member("postalCode"),
            recipient: member("recipient"),
            region: member("region"),
            sortingCode: member("sortingCode")
        )
    }

    // MARK: The Apple Pay method at show()

    /// The Apple Pay method's data converted as an `ApplePayRequest` (its binding's `TypeError`s),
    /// with its version.
    public func applePayRequest(
        _ data: JSONValue?
    ) throws(ScriptError) -> (version: Int, request: ApplePayPaymentRequest) {
        let validator = RequestValidator(profile: profile)
        let members = try binding.dictionary(data ?? .null)
        let dictionaryName = "ApplePayRequest"
        let request = try validator.bindBase(members, dictionary: dictionaryName)
        guard members["merchantIdentifier"] != nil else {
            throw binding.missing(dictionaryName, "merchantIdentifier", "DOMString")
        }
        guard let versionValue = members["version"] else {
            throw binding.missing(dictionaryName, "version", "unsigned long")
        }
        return (binding.unsignedLong(versionValue), request)
    }

    /// `ApplePayPaymentHandler::validateData` (current WebKit, in the constructor): the data bound as
    /// `ApplePayRequest`, its base checks, then the validator's capabilities, networks and country.
    func validateApplePayData(_ data: JSONValue?) throws(ScriptError) {
        // A method without data is left to `show()`, which rejects with the binding's TypeError
        // (WebKit's page `payment-request-show-method` expects so).
        guard let data, !data.isNull else { return }
        let validator = RequestValidator(profile: profile)
        let (version, base) = try applePayRequest(data)
        let request = try validator.checkBase(base, version: version)
        if !request.merchantCapabilities.contains(where: {
            [.supports3DS, .supportsEMV, .supportsCredit, .supportsDebit].contains($0)
        }) {
            throw .typeError("Missing merchant capabilities.")
        }
        if request.supportedNetworks.isEmpty, request.installmentConfiguration == nil {
            throw .typeError("Missing supported networks.")
        }
        if !ISOCodes.countryCodes.contains(request.countryCode) {
            throw .typeError("\"\(request.countryCode)\" is not a valid country code.")
        }
        for country in request.supportedCountries ?? [] where !ISOCodes.countryCodes.contains(country) {
            throw .typeError("\"\(country)\" is not a valid country code.")
        }
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
        var request = try validator.checkBase(base, version: version)
        // The Payment Request API keeps `supportedCountries` at every version (WebKit's
        // `paymentrequest-supportedCountries` page, at version 2).
        request.supportedCountries = base.supportedCountries
        let total = details.total!
        let currency = total.amount.currency
        request.currencyCode = currency
        request.total = Self.lineItem(total)
        request.lineItems = try details.displayItems.map { paymentItem throws(ScriptError) in
            try Self.lineItem(paymentItem, currency: currency)
        }
        var fields = Set(request.requiredShippingContactFields ?? [])
        if options.requestPayerEmail { fields.insert(.email) }
        if options.requestPayerName { fields.insert(.name) }
        if options.requestPayerPhone { fields.insert(.phone) }
        if options.requestShipping { fields.insert(.postalAddress) }
        if !fields.isEmpty || request.requiredShippingContactFields != nil {
            request.requiredShippingContactFields = ApplePayContactField.allCases.filter { fields.contains($0) }
        }
        if options.requestShipping {
            switch options.shippingType {
            case .shipping: request.shippingType = .shipping
            case .delivery: request.shippingType = .delivery
            case .pickup: request.shippingType = .storePickup
            }
        }
        request.shippingMethods = try Self.shippingMethods(
            details.shippingOptions,
            currency: currency,
            selected: shippingOption
        )
        // At show(): the applicable modifier's lines, shipping methods and payment kinds (its
        // totals only from the first update on).
        if let (_, modifier) = try firstApplicableModifier(details, selectedType: nil) {
            request.lineItems = (request.lineItems ?? []) + modifier.additionalLineItems
            if !modifier.additionalShippingMethods.isEmpty {
                request.shippingMethods = (request.shippingMethods ?? []) + modifier.additionalShippingMethods
            }
            request.recurringPaymentRequest = modifier.recurringPaymentRequest
            request.automaticReloadPaymentRequest = modifier.automaticReloadPaymentRequest
            request.multiTokenContexts = modifier.multiTokenContexts
            request.deferredPaymentRequest = modifier.deferredPaymentRequest
            request.disbursementRequest = modifier.disbursementRequest
        }
        try validator.checkPaymentRequestValidator(request)
        return request
    }

    /// What an update carries for `details` with a card of `selectedType` selected
    /// (`computeTotalAndLineItems` and the modifier's payment kinds): the first applicable modifier's
    /// totals replace the details' total (the Apple Pay modifier's last) and add their lines.
    public func modified(
        _ details: PaymentDetails,
        selectedType: ApplePayPaymentMethodType?
    ) throws(ScriptError) -> ModifiedDetails {
        let currency = details.total!.amount.currency
        var out = ModifiedDetails(
            total: try Self.lineItem(details.total!, currency: currency),
            lineItems: try details.displayItems.map { paymentItem throws(ScriptError) in
                try Self.lineItem(paymentItem, currency: currency)
            }
        )
        guard let (modifier, applePay) = try firstApplicableModifier(details, selectedType: selectedType) else {
            return out
        }
        if let modifierTotal = modifier.total { out.total = try Self.lineItem(modifierTotal, currency: currency) }
        out.lineItems += try modifier.additionalDisplayItems.map { paymentItem throws(ScriptError) in
            try Self.lineItem(paymentItem, currency: currency)
        }
        if let total = applePay.total { out.total = total }
        out.lineItems += applePay.additionalLineItems
        out.modifier = applePay
        return out
    }

    /// An update's total, lines and the applicable Apple Pay modifier.
    public struct ModifiedDetails: Sendable, Hashable {
        public var total: ApplePayLineItem
        public var lineItems: [ApplePayLineItem]
        public var modifier: ApplePayModifier?
    }

    /// The shipping options as the sheet's shipping methods, every price in `currency`.
    public static func shippingMethods(
        _ options: [PaymentShippingOption],
        currency: String,
        selected: String?
    ) throws(ScriptError)
        -> [ApplePayShippingMethod]
    {
        try options.map { option throws(ScriptError) in
            try sameCurrency(option.amount, currency)
            var method = ApplePayShippingMethod(
                label: option.label,
                detail: "",
                amount: option.amount.value,
                identifier: option.id
            )
            if let selected, option.id == selected { method.selected = true }
            return method
        }
    }

    static func sameCurrency(_ amount: PaymentCurrencyAmount, _ expected: String) throws(ScriptError) {
        if amount.currency != expected {
            throw .typeError(
                "\"\(amount.currency)\" does not match the expected currency of \"\(expected)\". Apple Pay requires all PaymentCurrencyAmounts to use the same currency code."
            )
        }
    }

    static func lineItem(_ paymentItem: PaymentItem) -> ApplePayLineItem {
        var result = ApplePayLineItem(label: paymentItem.label, amount: paymentItem.amount.value)
        if paymentItem.pending { result.type = .pending }
        return result
    }

    static func lineItem(_ paymentItem: PaymentItem, currency: String) throws(ScriptError) -> ApplePayLineItem {
        try sameCurrency(paymentItem.amount, currency)
        return lineItem(paymentItem)
    }

    // MARK: Conversions

    /// `object`: any object (arrays included); other values are `TypeError`s.
    func object(_ json: JSONValue) throws(ScriptError) -> JSONValue {
        switch json {
        case .object, .array: return json
        default: throw .typeError("Type error")
        }
    }

    func amount(_ json: JSONValue) throws(ScriptError) -> PaymentCurrencyAmount {
        let members = try binding.dictionary(json)
        guard let currency = members["currency"] else {
            throw binding.missing("PaymentCurrencyAmount", "currency", "DOMString")
        }
        guard let value = members["value"] else { throw binding.missing("PaymentCurrencyAmount", "value", "DOMString") }
        return PaymentCurrencyAmount(currency: binding.string(currency), value: binding.string(value))
    }

    func item(_ json: JSONValue) throws(ScriptError) -> PaymentItem {
        let members = try binding.dictionary(json)
        guard let amountValue = members["amount"] else {
            throw binding.missing("PaymentItem", "amount", "PaymentCurrencyAmount")
        }
        let amount = try amount(amountValue)
        guard let label = members["label"] else { throw binding.missing("PaymentItem", "label", "DOMString") }
        return PaymentItem(
            label: binding.string(label),
            amount: amount,
            pending: members["pending"].map(binding.boolean) ?? false
        )
    }

    func items(_ json: JSONValue) throws(ScriptError) -> [PaymentItem] {
        try binding.sequence(json).map { element throws(ScriptError) in try item(element) }
    }

    /// `PaymentDetailsBase`'s members (`displayItems`, `modifiers`, `shippingOptions`).
    func detailsBase(_ members: JSONObject) throws(ScriptError) -> PaymentDetails {
        var result = PaymentDetails()
        if let itemsValue = members["displayItems"] { result.displayItems = try items(itemsValue) }
        if let modifiersValue = members["modifiers"] {
            result.modifiers = try binding.sequence(modifiersValue).map { element throws(ScriptError) in
                let modifierMembers = try binding.dictionary(element)
                let extra =
                    try modifierMembers["additionalDisplayItems"].map { itemsValue throws(ScriptError) in
                        try items(itemsValue)
                    } ?? []
                let data = try modifierMembers["data"].map { dataValue throws(ScriptError) in try object(dataValue) }
                guard let supportedMethods = modifierMembers["supportedMethods"] else {
                    throw binding.missing("PaymentDetailsModifier", "supportedMethods", "DOMString")
                }
                let total = try modifierMembers["total"].map { totalValue throws(ScriptError) in try item(totalValue) }
                return PaymentDetailsModifier(
                    supportedMethods: binding.string(supportedMethods),
                    total: total,
                    additionalDisplayItems: extra,
                    data: data
                )
            }
        }
        if let optionsValue = members["shippingOptions"] {
            result.shippingOptions = try binding.sequence(optionsValue).map { element throws(ScriptError) in
                let optionMembers = try binding.dictionary(element)
                guard let amountValue = optionMembers["amount"] else {
                    throw binding.missing("PaymentShippingOption", "amount", "PaymentCurrencyAmount")
                }
                let amount = try amount(amountValue)
                guard let id = optionMembers["id"] else {
                    throw binding.missing("PaymentShippingOption", "id", "DOMString")
                }
                guard let label = optionMembers["label"] else {
                    throw binding.missing("PaymentShippingOption", "label", "DOMString")
                }
                return PaymentShippingOption(
                    id: binding.string(id),
                    label: binding.string(label),
                    amount: amount,
                    selected: optionMembers["selected"].map(binding.boolean) ?? false
                )
            }
        }
        return result
    }

    func paymentOptions(_ json: JSONValue) throws(ScriptError) -> PaymentOptions {
        let members = try binding.dictionary(json)
        var result = PaymentOptions()
        result.requestPayerEmail = members["requestPayerEmail"].map(binding.boolean) ?? false
        result.requestPayerName = members["requestPayerName"].map(binding.boolean) ?? false
        result.requestPayerPhone = members["requestPayerPhone"].map(binding.boolean) ?? false
        result.requestShipping = members["requestShipping"].map(binding.boolean) ?? false
        if let shippingType = members["shippingType"] {
            result.shippingType = try binding.enumeration(shippingType, PaymentShippingType.self)
        }
        return result
    }

    // MARK: Check and canonicalize

    /// IsWellFormedCurrencyCode (ECMA-402): three ASCII letters.
    static func isWellFormedCurrencyCode(_ code: String) -> Bool {
        code.utf16.count == 3 && code.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic) }
    }

    /// A valid decimal monetary value: `-?[0-9]+(\.[0-9]+)?`.
    static func isValidDecimalMonetaryValue(_ text: String) -> Bool {
        text.range(of: #"^-?[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil
    }

    func checkAmount(_ amount: inout PaymentCurrencyAmount) throws(ScriptError) {
        if !Self.isWellFormedCurrencyCode(amount.currency) {
            throw ScriptError(.rangeError, "\"\(amount.currency)\" is not a valid currency code.")
        }
        if !Self.isValidDecimalMonetaryValue(amount.value) {
            throw .typeError("\"\(amount.value)\" is not a valid decimal monetary value.")
        }
        amount.currency = amount.currency.uppercased()
    }

    func checkTotal(_ amount: inout PaymentCurrencyAmount) throws(ScriptError) {
        try checkAmount(&amount)
        if amount.value.hasPrefix("-") { throw .typeError("Total currency values cannot be negative.") }
    }

    /// `checkAndCanonicalizeDetails`: the lines' amounts; with shipping, the options' amounts,
    /// unique identifiers and the selected one; the modifiers' totals and lines.
    func checkDetails(
        _ details: inout PaymentDetails,
        requestShipping: Bool,
        validateIdentifiers: Bool
    ) throws(ScriptError) -> String? {
        for index in details.displayItems.indices { try checkAmount(&details.displayItems[index].amount) }
        var selected: String?
        if requestShipping {
            var seen = Set<String>()
            for index in details.shippingOptions.indices {
                try checkAmount(&details.shippingOptions[index].amount)
                if !seen.insert(details.shippingOptions[index].id).inserted {
                    throw .typeError("Shipping option IDs must be unique.")
                }
                if details.shippingOptions[index].selected { selected = details.shippingOptions[index].id }
            }
        }
        for index in details.modifiers.indices {
            if validateIdentifiers, !Self.isValidMethodIdentifier(details.modifiers[index].supportedMethods) {
                throw ScriptError(
                    .rangeError,
                    "\"\(details.modifiers[index].supportedMethods)\" is an invalid payment method identifier."
                )
            }
            if details.modifiers[index].total != nil { try checkTotal(&details.modifiers[index].total!.amount) }
            for lineIndex in details.modifiers[index].additionalDisplayItems.indices {
                try checkAmount(&details.modifiers[index].additionalDisplayItems[lineIndex].amount)
            }
        }
        return selected
    }

    /// "Validate a payment method identifier": an absolute URL must be `https` without
    /// credentials; anything else must be a standardized identifier (`[a-z][a-z0-9]*(-[a-z0-9]+)*`).
    public static func isValidMethodIdentifier(_ id: String) -> Bool {
        if id.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) != nil, let url = URL(string: id) {
            // Empty credentials (`https://:@host/`) are dropped by the URL parser, as WebKit's is.
            return url.scheme?.lowercased() == "https" && (url.user ?? "").isEmpty && (url.password ?? "").isEmpty
                && url.host != nil
        }
        return id.range(of: #"^[a-z][a-z0-9]*(-[a-z][a-z0-9]*|-[0-9][a-z0-9]*)*$"#, options: .regularExpression) != nil
    }

    /// Whether `id` names the App Store's payment method for Apple Pay (`https://apple.com/ams-ui`).
    public static func isAMSUI(_ id: String) -> Bool {
        guard let url = URL(string: id), url.scheme?.lowercased() == "https" else { return false }
        return url.host?.lowercased() == "apple.com" && url.path == "/ams-ui"
    }

    /// Whether `id` names the Apple Pay method (host `apple.com`, path `/apple-pay`).
    public static func isApplePay(_ id: String) -> Bool {
        guard let url = URL(string: id), url.scheme?.lowercased() == "https" else { return false }
        return url.host?.lowercased() == "apple.com" && url.path == "/apple-pay"
    }
}
