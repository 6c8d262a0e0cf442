/// `ApplePayInstallmentConfiguration` and `ApplePayInstallmentItem` as WebKit's binding converts
/// them (`ApplePayInstallmentConfiguration.idl`, `ApplePayInstallmentItem.idl`): members in
/// lexicographic order, enumerations checked, defaults filled in. The page sends
/// `applicationMetadata` as the text `JSON.stringify` made of it, which must be a JSON object.
extension WebIDLBinding {
    /// The item types WebKit knows (`ApplePayInstallmentItemType`).
    static let installmentItemTypes: Set<String> = ["generic", "phone", "pad", "watch", "mac"]
    /// The retail channels (`ApplePayInstallmentRetailChannel`).
    static let installmentRetailChannels: Set<String> = ["unknown", "app", "web", "inStore"]
    /// The setup feature types (`ApplePaySetupFeatureType`).
    public static let setupFeatureTypes: Set<String> = ["appleCard", "installment"]

    /// The configuration as the platform receives it: a JSON object with every member WebKit
    /// passes on (absent strings stay absent; `featureType`, `isInStorePurchase`,
    /// `retailChannel` and each item's `type` get their defaults).
    public func installmentConfiguration(_ v: JSONValue) throws(ScriptError) -> JSONValue {
        let o = try dictionary(v)
        var out = JSONObject()
        if let m = o["applicationMetadata"] {
            // `JSON.stringify(value)` must be an object's text (`applicationMetadata must be a JSON object`).
            guard let text = m.stringValue, case .object(let parsed)? = try? JSONParser.parse(Array(text.utf8)) else {
                throw .typeError("applicationMetadata must be a JSON object")
            }
            out["applicationMetadata"] = .object(Self.sortedKeys(parsed))
        }
        for key in ["bindingTotalAmount", "currencyCode"] {
            if let s = optionalString(o, key) { out[key] = .string(s) }
        }
        out["featureType"] = .string(
            try o["featureType"].map { v throws(ScriptError) in try member(v, Self.setupFeatureTypes) } ?? "appleCard"
        )
        out["isInStorePurchase"] = .bool(o["isInStorePurchase"].map(boolean) ?? false)
        if let items = o["items"] {
            var list: [JSONValue] = []
            for item in try sequence(items) { list.append(try installmentItem(item)) }
            out["items"] = .array(list)
        }
        for key in ["merchandisingImageData", "merchantIdentifier", "openToBuyThresholdAmount", "referrerIdentifier"] {
            if let s = optionalString(o, key) { out[key] = .string(s) }
        }
        out["retailChannel"] = .string(
            try o["retailChannel"].map { v throws(ScriptError) in try member(v, Self.installmentRetailChannels) }
                ?? "unknown"
        )
        return .object(out)
    }

    func installmentItem(_ v: JSONValue) throws(ScriptError) -> JSONValue {
        let o = try dictionary(v)
        var out = JSONObject()
        for key in ["amount", "apr", "currencyCode", "programIdentifier", "programTerms"] {
            if let s = optionalString(o, key) { out[key] = .string(s) }
        }
        out["type"] = .string(
            try o["type"].map { v throws(ScriptError) in try member(v, Self.installmentItemTypes) } ?? "generic"
        )
        return .object(out)
    }

    /// An enumeration member given as a string set.
    public func member(_ v: JSONValue, _ values: Set<String>) throws(ScriptError) -> String {
        let s = string(v)
        guard values.contains(s) else { throw .typeError("Type error") }
        return s
    }

    /// The object with its members in key order (the platform's dictionary has no order; WebKit's
    /// mock gives them sorted).
    static func sortedKeys(_ o: JSONObject) -> JSONObject {
        var out = JSONObject()
        for (k, v) in o.sorted(by: { $0.key < $1.key }) {
            if case .object(let inner) = v { out[k] = .object(sortedKeys(inner)) } else { out[k] = v }
        }
        return out
    }
}
