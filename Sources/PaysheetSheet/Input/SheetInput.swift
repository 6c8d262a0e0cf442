import PaysheetModel

/// Reads a sheet's configuration and a user's actions from JSON, strictly: an unknown key or a
/// value of the wrong kind is a ``SheetInputError``. Scenario files and the browser bridge both read
/// them here, so a page and a scenario accept the same keys and values.
public enum SheetInput {
    /// The keys of `options`.
    public static let optionKeys: Set<String> = [
        "timeoutSeconds", "initialEvents", "listeners", "profile", "validationURL", "canMakePayments", "activeCard",
        "browser", "frame", "language",
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
        for key in opts.keys where !optionKeys.contains(key) {
            throw fail("options.\(key)", "unknown option (known: \(optionKeys.sorted().joined(separator: ", ")))")
        }
        if let timeout = opts["timeoutSeconds"] {
            guard let seconds = timeout.doubleValue, seconds > 0 else {
                throw fail("options.timeoutSeconds", "must be a positive number")
            }
            config.timeoutSeconds = seconds
        }
        if let events = opts["initialEvents"] {
            config.initialEvents = try eventTypes(events, field: "options.initialEvents")
        }
        if let events = opts["listeners"] {
            config.listeners = Set(try eventTypes(events, field: "options.listeners"))
        }
        if let profileJSON = opts["profile"] {
            guard let name = profileJSON.stringValue, let profile = SafariProfile(rawValue: name) else {
                throw fail(
                    "options.profile",
                    "one of \(SafariProfile.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            config.profile = profile
        }
        if let urlJSON = opts["validationURL"] {
            guard let url = urlJSON.stringValue else { throw fail("options.validationURL", "must be a string") }
            config.validationURL = url
        }
        if let canJSON = opts["canMakePayments"] {
            guard let flag = canJSON.boolValue else { throw fail("options.canMakePayments", "must be true or false") }
            config.canMakePayments = flag
        }
        if let activeJSON = opts["activeCard"] {
            guard let flag = activeJSON.boolValue else { throw fail("options.activeCard", "must be true or false") }
            config.activeCard = flag
        }
        if let browserJSON = opts["browser"] {
            switch browserJSON.stringValue {
            case "safari": config.thirdPartyBrowser = false
            case "thirdParty": config.thirdPartyBrowser = true
            default: throw fail("options.browser", "one of safari, thirdParty")
            }
        }
        if let frameJSON = opts["frame"] {
            guard let frame = FrameContext(json: frameJSON) else {
                throw fail(
                    "options.frame",
                    "must be {\"origins\": [the document's origin, …, the top-level document's], "
                        + "\"paymentAllowed\": true, false or null}"
                )
            }
            config.frame = frame
        }
        if let languageJSON = opts["language"] {
            guard let tags = languageTags(languageJSON) else {
                throw fail(
                    "options.language",
                    "must be a language tag (\"zh-Hans\", \"ja\", \"en\", \"zh-CN\", …) or a list of them, most preferred first"
                )
            }
            config.language = SheetLanguage.preferred(tags)
        }
        return config
    }

    /// The language tags `value` lists (one tag, or a non-empty list of them), each well formed:
    /// letters, then subtags of letters and digits after `-` or `_`. `nil` otherwise.
    public static func languageTags(_ value: JSONValue) -> [String]? {
        let tags: [String]
        switch value {
        case .string(let tag): tags = [tag]
        case .array(let items):
            let strings = items.compactMap(\.stringValue)
            guard !items.isEmpty, strings.count == items.count else { return nil }
            tags = strings
        default: return nil
        }
        func wellFormed(_ tag: String) -> Bool {
            let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
                .flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
            guard let primary = subtags.first, (1...8).contains(primary.count),
                primary.allSatisfy({ $0.isASCII && $0.isLetter })
            else { return false }
            return subtags.dropFirst().allSatisfy { sub in
                (1...8).contains(sub.count) && sub.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            }
        }
        return tags.allSatisfy(wellFormed) ? tags : nil
    }

    /// A user action written as `{"user": "selectPaymentMethod", "index": 1}` (a scenario's `user`
    /// step; the browser's scripting API sends its actions in this form).
    public static func userAction(_ members: JSONObject) throws(SheetInputError) -> UserAction {
        func fail(_ field: String, _ message: String) -> SheetInputError {
            SheetInputError(field: field, message: message)
        }
        func allow(_ keys: Set<String>) throws(SheetInputError) {
            for unknown in members.keys where !keys.contains(unknown) {
                throw fail(unknown, "unknown key for this step (known: \(keys.sorted().joined(separator: ", ")))")
            }
        }
        func int(_ key: String) throws(SheetInputError) -> Int {
            guard case .number(let number)? = members[key], let integer = Int(number) else {
                throw fail(key, "required: a whole number")
            }
            return integer
        }
        guard members["user"] != nil else { throw fail("user", "required: the action's name") }
        guard let name = members["user"]?.stringValue else { throw fail("user", "must be a string") }
        switch name {
        case "selectPaymentMethod":
            try allow(["user", "index"])
            return .selectPaymentMethod(index: try int("index"))
        case "selectShippingContact":
            try allow(["user", "index"])
            return .selectShippingContact(index: try int("index"))
        case "editShippingContact":
            try allow(["user", "contact"])
            guard let contactJSON = members["contact"], case .object = contactJSON else {
                throw fail("contact", "required: an ApplePayPaymentContact object")
            }
            do throws(ScriptError) {
                return .editShippingContact(try WebIDLBinding(profile: .current).contact(contactJSON))
            } catch {
                throw fail("contact", "not a contact: \(error.message)")
            }
        case "editContact":
            try allow(["user", "email", "phone"])
            return .editContact(email: members["email"]?.stringValue, phone: members["phone"]?.stringValue)
        case "selectShippingMethod":
            try allow(["user", "identifier"])
            guard let id = members["identifier"]?.stringValue else { throw fail("identifier", "required: a string") }
            return .selectShippingMethod(identifier: id)
        case "enterCouponCode":
            try allow(["user", "code"])
            guard let contactJSON = members["code"]?.stringValue else { throw fail("code", "required: a string") }
            return .enterCouponCode(contactJSON)
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
        if let decodingError = error as? DecodingError {
            switch decodingError {
            case .keyNotFound(let key, let context):
                return "missing \"\(key.stringValue)\" at \(path(context.codingPath))"
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return "\(context.debugDescription) at \(path(context.codingPath))"
            @unknown default: return "\(decodingError)"
            }
        }
        return "\(error)"
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".").description
    }

    private static func eventTypes(_ value: JSONValue, field: String) throws(SheetInputError) -> [SheetEventType] {
        guard case .array(let array) = value else {
            throw SheetInputError(field: field, message: "must be an array of event types")
        }
        var out: [SheetEventType] = []
        for element in array {
            guard let name = element.stringValue, let type = SheetEventType(rawValue: name) else {
                throw SheetInputError(field: field, message: "unknown event type \(element.compactText)")
            }
            out.append(type)
        }
        return out
    }
}
