/// Converts page values (JSON) to the typed dictionaries the way WebKit's generated bindings do:
/// members in lexicographic order, required members first reported as missing, `null` strings
/// stringified, non-sequences and bad enum values as `TypeError`s with WebKit's binding messages.
///
/// Only conversion lives here; the semantic checks that follow are in ``RequestValidator`` and
/// ``UpdateValidator``.
public struct WebIDLBinding: Sendable {
    /// The Safari whose rules apply.
    public let profile: SafariProfile

    /// A binding for `profile`.
    public init(profile: SafariProfile) { self.profile = profile }

    // MARK: Primitive conversions

    /// `DOMString`: `null` → `"null"`, numbers and booleans printed as JavaScript prints them.
    public func string(_ value: JSONValue) -> String { value.javaScriptString }

    /// An optional `DOMString` member: absent → nil.
    func optionalString(_ members: JSONObject, _ key: String) -> String? {
        members[key].map(string)
    }

    /// A required `DOMString` member.
    func requiredString(_ members: JSONObject, _ key: String, dictionary: String) throws(ScriptError) -> String {
        guard let value = members[key] else { throw missing(dictionary, key, "DOMString") }
        return string(value)
    }

    func missing(_ dictionary: String, _ key: String, _ type: String) -> ScriptError {
        .typeError("Member \(dictionary).\(key) is required and must be an instance of \(type)")
    }

