import PaysheetModel
import PaysheetSheet

/// One browser page's sheet: the engine plus the page's clock and gesture settings. Pure — the
/// wall-clock time is an input — so the bridge's behaviour is testable without a browser.
///
/// The page's `paysheet.js` sends every `ApplePaySession` call here and applies the answer
/// (throw, return, dispatch events, draw the sheet); it decides nothing itself.
struct BrowserPage: Sendable {
    /// The engine.
    var machine: SheetMachine
    /// Whether time passes only when the page's test script says so (`advance`).
    var virtualClock = false
    /// Whether a session must be created in a user-gesture handler (Safari's rule).
    var requireUserGesture = true
    /// The wall-clock time of the last operation (seconds).
    var lastWall: Double
    /// Every event dispatched to the page and every ignored user action, oldest first (at most
    /// ``logLimit``), for the scripting API's `events()`.
    var log: [JSONValue] = []
    static let logLimit = 200
    /// Events of a page that left (`navigate`, sent as a beacon whose answer nobody reads): the
    /// page gets them with its next operation, when it is restored from the back/forward cache.
    var held: [JSONValue] = []

    init(configuration: SheetConfiguration, wall: Double) {
        machine = SheetMachine(configuration: configuration)
        lastWall = wall
    }

    /// A bridge error: the operation itself was malformed (not an exception the page would see).
    struct BridgeError: Error {
        var field: String?
        var message: String
    }

    /// Runs one operation `op` at wall-clock time `wall` and returns the answer.
    mutating func handle(_ op: JSONObject, wall: Double) throws(BridgeError) -> JSONObject {
        var events: [DispatchedEvent] = []
        if !virtualClock {
            events += machine.advance(by: max(0, wall - lastWall))
        }
        lastWall = wall
        try applyPageFacts(op)
        var answer = JSONObject()
        guard let name = op["op"]?.stringValue else {
            throw BridgeError(field: "op", message: "required: the operation's name")
        }
        try perform(name, op, answer: &answer, events: &events)
        report(events, of: name, into: &answer)
        return answer
    }

    /// What the page tells with its operations: the events it listens to, whether it runs under
    /// WebKit's test runner, its domain and where its document sits.
    private mutating func applyPageFacts(_ op: JSONObject) throws(BridgeError) {
        if let l = op["listeners"] { machine.setListeners(try Self.listeners(l)) }
        // The page tells, when it constructs a session or a request, whether it runs under
        // WebKit's test runner (`window.internals`), whose mock coordinator stands in for the sheet.
        if let mock = op["webKitMock"]?.boolValue { machine.setWebKitMock(mock) }
        if let domain = op["pageDomain"]?.stringValue { machine.setPageDomain(domain) }
        // Where the page's document sits (its origin, its ancestors', the permissions policy).
        if let f = op["frame"], !f.isNull {
            guard let frame = FrameContext(json: f) else {
                throw BridgeError(
                    field: "frame",
                    message:
                        "must be {\"origins\": [the document's origin, …, the top's], \"paymentAllowed\": true, false or null}"
                )
            }
            machine.setFrame(frame)
        }
    }

    /// The operation `name` itself: its result in `answer`, its events added to `events`.
    private mutating func perform(
        _ name: String,
        _ op: JSONObject,
        answer: inout JSONObject,
        events: inout [DispatchedEvent]
    ) throws(BridgeError) {
        switch name {
        case "state", "tick":
            break
        case "advance":
            guard let s = op["seconds"]?.doubleValue, s >= 0 else {
                throw BridgeError(field: "seconds", message: "required: a number of seconds, 0 or more")
            }
            events += machine.advance(by: s)
        case "construct":
            guard let v = op["version"] else {
                throw BridgeError(field: "version", message: "required: the version the page passed")
            }
            // `unsigned long`, converted as WebKit's binding does.
            let version = WebIDLBinding(profile: machine.configuration.profile).unsignedLong(v)
            let gesture = op["userGesture"]?.boolValue ?? false
            let r = machine.construct(
                version: version,
                request: op["request"] ?? .null,
                userGesture: gesture || !requireUserGesture
            )
            record(r, into: &answer)
        case "call":
            let r = try sessionCall(op)
            record(r, into: &answer)
            events += r.events
        case "static":
            record(try staticCall(op), into: &answer)
        case "paymentRequest":
            guard let methodData = op["methodData"], let details = op["details"] else {
                throw BridgeError(field: "methodData", message: "required: the constructor's methodData and details")
            }
            record(
                machine.constructPaymentRequest(methodData: methodData, details: details, options: op["options"]),
                into: &answer
            )
        case "paymentRequestCall":
            guard case .number(let n)? = op["request"], let request = Int(n) else {
                throw BridgeError(field: "request", message: "required: the PaymentRequest's number")
            }
            let r = machine.call(try Self.paymentRequestCall(op), paymentRequest: request)
            record(r, into: &answer)
            events += r.events
        case "user":
            let source: ActionSource = op["mock"]?.boolValue == true ? .webKitMock : .user
            events += Self.reportingIgnored(machine.perform(try Self.userAction(op), from: source), into: &answer)
        case "mockChangePaymentMethod":
            guard let m = op["paymentMethod"], let method = try? decodeJSONValue(ApplePayPaymentMethod.self, from: m)
            else {
                throw BridgeError(field: "paymentMethod", message: "required: an ApplePayPaymentMethod")
            }
            events += Self.reportingIgnored(machine.mockChangePaymentMethod(method), into: &answer)
        case "navigate":
            events += machine.navigate()
        default:
            throw BridgeError(
                field: "op",
                message:
                    "unknown operation \"\(name)\" (known: construct, call, static, paymentRequest, paymentRequestCall, user, mockChangePaymentMethod, advance, tick, state, navigate)"
            )
        }
    }

