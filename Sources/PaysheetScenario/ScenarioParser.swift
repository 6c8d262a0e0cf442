import PaysheetModel
import PaysheetSheet

/// Reads scenario files, strictly: an unknown key, step kind or value is a ``ScenarioError``.
public enum ScenarioParser {
    static let topKeys: Set<String> = ["name", "description", "version", "request", "wallet", "options", "steps"]
    static let optionKeys: Set<String> = ["timeoutSeconds", "initialEvents", "listeners", "profile", "validationURL", "canMakePayments", "frame"]
    static let expectKeys: Set<String> = ["threw", "events", "session", "sheet", "paid", "returned"]
    static let sessionStates: Set<String> = ["idle", "active", "completed", "aborted", "canceled"]
    static let exceptionNames: Set<String> = Set(ScriptError.Name.allCases.map(\.rawValue))

    /// Parses the text of a scenario file.
    public static func parse(_ text: String, file: String) throws(ScenarioError) -> Scenario {
        let json: JSONValue
        do throws(JSONParser.SyntaxError) {
            json = try JSONParser.parse(text)
        } catch {
            throw ScenarioError(file: file, message: "broken JSON at \(error)")
        }
        return try parse(json, file: file)
    }

    /// Parses a scenario given as JSON.
    public static func parse(_ json: JSONValue, file: String) throws(ScenarioError) -> Scenario {
        func fail(_ field: String?, _ message: String, step: Int? = nil) -> ScenarioError {
            ScenarioError(file: file, step: step, field: field, message: message)
        }
        guard case .object(let top) = json else { throw fail(nil, "a scenario is a JSON object, found \(json.kindName)") }
        for k in top.keys where !topKeys.contains(k) { throw fail(k, "unknown key (known: \(topKeys.sorted().joined(separator: ", ")))") }
        guard case .string(let name)? = top["name"] else { throw fail("name", "required: a string") }
        guard case .number(let vText)? = top["version"], let version = Int(vText), version >= 0 else {
            throw fail("version", "required: the API version, a whole number")
        }
        guard let request = top["request"] else { throw fail("request", "required: the ApplePayPaymentRequest") }

        let config = try configuration(wallet: top["wallet"], options: top["options"], file: file)
        guard case .array(let rawSteps)? = top["steps"] else { throw fail("steps", "required: an array of steps") }
        var steps: [ScenarioStep] = []
        for (i, raw) in rawSteps.enumerated() {
            steps.append(try step(raw, number: i + 1, file: file))
        }
        return Scenario(name: name, file: file, version: version, request: request, configuration: config, steps: steps, rawSteps: rawSteps)
    }

