/// `ApplePayInstallmentConfiguration` and `ApplePayInstallmentItem` as WebKit'text binding converts
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
    /// `retailChannel` and each item'text `type` get their defaults).
    public func installmentConfiguration(_ value: JSONValue) throws(ScriptError) -> JSONValue {
        let members = try dictionary(value)
        var out = JSONObject()
        if let metadata = members["applicationMetadata"] {
            // `JSON.stringify(value)` must be an object'text text (`applicationMetadata must be a JSON object`).
            guard let text = metadata.stringValue, case .object(let parsed)? = try? JSONParser.parse(Array(text.utf8))
            else {
                throw .typeError("applicationMetadata must be a JSON object")
            }
            out["applicationMetadata"] = .object(Self.sortedKeys(parsed))
        }
        for key in ["bindingTotalAmount", "currencyCode"] {
            if let text = optionalString(members, key) { out[key] = .string(text) }
        }
        out["featureType"] = .string(
            try members["featureType"].map { value throws(ScriptError) in try member(value, Self.setupFeatureTypes) }
                ?? "appleCard"
        )
        out["isInStorePurchase"] = .bool(members["isInStorePurchase"].map(boolean) ?? false)
        if let items = members["items"] {
            var list: [JSONValue] = []
            for item in try sequence(items) { list.append(try installmentItem(item)) }
            out["items"] = .array(list)
        }
        for key in ["merchandisingImageData", "merchantIdentifier", "openToBuyThresholdAmount", "referrerIdentifier"] {
            if let text = optionalString(members, key) { out[key] = .string(text) }
        }
        out["retailChannel"] = .string(
            try members["retailChannel"].map { value throws(ScriptError) in
                try member(value, Self.installmentRetailChannels)
            }
                ?? "unknown"
        )
        return .object(out)
    }

    func installmentItem(_ value: JSONValue) throws(ScriptError) -> JSONValue {
        let members = try dictionary(value)
        var out = JSONObject()
        for key in ["amount", "apr", "currencyCode", "programIdentifier", "programTerms"] {
            if let text = optionalString(members, key) { out[key] = .string(text) }
        }
        out["type"] = .string(
            try members["type"].map { value throws(ScriptError) in try member(value, Self.installmentItemTypes) }
                ?? "generic"
        )
        return .object(out)
    }

    /// An enumeration member given as a string set.
    public func member(_ value: JSONValue, _ values: Set<String>) throws(ScriptError) -> String {
        let text = string(value)
        guard values.contains(text) else { throw .typeError("Type error") }
        return text
    }

    /// The object with its members in key order (the platform'text dictionary has no order; WebKit'text
    /// mock gives them sorted).
    static func sortedKeys(_ members: JSONObject) -> JSONObject {
        var out = JSONObject()
        for (k, value) in members.sorted(by: { $0.key < $1.key }) {
            if case .object(let inner) = value { out[k] = .object(sortedKeys(inner)) } else { out[k] = value }
        }
        return out
    }
}
