import PaysheetModel
import PaysheetSheet

/// Reads scenario files, strictly: an unknown key, step kind or value is a ``ScenarioError``.
public enum ScenarioParser {
    static let topKeys: Set<String> = [
        "name", "description", "version", "request", "wallet", "options", "steps", "surfaces",
    ]
    /// The APIs a scenario may name in `surfaces`: the web's (`ApplePaySession`, what this runner
    /// runs) and PassKit's (`PaysheetPassKit`'s tests run those scenarios through it too).
    static let surfaceNames: Set<String> = ["web", "passkit"]
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
        guard case .object(let top) = json else {
            throw fail(nil, "a scenario is a JSON object, found \(json.kindName)")
        }
        for key in top.keys where !topKeys.contains(key) {
            throw fail(key, "unknown key (known: \(topKeys.sorted().joined(separator: ", ")))")
        }
        guard case .string(let name)? = top["name"] else { throw fail("name", "required: a string") }
        if let surfaces = top["surfaces"] {
            guard case .array(let names) = surfaces, !names.isEmpty,
                names.allSatisfy({ $0.stringValue.map(surfaceNames.contains) == true })
            else {
                throw fail("surfaces", "a non-empty array of \(surfaceNames.sorted().joined(separator: ", "))")
            }
        }
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
        return Scenario(
            name: name,
            file: file,
            version: version,
            request: request,
            configuration: config,
            steps: steps,
            rawSteps: rawSteps
        )
    }

    /// The sheet configuration a scenario's `wallet` and `options` describe (both optional), with
    /// the defaults for the rest (`SheetInput/configuration(wallet:options:)`, which the browser
    /// bridge reads its pages' configurations with too).
    public static func configuration(
        wallet: JSONValue?,
        options: JSONValue?,
        file: String
    ) throws(ScenarioError) -> SheetConfiguration {
        do throws(SheetInputError) {
            return try SheetInput.configuration(wallet: wallet, options: options)
        } catch {
            throw ScenarioError(file: file, field: error.field, message: error.message)
        }
    }

    static func step(_ raw: JSONValue, number: Int, file: String) throws(ScenarioError) -> ScenarioStep {
        guard case .object(let members) = raw else {
            throw ScenarioError(
                file: file,
                step: number,
                field: nil,
                message: "a step is an object, found \(raw.kindName)"
            )
        }
        let fields = StepFields(members: members, file: file, number: number)
        let kinds = ["page", "user", "wait", "expect"].filter { members[$0] != nil }
        guard kinds.count == 1 else {
            throw fields.fail(
                nil,
                kinds.isEmpty
                    ? "a step needs one of page, user, wait, expect (found \(members.keys.joined(separator: ", ")))"
                    : "a step has exactly one of page, user, wait, expect (found \(kinds.joined(separator: ", ")))"
            )
        }
        if let wait = members["wait"] {
            try fields.allow(["wait"])
            guard let seconds = wait.doubleValue, seconds >= 0 else {
                throw fields.fail("wait", "must be a number of seconds, 0 or more")
            }
            return .wait(seconds)
        }
        if let expect = members["expect"] {
            try fields.allow(["expect"])
            return .expect(try expectation(expect, fail: fields.fail))
        }
        if members["user"] != nil {
            do throws(SheetInputError) {
                return .user(try SheetInput.userAction(members))
            } catch {
                throw fields.fail(error.field, error.message)
            }
        }
        guard let name = members["page"]?.stringValue else { throw fields.fail("page", "must be a string") }
        var instance = 1
        if members["instance"] != nil {
            instance = try fields.int("instance")
            if instance < 1 { throw fields.fail("instance", "must be 1 or more") }
        }
        return .page(try pageStep(name, fields), instance: instance)
    }

    /// A step's members, and the errors that name them.
    struct StepFields {
        let members: JSONObject
        let file: String
        let number: Int

        func fail(_ field: String?, _ message: String) -> ScenarioError {
            ScenarioError(file: file, step: number, field: field, message: message)
        }

        /// Refuses a member not in `keys`.
        func allow(_ keys: Set<String>) throws(ScenarioError) {
            for unknown in members.keys where !keys.contains(unknown) {
                throw fail(unknown, "unknown key for this step (known: \(keys.sorted().joined(separator: ", ")))")
            }
        }

        func int(_ key: String) throws(ScenarioError) -> Int {
            guard case .number(let digits)? = members[key], let integer = Int(digits) else {
                throw fail(key, "required: a whole number")
            }
            return integer
        }

        /// A completion given by its dictionary (`key`) or, for API versions 1 and 2, positionally (`args`).
        func argsOr(_ key: String, _ method: PageCall.Method) throws(ScenarioError) -> PageStep {
            try allow(["page", "instance", key, "args"])
            if let array = members["args"] {
                guard case .array(let args) = array else { throw fail("args", "must be an array") }
                if members[key] != nil { throw fail("args", "give either \"\(key)\" or \"args\", not both") }
                return .call(.legacy(method: method, arguments: args))
            }
            guard let value = members[key] else { throw fail(key, "required (or \"args\" for the positional form)") }
            return .call(PageCall(method, argument: value))
        }
    }

    /// A `page` step: the call named `name`, with its members.
    static func pageStep(_ name: String, _ fields: StepFields) throws(ScenarioError) -> PageStep {
        let step: PageStep
        switch name {
        case "construct":
            try fields.allow(["page", "instance", "version", "request", "userGesture"])
            let version = fields.members["version"] == nil ? nil : try fields.int("version")
            var gesture = true
            if let gestureJSON = fields.members["userGesture"] {
                guard let flag = gestureJSON.boolValue else {
                    throw fields.fail("userGesture", "must be true or false")
                }
                gesture = flag
            }
            step = .construct(version: version, request: fields.members["request"], userGesture: gesture)
        case "begin":
            try fields.allow(["page", "instance"])
            step = .call(.begin)
        case "abort":
            try fields.allow(["page", "instance"])
            step = .call(.abort)
        case "completeMerchantValidation":
            try fields.allow(["page", "instance", "session"])
            guard let merchantSession = fields.members["session"] else {
                throw fields.fail("session", "required: the merchant session object")
            }
            step = .call(.completeMerchantValidation(merchantSession))
        case "completePaymentMethodSelection": step = try fields.argsOr("update", .completePaymentMethodSelection)
        case "completeShippingContactSelection": step = try fields.argsOr("update", .completeShippingContactSelection)
        case "completeShippingMethodSelection": step = try fields.argsOr("update", .completeShippingMethodSelection)
        case "completeCouponCodeChange": step = try fields.argsOr("update", .completeCouponCodeChange)
        case "completePayment": step = try fields.argsOr("result", .completePayment)
        case "supportsVersion":
            try fields.allow(["page", "version"])
            step = .supportsVersion(try fields.int("version"))
        case "canMakePayments":
            try fields.allow(["page"])
            step = .canMakePayments
        case "canMakePaymentsWithActiveCard":
            try fields.allow(["page", "merchantIdentifier"])
            step = .canMakePaymentsWithActiveCard
        case "openPaymentSetup":
            try fields.allow(["page", "merchantIdentifier", "userGesture"])
            step = .openPaymentSetup(userGesture: fields.members["userGesture"]?.boolValue ?? true)
        case "newApplePayError":
            try fields.allow(["page", "args"])
            guard case .array(let arguments)? = fields.members["args"] else {
                throw fields.fail("args", "required: the constructor's arguments")
            }
            step = .newApplePayError(arguments)
        case "navigate":
            try fields.allow(["page"])
            step = .navigate
        case "newPaymentRequest":
            try fields.allow(["page", "instance", "methodData", "details", "options"])
            guard let methodData = fields.members["methodData"] else {
                throw fields.fail("methodData", "required: the constructor's first argument")
            }
            guard let details = fields.members["details"] else {
                throw fields.fail("details", "required: the constructor's second argument")
            }
            step = .newPaymentRequest(methodData: methodData, details: details, options: fields.members["options"])
        case "request.show":
            try fields.allow(["page", "instance", "userGesture"])
            step = .request(name: name, [.show(userGesture: fields.members["userGesture"]?.boolValue ?? true)])
        case "request.abort":
            try fields.allow(["page", "instance"])
            step = .request(name: name, [.abort])
        case "request.canMakePayment":
            try fields.allow(["page", "instance"])
            step = .request(name: name, [.canMakePayment])
        case "request.completeMerchantValidation":
            try fields.allow(["page", "instance", "session", "rejected"])
            let settled: JSONValue? =
                fields.members["rejected"]?.boolValue == true ? nil : (fields.members["session"] ?? .null)
            step = .request(name: name, [.completeMerchantValidation, .merchantSessionSettled(settled)])
        case "request.updateWith":
            try fields.allow(["page", "instance", "details", "rejected"])
            let settled: JSONValue? =
                fields.members["rejected"]?.boolValue == true ? nil : (fields.members["details"] ?? .null)
            step = .request(name: name, [.updateWith, .detailsSettled(settled)])
        case "request.notUpdated":
            try fields.allow(["page", "instance"])
            step = .request(name: name, [.notUpdated])
        case "response.complete":
            try fields.allow(["page", "instance", "result", "details"])
            if let details = fields.members["details"] {
                step = .request(name: name, [.completeWithDetails(fields.members["result"], details: details)])
            } else {
                step = .request(name: name, [.complete(fields.members["result"])])
            }
        case "response.retry":
            try fields.allow(["page", "instance", "errors"])
            step = .request(name: name, [.retry(fields.members["errors"])])
        default: throw fields.fail("page", "unknown page call \"\(name)\"")
        }
        return step
    }

    static func expectation(
        _ value: JSONValue,
        fail: (String?, String) -> ScenarioError
    ) throws(ScenarioError) -> Expectation {
        guard case .object(let members) = value, !members.isEmpty else {
            throw fail("expect", "must be an object with at least one check")
        }
        var result = Expectation(raw: value)
        for key in members.keys where !expectKeys.contains(key) {
            throw fail("expect.\(key)", "unknown expectation (known: \(expectKeys.sorted().joined(separator: ", ")))")
        }
        if let threwJSON = members["threw"] {
            switch threwJSON {
            case .null: break
            case .string(let name):
                if !exceptionNames.contains(name) { throw fail("expect.threw", "unknown exception name \"\(name)\"") }
            case .object(let object):
                for key in object.keys where key != "name" && key != "message" {
                    throw fail("expect.threw.\(key)", "unknown key (known: message, name)")
                }
                if let exceptionName = object["name"]?.stringValue, !exceptionNames.contains(exceptionName) {
                    throw fail("expect.threw.name", "unknown exception name \"\(exceptionName)\"")
                }
            default: throw fail("expect.threw", "must be null, an exception name or {\"name\", \"message\"}")
            }
            result.threw = .some(threwJSON.isNull ? nil : threwJSON)
        }
        if let eventsJSON = members["events"] {
            guard case .array(let array) = eventsJSON else {
                throw fail("expect.events", "must be an array of event objects")
            }
            for (i, element) in array.enumerated() {
                guard case .object(let eventObject) = element, let type = eventObject["type"]?.stringValue else {
                    throw fail("expect.events[\(i)]", "an event object needs a \"type\"")
                }
                if SheetEventType(rawValue: type) == nil, type != "ignored", !paymentRequestEventTypes.contains(type) {
                    throw fail("expect.events[\(i)].type", "unknown event type \"\(type)\"")
                }
                try checkMatchers(element, path: "expect.events[\(i)]", fail: fail)
            }
            result.events = array
        }
        if let sessionJSON = members["session"] {
            guard let state = sessionJSON.stringValue, sessionStates.contains(state) else {
                throw fail("expect.session", "one of \(sessionStates.sorted().joined(separator: ", "))")
            }
            result.session = state
        }
        if let sheetJSON = members["sheet"] {
            guard case .object(let snapshot) = sheetJSON else {
                throw fail("expect.sheet", "must be a snapshot object")
            }
            for key in snapshot.keys where !snapshotKeys.contains(key) {
                throw fail(
                    "expect.sheet.\(key)",
                    "unknown snapshot key (known: \(snapshotKeys.sorted().joined(separator: ", ")))"
                )
            }
            if case .object(let modules)? = snapshot["modules"] {
                for key in modules.keys where !moduleKeys.contains(key) {
                    throw fail(
                        "expect.sheet.modules.\(key)",
                        "unknown module (known: \(moduleKeys.sorted().joined(separator: ", ")))"
                    )
                }
            }
            try checkMatchers(sheetJSON, path: "expect.sheet", fail: fail)
            result.sheet = sheetJSON
        }
        if let paidJSON = members["paid"] {
            guard let flag = paidJSON.boolValue else { throw fail("expect.paid", "must be true or false") }
            result.paid = flag
        }
        if let returned = members["returned"] { result.returned = .some(returned) }
        return result
    }

    static let paymentRequestEventTypes: Set<String> = [
        "merchantvalidation", "shippingaddresschange", "shippingoptionchange", "paymentmethodchange", "accepted",
        "rejected",
    ]
    static let snapshotKeys: Set<String> = [
        "visible", "status", "canAuthorize", "popup", "modules", "outstanding", "secondsLeft", "result", "rule",
        "language", "statusId", "order", "payLater", "disbursement",
    ]
    static let moduleKeys: Set<String> = ["card", "shipping", "method", "contact", "coupon", "summary", "billing"]

    /// Rejects unknown `$` matchers anywhere in an expected value.
    static func checkMatchers(
        _ value: JSONValue,
        path: String,
        fail: (String?, String) -> ScenarioError
    ) throws(ScenarioError) {
        switch value {
        case .object(let object):
            if let key = object.keys.first(where: { $0.hasPrefix("$") }) {
                guard object.members.count == 1, key == "$absent" || key == "$present", object[key] == .bool(true)
                else {
                    throw fail(
                        path,
                        "unknown matcher \(value.compactText) (known: {\"$absent\": true}, {\"$present\": true})"
                    )
                }
                return
            }
            for member in object { try checkMatchers(member.value, path: "\(path).\(member.key)", fail: fail) }
        case .array(let array):
            for (i, x) in array.enumerated() { try checkMatchers(x, path: "\(path)[\(i)]", fail: fail) }
        default: break
        }
    }
}

import Foundation