    /// The sheet configuration a scenario's `wallet` and `options` describe (both optional), with
    /// the scenario format's defaults for the rest. The browser bridge configures its pages with
    /// the same function, so a page and a scenario file accept the same keys and values.
    public static func configuration(wallet: JSONValue?, options: JSONValue?, file: String) throws(ScenarioError) -> SheetConfiguration {
        func fail(_ field: String?, _ message: String, step: Int? = nil) -> ScenarioError {
            ScenarioError(file: file, step: step, field: field, message: message)
        }
        var config = SheetConfiguration()
        let top: JSONObject = ["wallet": wallet ?? .null, "options": options ?? .null]
        if let w = top["wallet"], !w.isNull {
            guard case .object = w else { throw fail("wallet", "must be an object") }
            do { config.wallet = try decodeJSONValue(Wallet.self, from: w) } catch {
                throw fail("wallet", "not a wallet: \(describe(error))")
            }
        }
        if let o = top["options"], !o.isNull {
            guard case .object(let opts) = o else { throw fail("options", "must be an object") }
            for k in opts.keys where !optionKeys.contains(k) { throw fail("options.\(k)", "unknown option (known: \(optionKeys.sorted().joined(separator: ", ")))") }
            if let t = opts["timeoutSeconds"] {
                guard let d = t.doubleValue, d > 0 else { throw fail("options.timeoutSeconds", "must be a positive number") }
                config.timeoutSeconds = d
            }
            if let e = opts["initialEvents"] { config.initialEvents = try eventTypes(e, field: "options.initialEvents", fail: fail) }
            if let e = opts["listeners"] { config.listeners = Set(try eventTypes(e, field: "options.listeners", fail: fail)) }
            if let p = opts["profile"] {
                guard let s = p.stringValue, let prof = SafariProfile(rawValue: s) else {
                    throw fail("options.profile", "one of \(SafariProfile.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                config.profile = prof
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
                    throw fail("options.frame", "must be {\"origins\": [the document's origin, …, the top-level document's], \"paymentAllowed\": true, false or null}")
                }
                config.frame = frame
            }
        }
        return config
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

    private static func eventTypes(_ v: JSONValue, field: String, fail: (String?, String, Int?) -> ScenarioError) throws(ScenarioError) -> [SheetEventType] {
        guard case .array(let a) = v else { throw fail(field, "must be an array of event types", nil) }
        var out: [SheetEventType] = []
        for e in a {
            guard let s = e.stringValue, let t = SheetEventType(rawValue: s) else {
                throw fail(field, "unknown event type \(e.compactText)", nil)
            }
            out.append(t)
        }
        return out
    }

    /// A user action written as a scenario's `user` step (`{"user": "selectPaymentMethod",
    /// "index": 1}`); the browser's scripting API sends its actions in this form.
    public static func userAction(_ json: JSONValue) throws(ScenarioError) -> UserAction {
        guard case .object(let o) = json, o["user"] != nil else { throw ScenarioError(file: "user action", field: "user", message: "required: the action's name") }
        guard case .user(let action) = try step(json, number: 1, file: "user action") else {
            throw ScenarioError(file: "user action", field: "user", message: "not a user action")
        }
        return action
    }

    static func step(_ raw: JSONValue, number: Int, file: String) throws(ScenarioError) -> ScenarioStep {
        func fail(_ field: String?, _ message: String) -> ScenarioError {
            ScenarioError(file: file, step: number, field: field, message: message)
        }
        guard case .object(let o) = raw else { throw fail(nil, "a step is an object, found \(raw.kindName)") }
        let kinds = ["page", "user", "wait", "expect"].filter { o[$0] != nil }
        guard kinds.count == 1 else {
            throw fail(nil, kinds.isEmpty ? "a step needs one of page, user, wait, expect (found \(o.keys.joined(separator: ", ")))"
                                            : "a step has exactly one of page, user, wait, expect (found \(kinds.joined(separator: ", ")))")
        }
        func allow(_ keys: Set<String>) throws(ScenarioError) {
            for k in o.keys where !keys.contains(k) { throw fail(k, "unknown key for this step (known: \(keys.sorted().joined(separator: ", ")))") }
        }
        func int(_ key: String) throws(ScenarioError) -> Int {
            guard case .number(let n)? = o[key], let i = Int(n) else { throw fail(key, "required: a whole number") }
            return i
        }
        switch kinds[0] {
        case "wait":
            try allow(["wait"])
            guard let d = o["wait"]?.doubleValue, d >= 0 else { throw fail("wait", "must be a number of seconds, 0 or more") }
            return .wait(d)
        case "expect":
            try allow(["expect"])
            return .expect(try expectation(o["expect"]!, fail: fail))
        case "user":
            guard let name = o["user"]?.stringValue else { throw fail("user", "must be a string") }
            switch name {
            case "selectPaymentMethod": try allow(["user", "index"]); return .user(.selectPaymentMethod(index: try int("index")))
            case "selectShippingContact": try allow(["user", "index"]); return .user(.selectShippingContact(index: try int("index")))
            case "editShippingContact":
                try allow(["user", "contact"])
                guard let c = o["contact"], case .object = c else { throw fail("contact", "required: an ApplePayPaymentContact object") }
                do throws(ScriptError) {
                    return .user(.editShippingContact(try WebIDLBinding(profile: .current).contact(c)))
                } catch {
                    throw fail("contact", "not a contact: \(error.message)")
                }
            case "editContact":
                try allow(["user", "email", "phone"])
                return .user(.editContact(email: o["email"]?.stringValue, phone: o["phone"]?.stringValue))
            case "selectShippingMethod":
                try allow(["user", "identifier"])
                guard let id = o["identifier"]?.stringValue else { throw fail("identifier", "required: a string") }
                return .user(.selectShippingMethod(identifier: id))
            case "enterCouponCode":
                try allow(["user", "code"])
                guard let c = o["code"]?.stringValue else { throw fail("code", "required: a string") }
                return .user(.enterCouponCode(c))
            case "authorize": try allow(["user"]); return .user(.authorize)
            case "cancel": try allow(["user"]); return .user(.cancel)
            default: throw fail("user", "unknown user action \"\(name)\"")
            }
        default:
            guard let name = o["page"]?.stringValue else { throw fail("page", "must be a string") }
            var instance = 1
            if o["instance"] != nil {
                instance = try int("instance")
                if instance < 1 { throw fail("instance", "must be 1 or more") }
            }
            func argsOr(_ key: String, _ method: PageCall.Method) throws(ScenarioError) -> PageStep {
                try allow(["page", "instance", key, "args"])
                if let a = o["args"] {
                    guard case .array(let args) = a else { throw fail("args", "must be an array") }
                    if o[key] != nil { throw fail("args", "give either \"\(key)\" or \"args\", not both") }
                    return .call(.legacy(method: method, arguments: args))
                }
                guard let v = o[key] else { throw fail(key, "required (or \"args\" for the positional form)") }
                return .call(PageCall(method, argument: v))
            }
            let step: PageStep
            switch name {
            case "construct":
                try allow(["page", "instance", "version", "request", "userGesture"])
                let v = o["version"] == nil ? nil : try int("version")
                var gesture = true
                if let g = o["userGesture"] {
                    guard let b = g.boolValue else { throw fail("userGesture", "must be true or false") }
                    gesture = b
                }
                step = .construct(version: v, request: o["request"], userGesture: gesture)
            case "begin": try allow(["page", "instance"]); step = .call(.begin)
            case "abort": try allow(["page", "instance"]); step = .call(.abort)
            case "completeMerchantValidation":
                try allow(["page", "instance", "session"])
                guard let s = o["session"] else { throw fail("session", "required: the merchant session object") }
                step = .call(.completeMerchantValidation(s))
            case "completePaymentMethodSelection": step = try argsOr("update", .completePaymentMethodSelection)
            case "completeShippingContactSelection": step = try argsOr("update", .completeShippingContactSelection)
            case "completeShippingMethodSelection": step = try argsOr("update", .completeShippingMethodSelection)
            case "completeCouponCodeChange": step = try argsOr("update", .completeCouponCodeChange)
            case "completePayment": step = try argsOr("result", .completePayment)
            case "supportsVersion": try allow(["page", "version"]); step = .supportsVersion(try int("version"))
            case "canMakePayments": try allow(["page"]); step = .canMakePayments
            case "canMakePaymentsWithActiveCard": try allow(["page", "merchantIdentifier"]); step = .canMakePaymentsWithActiveCard
            case "openPaymentSetup":
                try allow(["page", "merchantIdentifier", "userGesture"])
                step = .openPaymentSetup(userGesture: o["userGesture"]?.boolValue ?? true)
            case "newApplePayError":
                try allow(["page", "args"])
                guard case .array(let a)? = o["args"] else { throw fail("args", "required: the constructor's arguments") }
                step = .newApplePayError(a)
            case "navigate": try allow(["page"]); step = .navigate
            case "newPaymentRequest":
                try allow(["page", "instance", "methodData", "details", "options"])
                guard let m = o["methodData"] else { throw fail("methodData", "required: the constructor's first argument") }
                guard let d = o["details"] else { throw fail("details", "required: the constructor's second argument") }
                step = .newPaymentRequest(methodData: m, details: d, options: o["options"])
            case "request.show":
                try allow(["page", "instance", "userGesture"])
                step = .request(name: name, [.show(userGesture: o["userGesture"]?.boolValue ?? true)])
            case "request.abort": try allow(["page", "instance"]); step = .request(name: name, [.abort])
            case "request.canMakePayment": try allow(["page", "instance"]); step = .request(name: name, [.canMakePayment])
            case "request.completeMerchantValidation":
                try allow(["page", "instance", "session", "rejected"])
                let settled: JSONValue? = o["rejected"]?.boolValue == true ? nil : (o["session"] ?? .null)
                step = .request(name: name, [.completeMerchantValidation, .merchantSessionSettled(settled)])
            case "request.updateWith":
                try allow(["page", "instance", "details", "rejected"])
                let settled: JSONValue? = o["rejected"]?.boolValue == true ? nil : (o["details"] ?? .null)
                step = .request(name: name, [.updateWith, .detailsSettled(settled)])
            case "request.notUpdated": try allow(["page", "instance"]); step = .request(name: name, [.notUpdated])
            case "response.complete": try allow(["page", "instance", "result"]); step = .request(name: name, [.complete(o["result"])])
            case "response.retry": try allow(["page", "instance", "errors"]); step = .request(name: name, [.retry(o["errors"])])
            default: throw fail("page", "unknown page call \"\(name)\"")
            }
            return .page(step, instance: instance)
        }
    }

    static func expectation(_ v: JSONValue, fail: (String?, String) -> ScenarioError) throws(ScenarioError) -> Expectation {
        guard case .object(let o) = v, !o.isEmpty else { throw fail("expect", "must be an object with at least one check") }
        var e = Expectation(raw: v)
        for k in o.keys where !expectKeys.contains(k) { throw fail("expect.\(k)", "unknown expectation (known: \(expectKeys.sorted().joined(separator: ", ")))") }
        if let t = o["threw"] {
            switch t {
            case .null: break
            case .string(let s): if !exceptionNames.contains(s) { throw fail("expect.threw", "unknown exception name \"\(s)\"") }
            case .object(let to):
                for k in to.keys where k != "name" && k != "message" { throw fail("expect.threw.\(k)", "unknown key (known: message, name)") }
                if let n = to["name"]?.stringValue, !exceptionNames.contains(n) { throw fail("expect.threw.name", "unknown exception name \"\(n)\"") }
            default: throw fail("expect.threw", "must be null, an exception name or {\"name\", \"message\"}")
            }
            e.threw = .some(t.isNull ? nil : t)
        }
        if let ev = o["events"] {
            guard case .array(let a) = ev else { throw fail("expect.events", "must be an array of event objects") }
            for (i, x) in a.enumerated() {
                guard case .object(let eo) = x, let type = eo["type"]?.stringValue else { throw fail("expect.events[\(i)]", "an event object needs a \"type\"") }
                if SheetEventType(rawValue: type) == nil, type != "ignored", !paymentRequestEventTypes.contains(type) { throw fail("expect.events[\(i)].type", "unknown event type \"\(type)\"") }
                try checkMatchers(x, path: "expect.events[\(i)]", fail: fail)
            }
            e.events = a
        }
        if let s = o["session"] {
            guard let str = s.stringValue, sessionStates.contains(str) else {
                throw fail("expect.session", "one of \(sessionStates.sorted().joined(separator: ", "))")
            }
            e.session = str
        }
        if let sh = o["sheet"] {
            guard case .object(let so) = sh else { throw fail("expect.sheet", "must be a snapshot object") }
            for k in so.keys where !snapshotKeys.contains(k) { throw fail("expect.sheet.\(k)", "unknown snapshot key (known: \(snapshotKeys.sorted().joined(separator: ", ")))") }
            if case .object(let mo)? = so["modules"] {
                for k in mo.keys where !moduleKeys.contains(k) { throw fail("expect.sheet.modules.\(k)", "unknown module (known: \(moduleKeys.sorted().joined(separator: ", ")))") }
            }
            try checkMatchers(sh, path: "expect.sheet", fail: fail)
            e.sheet = sh
        }
        if let p = o["paid"] {
            guard let b = p.boolValue else { throw fail("expect.paid", "must be true or false") }
            e.paid = b
        }
        if let r = o["returned"] { e.returned = .some(r) }
        return e
    }

    static let paymentRequestEventTypes: Set<String> = [
        "merchantvalidation", "shippingaddresschange", "shippingoptionchange", "paymentmethodchange", "accepted", "rejected",
    ]
    static let snapshotKeys: Set<String> = ["visible", "status", "canAuthorize", "popup", "modules", "outstanding", "secondsLeft", "result", "rule"]
    static let moduleKeys: Set<String> = ["card", "shipping", "method", "contact", "coupon", "summary", "billing"]

    /// Rejects unknown `$` matchers anywhere in an expected value.
    static func checkMatchers(_ v: JSONValue, path: String, fail: (String?, String) -> ScenarioError) throws(ScenarioError) {
        switch v {
        case .object(let o):
            if let k = o.keys.first(where: { $0.hasPrefix("$") }) {
                guard o.members.count == 1, k == "$absent" || k == "$present", o[k] == .bool(true) else {
                    throw fail(path, "unknown matcher \(v.compactText) (known: {\"$absent\": true}, {\"$present\": true})")
                }
                return
            }
            for m in o { try checkMatchers(m.value, path: "\(path).\(m.key)", fail: fail) }
        case .array(let a):
            for (i, x) in a.enumerated() { try checkMatchers(x, path: "\(path)[\(i)]", fail: fail) }
        default: break
        }
    }
}

import Foundation
