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
    public func string(_ v: JSONValue) -> String { v.javaScriptString }

    /// An optional `DOMString` member: absent → nil.
    func optionalString(_ o: JSONObject, _ key: String) -> String? {
        o[key].map(string)
    }

    /// A required `DOMString` member.
    func requiredString(_ o: JSONObject, _ key: String, dictionary: String) throws(ScriptError) -> String {
        guard let v = o[key] else { throw missing(dictionary, key, "DOMString") }
        return string(v)
    }

    func missing(_ dictionary: String, _ key: String, _ type: String) -> ScriptError {
        .typeError("Member \(dictionary).\(key) is required and must be an instance of \(type)")
    }

    /// `boolean`: JavaScript truthiness.
    public func boolean(_ v: JSONValue) -> Bool {
        switch v {
        case .null: return false
        case .bool(let b): return b
        case .number(let n): return (Double(n) ?? 0) != 0
        case .string(let s): return !s.isEmpty
        case .array, .object: return true
        }
    }

    /// `unsigned long`.
    public func unsignedLong(_ v: JSONValue) -> Int {
        let d: Double
        switch v {
        case .null: d = 0
        case .bool(let b): d = b ? 1 : 0
        case .number(let n): d = Double(n) ?? 0
        case .string(let s):
            d =
                Double(s.trimmingCharacters(in: .whitespaces))
                ?? (s.trimmingCharacters(in: .whitespaces).isEmpty ? 0 : .nan)
        case .array(let a): d = a.isEmpty ? 0 : (a.count == 1 ? Double(a[0].javaScriptString) ?? .nan : .nan)
        case .object: d = .nan
        }
        guard d.isFinite else { return 0 }
        let t = d < 0 ? -(-d).rounded(.down) : d.rounded(.down)
        let m = t.truncatingRemainder(dividingBy: 4_294_967_296)
        return Int(m < 0 ? m + 4_294_967_296 : m)
    }

    /// `sequence<T>`: an array; other values are `TypeError`s.
    public func sequence(_ v: JSONValue) throws(ScriptError) -> [JSONValue] {
        switch v {
        case .array(let a): return a
        case .object: throw .typeError("Type error")
        default: throw .typeError("Value is not a sequence")
        }
    }

    /// An enumeration value.
    func enumeration<E: RawRepresentable>(_ v: JSONValue, _ type: E.Type) throws(ScriptError) -> E
    where E.RawValue == String {
        guard let e = E(rawValue: string(v)) else { throw .typeError("Type error") }
        return e
    }

    /// A dictionary-typed value: `null` → empty, arrays count as objects with no members,
    /// primitives are `TypeError`s.
    public func dictionary(_ v: JSONValue) throws(ScriptError) -> JSONObject {
        switch v {
        case .null: return JSONObject()
        case .object(let o): return o
        case .array: return JSONObject()
        default: throw .typeError("Type error")
        }
    }

    /// An optional dictionary member: absent or `null` → nil.
    func optionalDictionary(_ o: JSONObject, _ key: String) throws(ScriptError) -> JSONObject? {
        guard let v = o[key], !v.isNull else { return nil }
        return try dictionary(v)
    }

    // MARK: Dictionaries

    public func lineItem(_ v: JSONValue) throws(ScriptError) -> ApplePayLineItem {
        let o = try dictionary(v)
        var item = ApplePayLineItem(label: nil, amount: nil)
        item.amount = optionalString(o, "amount")
        item.automaticReloadPaymentThresholdAmount = optionalString(o, "automaticReloadPaymentThresholdAmount")
        item.deferredPaymentDate = o["deferredPaymentDate"].map(string)
        item.label = optionalString(o, "label")
        if let t = o["paymentTiming"] { item.paymentTiming = try enumeration(t, ApplePayPaymentTiming.self) }
        item.recurringPaymentEndDate = o["recurringPaymentEndDate"].map(string)
        if let c = o["recurringPaymentIntervalCount"] { item.recurringPaymentIntervalCount = unsignedLong(c) }
        if let u = o["recurringPaymentIntervalUnit"] {
            item.recurringPaymentIntervalUnit = try enumeration(u, ApplePayRecurringPaymentDateUnit.self)
        }
        item.recurringPaymentStartDate = o["recurringPaymentStartDate"].map(string)
        if let t = o["type"] { item.type = try enumeration(t, ApplePayLineItemType.self) }
        return item
    }

    public func lineItems(_ v: JSONValue) throws(ScriptError) -> [ApplePayLineItem] {
        var out: [ApplePayLineItem] = []
        for e in try sequence(v) { out.append(try lineItem(e)) }
        return out
    }

    func dateComponents(_ v: JSONValue) throws(ScriptError) -> ApplePayDateComponents {
        let o = try dictionary(v)
        return ApplePayDateComponents(
            years: o["years"].map(unsignedLong),
            months: o["months"].map(unsignedLong),
            days: o["days"].map(unsignedLong),
            hours: o["hours"].map(unsignedLong)
        )
    }

    func shippingMethod(_ v: JSONValue) throws(ScriptError) -> ApplePayShippingMethod {
        let o = try dictionary(v)
        let d = "ApplePayShippingMethod"
        let amount = try requiredString(o, "amount", dictionary: d)
        var range: ApplePayDateComponentsRange?
        if let r = try optionalDictionary(o, "dateComponentsRange") {
            guard let e = r["endDateComponents"] else {
                throw missing("ApplePayDateComponentsRange", "endDateComponents", "ApplePayDateComponents")
            }
            let end = try dateComponents(e)
            guard let s = r["startDateComponents"] else {
                throw missing("ApplePayDateComponentsRange", "startDateComponents", "ApplePayDateComponents")
            }
            range = ApplePayDateComponentsRange(startDateComponents: try dateComponents(s), endDateComponents: end)
        }
        let detail = try requiredString(o, "detail", dictionary: d)
        let identifier = try requiredString(o, "identifier", dictionary: d)
        let label = try requiredString(o, "label", dictionary: d)
        let selected = o["selected"].map(boolean)
        return ApplePayShippingMethod(
            label: label,
            detail: detail,
            amount: amount,
            identifier: identifier,
            dateComponentsRange: range,
            selected: selected
        )
    }

    public func shippingMethods(_ v: JSONValue) throws(ScriptError) -> [ApplePayShippingMethod] {
        var out: [ApplePayShippingMethod] = []
        for e in try sequence(v) { out.append(try shippingMethod(e)) }
        return out
    }

    public func contact(_ v: JSONValue) throws(ScriptError) -> ApplePayPaymentContact {
        let o = try dictionary(v)
        var c = ApplePayPaymentContact()
        if let a = o["addressLines"] {
            var lines: [String] = []
            for l in try sequence(a) { lines.append(string(l)) }
            c.addressLines = lines
        }
        c.administrativeArea = optionalString(o, "administrativeArea")
        c.country = optionalString(o, "country")
        c.countryCode = optionalString(o, "countryCode")
        c.emailAddress = optionalString(o, "emailAddress")
        c.familyName = optionalString(o, "familyName")
        c.givenName = optionalString(o, "givenName")
        c.locality = optionalString(o, "locality")
        c.phoneNumber = optionalString(o, "phoneNumber")
        c.phoneticFamilyName = optionalString(o, "phoneticFamilyName")
        c.phoneticGivenName = optionalString(o, "phoneticGivenName")
        c.postalCode = optionalString(o, "postalCode")
        c.subAdministrativeArea = optionalString(o, "subAdministrativeArea")
        c.subLocality = optionalString(o, "subLocality")
        return c
    }

    /// A contact-field list. Unknown values are `TypeError`s; `phoneticName` below version 3 is
    /// rejected by ``RequestValidator`` (WebKit's `ApplePayContactField` conversion).
    func contactFields(_ v: JSONValue) throws(ScriptError) -> [ApplePayContactField] {
        var out: [ApplePayContactField] = []
        for e in try sequence(v) { out.append(try enumeration(e, ApplePayContactField.self)) }
        return out
    }

    func recurring(_ o: JSONObject) throws(ScriptError) -> ApplePayRecurringPaymentRequest {
        let d = "ApplePayRecurringPaymentRequest"
        let agreement = optionalString(o, "billingAgreement")
        guard let m = o["managementURL"] else { throw missing(d, "managementURL", "USVString") }
        guard let desc = o["paymentDescription"] else { throw missing(d, "paymentDescription", "DOMString") }
        guard let regular = o["regularBilling"] else { throw missing(d, "regularBilling", "ApplePayLineItem") }
        let r = try lineItem(regular)
        let token = optionalString(o, "tokenNotificationURL")
        let trial = try o["trialBilling"].flatMap { v throws(ScriptError) in v.isNull ? nil : try lineItem(v) }
        return ApplePayRecurringPaymentRequest(
            paymentDescription: string(desc),
            regularBilling: r,
            trialBilling: trial,
            billingAgreement: agreement,
            managementURL: string(m),
            tokenNotificationURL: token
        )
    }

    func automaticReload(_ o: JSONObject) throws(ScriptError) -> ApplePayAutomaticReloadPaymentRequest {
        let d = "ApplePayAutomaticReloadPaymentRequest"
        guard let billing = o["automaticReloadBilling"] else {
            throw missing(d, "automaticReloadBilling", "ApplePayLineItem")
        }
        let b = try lineItem(billing)
        let agreement = optionalString(o, "billingAgreement")
        guard let m = o["managementURL"] else { throw missing(d, "managementURL", "USVString") }
        guard let desc = o["paymentDescription"] else { throw missing(d, "paymentDescription", "DOMString") }
        return ApplePayAutomaticReloadPaymentRequest(
            paymentDescription: string(desc),
            automaticReloadBilling: b,
            billingAgreement: agreement,
            managementURL: string(m),
            tokenNotificationURL: optionalString(o, "tokenNotificationURL")
        )
    }

    func deferred(_ o: JSONObject) throws(ScriptError) -> ApplePayDeferredPaymentRequest {
        let d = "ApplePayDeferredPaymentRequest"
        let agreement = optionalString(o, "billingAgreement")
        guard let billing = o["deferredBilling"] else { throw missing(d, "deferredBilling", "ApplePayLineItem") }
        let b = try lineItem(billing)
        let date = o["freeCancellationDate"].map(string)
        let zone = optionalString(o, "freeCancellationDateTimeZone")
        guard let m = o["managementURL"] else { throw missing(d, "managementURL", "USVString") }
        guard let desc = o["paymentDescription"] else { throw missing(d, "paymentDescription", "DOMString") }
        return ApplePayDeferredPaymentRequest(
            billingAgreement: agreement,
            deferredBilling: b,
            freeCancellationDate: date,
            freeCancellationDateTimeZone: zone,
            managementURL: string(m),
            paymentDescription: string(desc),
            tokenNotificationURL: optionalString(o, "tokenNotificationURL")
        )
    }

    func tokenContexts(_ v: JSONValue) throws(ScriptError) -> [ApplePayPaymentTokenContext] {
        var out: [ApplePayPaymentTokenContext] = []
        let d = "ApplePayPaymentTokenContext"
        for e in try sequence(v) {
            let o = try dictionary(e)
            let amount = try requiredString(o, "amount", dictionary: d)
            let ext = try requiredString(o, "externalIdentifier", dictionary: d)
            let domain = optionalString(o, "merchantDomain")
            let id = try requiredString(o, "merchantIdentifier", dictionary: d)
            let name = try requiredString(o, "merchantName", dictionary: d)
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
    public func applePayError(_ v: JSONValue) throws(ScriptError) -> ApplePayError {
        guard case .object(let o) = v else { throw .typeError("Type error") }
        guard let c = o["code"] else { throw .notEnoughArguments }
        let codes = profile.errorCodes
        guard let code = ApplePayErrorCode(rawValue: string(c)), codes.contains(code) else {
            let list = codes.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw .typeError("Argument 1 ('errorCode') to the ApplePayError constructor must be one of: \(list)")
        }
        var field: ApplePayErrorContactField?
        if let f = o["contactField"], !f.isNull {
            guard let cf = ApplePayErrorContactField(rawValue: string(f)) else {
                let list = ApplePayErrorContactField.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw .typeError("Argument 2 ('contactField') to the ApplePayError constructor must be one of: \(list)")
            }
            field = cf
        }
        let message = o["message"].map { $0.isNull ? "null" : string($0) } ?? ""
        return ApplePayError(code, contactField: field, message: message)
    }

    public func errors(_ v: JSONValue) throws(ScriptError) -> [ApplePayError] {
        var out: [ApplePayError] = []
        for e in try sequence(v) { out.append(try applePayError(e)) }
        return out
    }
}

import Foundation