    /// A `call` operation: a method of an `ApplePaySession`, by its number.
    private mutating func sessionCall(_ op: JSONObject) throws(BridgeError) -> PageResult {
        guard case .number(let n)? = op["session"], let session = Int(n) else {
            throw BridgeError(field: "session", message: "required: the session's number")
        }
        guard let method = op["method"]?.stringValue else {
            throw BridgeError(field: "method", message: "required: the method's name")
        }
        guard let m = PageCall.Method(rawValue: method) else {
            return PageResult(threw: .typeError("session.\(method) is not a function."))
        }
        return PageCall(m, arguments: op["args"]?.arrayValue ?? []).map { machine.call($0, session: session) }
            ?? PageResult(threw: .notEnoughArguments)
    }

    /// A `static` operation: a static member of `ApplePaySession`, `ApplePayError` or `ApplePaySetup`.
    private mutating func staticCall(_ op: JSONObject) throws(BridgeError) -> PageResult {
        guard let method = op["method"]?.stringValue else {
            throw BridgeError(field: "method", message: "required: the method's name")
        }
        let args = op["args"]?.arrayValue ?? []
        let gesture = op["userGesture"]?.boolValue ?? false
        let r: PageResult
        switch method {
        case "supportsVersion":
            if args.isEmpty {
                r = PageResult(threw: .notEnoughArguments)
            } else {
                r = machine.supportsVersion(
                    Int(WebIDLBinding(profile: machine.configuration.profile).unsignedLong(args[0]) & 0xFFFF_FFFF)
                )
            }
        case "canMakePayments": r = machine.canMakePayments()
        case "canMakePaymentsWithActiveCard": r = machine.canMakePaymentsWithActiveCard()
        case "applePayCapabilities":
            // Safari 17+: the credential status the `canMakePayments` answer implies.
            let can = machine.canMakePayments().returned?.boolValue ?? false
            r = PageResult(returned: [
                "paymentCredentialStatus": .string(
                    can ? "paymentCredentialsAvailable" : "paymentCredentialsUnavailable"
                )
            ])
        case "openPaymentSetup": r = machine.openPaymentSetup(userGesture: gesture || !requireUserGesture)
        case "ApplePayError":
            // JSON has no `undefined`: the page lists the positions it passed as undefined.
            let undefinedAt = Set(
                op["undefinedAt"]?.arrayValue?.compactMap { $0.doubleValue.map { Int($0) } } ?? []
            )
            let given: [JSONValue?] = args.enumerated().map {
                undefinedAt.contains($0.offset) ? Optional<JSONValue>.none : .some($0.element)
            }
            r = machine.makeError(arguments: given)
        case "ApplePaySetup": r = machine.makeSetup(configuration: args.first)
        case "getSetupFeatures": r = machine.getSetupFeatures(configuration: args.first ?? .object(JSONObject()))
        case "beginSetup":
            r = machine.beginSetup(
                configuration: args.first ?? .object(JSONObject()),
                features: args.count > 1 ? args[1] : nil,
                userGesture: gesture || !requireUserGesture
            )
        case "addSetupFeature":
            r = machine.addSetupFeature(
                state: args.first ?? .null,
                type: args.count > 1 ? args[1] : .null,
                supportsInstallments: args.count > 2 ? args[2] : .null
            )
        default: throw BridgeError(field: "method", message: "unknown static member \"\(method)\"")
        }
        return r
    }

