import PaysheetModel

/// Reads a sheet's configuration and a user's actions from JSON, strictly: an unknown key or a
/// value of the wrong kind is a ``SheetInputError``. Scenario files and the browser bridge both read
/// them here, so a page and a scenario accept the same keys and values.
public enum SheetInput {
    /// The keys of `options`.
    public static let optionKeys: Set<String> = [
        "timeoutSeconds", "initialEvents", "listeners", "profile", "validationURL", "canMakePayments", "frame",
    ]

    /// The sheet configuration that `wallet` and `options` describe (both optional), with the
    /// defaults for the rest.
    public static func configuration(
        wallet: JSONValue?,
        options: JSONValue?
    ) throws(SheetInputError) -> SheetConfiguration {
        func fail(_ field: String, _ message: String) -> SheetInputError {
            SheetInputError(field: field, message: message)
        }
        var config = SheetConfiguration()
        if let wallet, !wallet.isNull {
            guard case .object = wallet else { throw fail("wallet", "must be an object") }
            do { config.wallet = try decodeJSONValue(Wallet.self, from: wallet) } catch {
                throw fail("wallet", "not a wallet: \(describe(error))")
            }
        }
        guard let options, !options.isNull else { return config }
        guard case .object(let opts) = options else { throw fail("options", "must be an object") }
        for k in opts.keys where !optionKeys.contains(k) {
            throw fail("options.\(k)", "unknown option (known: \(optionKeys.sorted().joined(separator: ", ")))")
        }
        if let t = opts["timeoutSeconds"] {
            guard let d = t.doubleValue, d > 0 else {
                throw fail("options.timeoutSeconds", "must be a positive number")
            }
            config.timeoutSeconds = d
        }
        if let e = opts["initialEvents"] {
            config.initialEvents = try eventTypes(e, field: "options.initialEvents")
        }
        if let e = opts["listeners"] {
            config.listeners = Set(try eventTypes(e, field: "options.listeners"))
        }
        if let p = opts["profile"] {
            guard let s = p.stringValue, let profile = SafariProfile(rawValue: s) else {
                throw fail(
                    "options.profile",
                    "one of \(SafariProfile.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            config.profile = profile
        }
        if let u = opts["validationURL"] {
            guard let s = u.stringValue else { throw fail("options.validationURL", "must be a string") }
            config.validationURL = s
        }
        if let c = opts["canMakePayments"] {
            guard let b = c.boolValue else { throw fail("options.canMakePayments", "must be true or false") }
            config.canMakePayments = b
        }
        if let f = opts["frame"] {
            guard let frame = FrameContext(json: f) else {
                throw fail(
                    "options.frame",
                    "must be {\"origins\": [the document's origin, …, the top-level document's], "
                        + "\"paymentAllowed\": true, false or null}"
                )
            }
            config.frame = frame
        }
        return config
    }

    /// A user action written as `{"user": "selectPaymentMethod", "index": 1}` (a scenario's `user`
    /// step; the browser's scripting API sends its actions in this form).
    public static func userAction(_ o: JSONObject) throws(SheetInputError) -> UserAction {
        func fail(_ field: String, _ message: String) -> SheetInputError {
            SheetInputError(field: field, message: message)
        }
        func allow(_ keys: Set<String>) throws(SheetInputError) {
            for k in o.keys where !keys.contains(k) {
                throw fail(k, "unknown key for this step (known: \(keys.sorted().joined(separator: ", ")))")
            }
        }
        func int(_ key: String) throws(SheetInputError) -> Int {
            guard case .number(let n)? = o[key], let i = Int(n) else { throw fail(key, "required: a whole number") }
            return i
        }
        guard o["user"] != nil else { throw fail("user", "required: the action's name") }
        guard let name = o["user"]?.stringValue else { throw fail("user", "must be a string") }
        switch name {
        case "selectPaymentMethod":
            try allow(["user", "index"])
            return .selectPaymentMethod(index: try int("index"))
        case "selectShippingContact":
            try allow(["user", "index"])
            return .selectShippingContact(index: try int("index"))
        case "editShippingContact":
            try allow(["user", "contact"])
            guard let c = o["contact"], case .object = c else {
                throw fail("contact", "required: an ApplePayPaymentContact object")
            }
            do throws(ScriptError) {
                return .editShippingContact(try WebIDLBinding(profile: .current).contact(c))
            } catch {
                throw fail("contact", "not a contact: \(error.message)")
            }
        case "editContact":
            try allow(["user", "email", "phone"])
            return .editContact(email: o["email"]?.stringValue, phone: o["phone"]?.stringValue)
        case "selectShippingMethod":
            try allow(["user", "identifier"])
            guard let id = o["identifier"]?.stringValue else { throw fail("identifier", "required: a string") }
            return .selectShippingMethod(identifier: id)
        case "enterCouponCode":
            try allow(["user", "code"])
            guard let c = o["code"]?.stringValue else { throw fail("code", "required: a string") }
            return .enterCouponCode(c)
        case "authorize":
            try allow(["user"])
            return .authorize
        case "cancel":
            try allow(["user"])
            return .cancel
        default: throw fail("user", "unknown user action \"\(name)\"")
        }
    }

    private static func describe(_ error: Error) -> String {
        if let d = error as? DecodingError {
            switch d {
            case .keyNotFound(let k, let c): return "missing \"\(k.stringValue)\" at \(path(c.codingPath))"
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
                return "\(c.debugDescription) at \(path(c.codingPath))"
            @unknown default: return "\(d)"
            }
        }
        return "\(error)"
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".").description
    }

    private static func eventTypes(_ v: JSONValue, field: String) throws(SheetInputError) -> [SheetEventType] {
        guard case .array(let a) = v else {
            throw SheetInputError(field: field, message: "must be an array of event types")
        }
        var out: [SheetEventType] = []
        for e in a {
            guard let s = e.stringValue, let t = SheetEventType(rawValue: s) else {
                throw SheetInputError(field: field, message: "unknown event type \(e.compactText)")
            }
            out.append(t)
        }
        return out
    }
}