    /// `boolean`: JavaScript truthiness.
    public func boolean(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return false
        case .bool(let flag): return flag
        case .number(let digits): return (Double(digits) ?? 0) != 0
        case .string(let text): return !text.isEmpty
        case .array, .object: return true
        }
    }

    /// `unsigned long`.
    public func unsignedLong(_ value: JSONValue) -> Int {
        let converted: Double
        switch value {
        case .null: converted = 0
        case .bool(let flag): converted = flag ? 1 : 0
        case .number(let digits): converted = Double(digits) ?? 0
        case .string(let text):
            converted =
                Double(text.trimmingCharacters(in: .whitespaces))
                ?? (text.trimmingCharacters(in: .whitespaces).isEmpty ? 0 : .nan)
        case .array(let elements):
            converted =
                elements.isEmpty ? 0 : (elements.count == 1 ? Double(elements[0].javaScriptString) ?? .nan : .nan)
        case .object: converted = .nan
        }
        guard converted.isFinite else { return 0 }
        let truncated = converted < 0 ? -(-converted).rounded(.down) : converted.rounded(.down)
        let modulo = truncated.truncatingRemainder(dividingBy: 4_294_967_296)
        return Int(modulo < 0 ? modulo + 4_294_967_296 : modulo)
    }

    /// `sequence<T>`: an array; other values are `TypeError`s.
    public func sequence(_ value: JSONValue) throws(ScriptError) -> [JSONValue] {
        switch value {
        case .array(let elements): return elements
        case .object: throw .typeError("Type error")
        default: throw .typeError("Value is not a sequence")
        }
    }

    /// An enumeration value.
    func enumeration<E: RawRepresentable>(_ value: JSONValue, _ type: E.Type) throws(ScriptError) -> E
    where E.RawValue == String {
        guard let known = E(rawValue: string(value)) else { throw .typeError("Type error") }
        return known
    }

    /// A dictionary-typed value: `null` → empty, arrays count as objects with no members,
    /// primitives are `TypeError`s.
    public func dictionary(_ value: JSONValue) throws(ScriptError) -> JSONObject {
        switch value {
        case .null: return JSONObject()
        case .object(let members): return members
        case .array: return JSONObject()
        default: throw .typeError("Type error")
        }
    }

    /// An optional dictionary member: absent or `null` → nil.
    func optionalDictionary(_ members: JSONObject, _ key: String) throws(ScriptError) -> JSONObject? {
        guard let value = members[key], !value.isNull else { return nil }
        return try dictionary(value)
    }

    // MARK: Dictionaries

    public func lineItem(_ value: JSONValue) throws(ScriptError) -> ApplePayLineItem {
        let members = try dictionary(value)
        var item = ApplePayLineItem(label: nil, amount: nil)
        item.amount = optionalString(members, "amount")
        item.automaticReloadPaymentThresholdAmount = optionalString(members, "automaticReloadPaymentThresholdAmount")
        item.deferredPaymentDate = members["deferredPaymentDate"].map(string)
        if let kind = members["disbursementLineItemType"] {
            item.disbursementLineItemType = try enumeration(kind, ApplePayDisbursementLineItemType.self)
        }
        item.label = optionalString(members, "label")
        if let timing = members["paymentTiming"] {
            item.paymentTiming = try enumeration(timing, ApplePayPaymentTiming.self)
        }
        item.recurringPaymentEndDate = members["recurringPaymentEndDate"].map(string)
        if let count = members["recurringPaymentIntervalCount"] {
            item.recurringPaymentIntervalCount = unsignedLong(count)
        }
        if let unit = members["recurringPaymentIntervalUnit"] {
            item.recurringPaymentIntervalUnit = try enumeration(unit, ApplePayRecurringPaymentDateUnit.self)
        }
        item.recurringPaymentStartDate = members["recurringPaymentStartDate"].map(string)
        if let itemType = members["type"] { item.type = try enumeration(itemType, ApplePayLineItemType.self) }
        return item
    }

    public func lineItems(_ value: JSONValue) throws(ScriptError) -> [ApplePayLineItem] {
        var out: [ApplePayLineItem] = []
        for element in try sequence(value) { out.append(try lineItem(element)) }
        return out
    }

    func dateComponents(_ value: JSONValue) throws(ScriptError) -> ApplePayDateComponents {
        let members = try dictionary(value)
        return ApplePayDateComponents(
            years: members["years"].map(unsignedLong),
            months: members["months"].map(unsignedLong),
            days: members["days"].map(unsignedLong),
            hours: members["hours"].map(unsignedLong)
        )
    }

    func shippingMethod(_ value: JSONValue) throws(ScriptError) -> ApplePayShippingMethod {
        let members = try dictionary(value)
        let dictionaryName = "ApplePayShippingMethod"
        let amount = try requiredString(members, "amount", dictionary: dictionaryName)
        var range: ApplePayDateComponentsRange?
        if let rangeMembers = try optionalDictionary(members, "dateComponentsRange") {
            guard let endValue = rangeMembers["endDateComponents"] else {
                throw missing("ApplePayDateComponentsRange", "endDateComponents", "ApplePayDateComponents")
            }
            let end = try dateComponents(endValue)
            guard let startValue = rangeMembers["startDateComponents"] else {
                throw missing("ApplePayDateComponentsRange", "startDateComponents", "ApplePayDateComponents")
            }
            range = ApplePayDateComponentsRange(
                startDateComponents: try dateComponents(startValue),
                endDateComponents: end
            )
        }
        let detail = try requiredString(members, "detail", dictionary: dictionaryName)
        let identifier = try requiredString(members, "identifier", dictionary: dictionaryName)
        let label = try requiredString(members, "label", dictionary: dictionaryName)
        let selected = members["selected"].map(boolean)
        return ApplePayShippingMethod(
            label: label,
            detail: detail,
            amount: amount,
            identifier: identifier,
            dateComponentsRange: range,
            selected: selected
        )
    }

    public func shippingMethods(_ value: JSONValue) throws(ScriptError) -> [ApplePayShippingMethod] {
        var out: [ApplePayShippingMethod] = []
        for element in try sequence(value) { out.append(try shippingMethod(element)) }
        return out
    }

    public func contact(_ value: JSONValue) throws(ScriptError) -> ApplePayPaymentContact {
        let members = try dictionary(value)
        var result = ApplePayPaymentContact()
        if let addressLines = members["addressLines"] {
            var lines: [String] = []
            for line in try sequence(addressLines) { lines.append(string(line)) }
            result.addressLines = lines
        }
        result.administrativeArea = optionalString(members, "administrativeArea")
        result.country = optionalString(members, "country")
        result.countryCode = optionalString(members, "countryCode")
        result.emailAddress = optionalString(members, "emailAddress")
        result.familyName = optionalString(members, "familyName")
        result.givenName = optionalString(members, "givenName")
        result.locality = optionalString(members, "locality")
        result.phoneNumber = optionalString(members, "phoneNumber")
        result.phoneticFamilyName = optionalString(members, "phoneticFamilyName")
        result.phoneticGivenName = optionalString(members, "phoneticGivenName")
        result.postalCode = optionalString(members, "postalCode")
        result.subAdministrativeArea = optionalString(members, "subAdministrativeArea")
        result.subLocality = optionalString(members, "subLocality")
        return result
    }

    /// A contact-field list. Unknown values are `TypeError`s; `phoneticName` below version 3 is
    /// rejected by ``RequestValidator`` (WebKit's `ApplePayContactField` conversion).
    func contactFields(_ value: JSONValue) throws(ScriptError) -> [ApplePayContactField] {
        var out: [ApplePayContactField] = []
        for element in try sequence(value) { out.append(try enumeration(element, ApplePayContactField.self)) }
        return out
    }

    func disbursement(_ members: JSONObject) throws(ScriptError) -> ApplePayDisbursementRequest {
        ApplePayDisbursementRequest(
            requiredRecipientContactFields: try members["requiredRecipientContactFields"].map {
                value throws(ScriptError) in try contactFields(value)
            }
        )
    }

    func recurring(_ members: JSONObject) throws(ScriptError) -> ApplePayRecurringPaymentRequest {
        let dictionaryName = "ApplePayRecurringPaymentRequest"
        let agreement = optionalString(members, "billingAgreement")
        guard let managementURL = members["managementURL"] else {
            throw missing(dictionaryName, "managementURL", "USVString")
        }
        guard let desc = members["paymentDescription"] else {
            throw missing(dictionaryName, "paymentDescription", "DOMString")
        }
        guard let regular = members["regularBilling"] else {
            throw missing(dictionaryName, "regularBilling", "ApplePayLineItem")
        }
        let regularItem = try lineItem(regular)
        let token = optionalString(members, "tokenNotificationURL")
        let trial = try members["trialBilling"].flatMap { billing throws(ScriptError) in
            billing.isNull ? nil : try lineItem(billing)
        }
        return ApplePayRecurringPaymentRequest(
            paymentDescription: string(desc),
            regularBilling: regularItem,
            trialBilling: trial,
            billingAgreement: agreement,
            managementURL: string(managementURL),
            tokenNotificationURL: token
        )
    }

    func automaticReload(_ members: JSONObject) throws(ScriptError) -> ApplePayAutomaticReloadPaymentRequest {
        let dictionaryName = "ApplePayAutomaticReloadPaymentRequest"
        guard let billing = members["automaticReloadBilling"] else {
            throw missing(dictionaryName, "automaticReloadBilling", "ApplePayLineItem")
        }
        let billingItem = try lineItem(billing)
        let agreement = optionalString(members, "billingAgreement")
        guard let managementURL = members["managementURL"] else {
            throw missing(dictionaryName, "managementURL", "USVString")
        }
        guard let desc = members["paymentDescription"] else {
            throw missing(dictionaryName, "paymentDescription", "DOMString")
        }
        return ApplePayAutomaticReloadPaymentRequest(
            paymentDescription: string(desc),
            automaticReloadBilling: billingItem,
            billingAgreement: agreement,
            managementURL: string(managementURL),
            tokenNotificationURL: optionalString(members, "tokenNotificationURL")
        )
    }

    func deferred(_ members: JSONObject) throws(ScriptError) -> ApplePayDeferredPaymentRequest {
        let dictionaryName = "ApplePayDeferredPaymentRequest"
        let agreement = optionalString(members, "billingAgreement")
        guard let billing = members["deferredBilling"] else {
            throw missing(dictionaryName, "deferredBilling", "ApplePayLineItem")
        }
        let billingItem = try lineItem(billing)
        let date = members["freeCancellationDate"].map(string)
        let zone = optionalString(members, "freeCancellationDateTimeZone")
        guard let managementURL = members["managementURL"] else {
            throw missing(dictionaryName, "managementURL", "USVString")
        }
        guard let desc = members["paymentDescription"] else {
            throw missing(dictionaryName, "paymentDescription", "DOMString")
        }
        return ApplePayDeferredPaymentRequest(
            billingAgreement: agreement,
            deferredBilling: billingItem,
            freeCancellationDate: date,
            freeCancellationDateTimeZone: zone,
            managementURL: string(managementURL),
            paymentDescription: string(desc),
            tokenNotificationURL: optionalString(members, "tokenNotificationURL")
        )
    }

    func tokenContexts(_ value: JSONValue) throws(ScriptError) -> [ApplePayPaymentTokenContext] {
        var out: [ApplePayPaymentTokenContext] = []
        let dictionaryName = "ApplePayPaymentTokenContext"
        for element in try sequence(value) {
            let members = try dictionary(element)
            let amount = try requiredString(members, "amount", dictionary: dictionaryName)
            let ext = try requiredString(members, "externalIdentifier", dictionary: dictionaryName)
            let domain = optionalString(members, "merchantDomain")
            let id = try requiredString(members, "merchantIdentifier", dictionary: dictionaryName)
            let name = try requiredString(members, "merchantName", dictionary: dictionaryName)
            out.append(
                ApplePayPaymentTokenContext(
                    merchantIdentifier: id,
                    externalIdentifier: ext,
                    merchantName: name,
                    merchantDomain: domain,
                    amount: amount
                )
            )
        }
        return out
    }

    /// `new ApplePayError(code, contactField, message)` from `{"code", "contactField", "message"}`.
    public func applePayError(_ value: JSONValue) throws(ScriptError) -> ApplePayError {
        guard case .object(let members) = value else { throw .typeError("Type error") }
        guard let codeValue = members["code"] else { throw .notEnoughArguments }
        let codes = profile.errorCodes
        guard let code = ApplePayErrorCode(rawValue: string(codeValue)), codes.contains(code) else {
            let list = codes.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw .typeError("Argument 1 ('errorCode') to the ApplePayError constructor must be one of: \(list)")
        }
        var field: ApplePayErrorContactField?
        if let fieldValue = members["contactField"], !fieldValue.isNull {
            guard let contactField = ApplePayErrorContactField(rawValue: string(fieldValue)) else {
                let list = ApplePayErrorContactField.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw .typeError("Argument 2 ('contactField') to the ApplePayError constructor must be one of: \(list)")
            }
            field = contactField
        }
        let message = members["message"].map { $0.isNull ? "null" : string($0) } ?? ""
        return ApplePayError(code, contactField: field, message: message)
    }

    public func errors(_ value: JSONValue) throws(ScriptError) -> [ApplePayError] {
        var out: [ApplePayError] = []
        for element in try sequence(value) { out.append(try applePayError(element)) }
        return out
    }
}

import Foundation