    /// A `user` operation's action (the scenario format's user step, less the bridge's own members).
    static func userAction(_ op: JSONObject) throws(BridgeError) -> UserAction {
        do throws(SheetInputError) {
            var step = op
            step["op"] = nil
            step["listeners"] = nil
            step["mock"] = nil
            return try SheetInput.userAction(step)
        } catch {
            throw BridgeError(field: error.field, message: error.message)
        }
    }

    /// Puts `events` in the log and, all but ignored actions, in `answer` for the page, with the
    /// sheet, the sessions and (for `state`) the log.
    private mutating func report(_ events: [DispatchedEvent], of name: String, into answer: inout JSONObject) {
        // Each event as JSON once: all go to the log, all but ignored actions to the page.
        var toPage: [JSONValue] = []
        for e in events {
            var o = e.event.json.objectValue ?? JSONObject()
            o["session"] = .number(String(e.session))
            log.append(.object(o))
            if case .ignored = e.event { continue }
            toPage.append(.object(o))
        }
        if log.count > Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
        if name == "navigate" {
            // Nobody reads a beacon's answer: the page gets these when it comes back.
            held += toPage
            toPage = []
        } else {
            toPage = held + toPage
            held = []
        }
        answer["events"] = .array(toPage)
        if name == "state" {
            answer["log"] = .array(log)
            answer["pageErrors"] = .array(machine.lastPageErrors.map(\.jsonValue))
            answer["installmentConfiguration"] = machine.shownRequest?.installmentConfiguration ?? .null
            answer["setupConfiguration"] = machine.setupConfiguration ?? .null
        }
        answer["sheet"] = machine.snapshot()
        answer["choices"] = machine.choices()
        answer["now"] = .number(JSONValue.javaScriptNumberString(String(machine.now)))
        answer["clock"] = .string(virtualClock ? "virtual" : "real")
        answer["sessions"] = .array(
            (0..<machine.sessionCount).map { .string(machine.state(of: $0 + 1)?.pageVisible ?? "idle") }
        )
        answer["paid"] = .bool(machine.paid)
    }

    /// `events`, after putting the reason of an ignored user action (the last, if several) in `answer`.
    private static func reportingIgnored(
        _ events: [DispatchedEvent],
        into answer: inout JSONObject
    ) -> [DispatchedEvent] {
        for e in events {
            if case .ignored(_, let reason) = e.event { answer["ignored"] = .string(reason) }
        }
        return events
    }

    private func record(_ r: PageResult, into answer: inout JSONObject) {
        if let t = r.threw { answer["threw"] = t.json }
        if let v = r.returned { answer["returned"] = v }
    }

    /// The engine's call for a `paymentRequestCall` operation.
    static func paymentRequestCall(_ op: JSONObject) throws(BridgeError) -> PaymentRequestCall {
        let settled = op["rejected"]?.boolValue == true ? nil : (op["value"] ?? .null)
        switch op["method"]?.stringValue {
        case "show": return .show(userGesture: op["userGesture"]?.boolValue ?? false)
        case "abort": return .abort
        case "canMakePayment": return .canMakePayment
        case "completeMerchantValidation": return .completeMerchantValidation
        case "merchantSessionSettled": return .merchantSessionSettled(settled)
        case "completeMerchantValidationNow": return .completeMerchantValidationNow(op["value"] ?? .null)
        case "updateWith": return .updateWith
        case "detailsSettled": return .detailsSettled(settled)
        case "notUpdated": return .notUpdated
        case "complete": return .complete(op["value"])
        case "retry": return .retry(op["value"])
        default:
            throw BridgeError(
                field: "method",
                message: "unknown PaymentRequest method \(op["method"]?.compactText ?? "(none)")"
            )
        }
    }

    static func listeners(_ v: JSONValue) throws(BridgeError) -> Set<SheetEventType> {
        guard let a = v.arrayValue else {
            throw BridgeError(field: "listeners", message: "must be an array of event types")
        }
        var out = Set<SheetEventType>()
        for x in a {
            guard let s = x.stringValue, let t = SheetEventType(rawValue: s) else {
                throw BridgeError(field: "listeners", message: "unknown event type \(x.compactText)")
            }
            out.insert(t)
        }
        return out
    }
}
