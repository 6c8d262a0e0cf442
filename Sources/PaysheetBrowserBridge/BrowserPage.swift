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
    /// Whether the page chose the sheet's language itself (`options.language`); otherwise the
    /// browser's languages (`navigator.languages`, sent with the page's facts) choose it.
    var languageChosen = false
    /// The wall-clock time of the last operation (seconds).
    var lastWall: Double
    /// Every event dispatched to the page and every ignored user action, oldest first (at most
    /// ``logLimit`` entries and ``logByteLimit`` bytes of JSON; the oldest go first), for the
    /// scripting API's `events()`.
    var log: [JSONValue] = []
    static let logLimit = 200
    static let logByteLimit = 32 * 1024
    /// The JSON size of each entry of ``log``.
    private var logSizes: [Int] = []
    /// Events of a page that left (`navigate`, sent as a beacon whose answer nobody reads): the
    /// page gets them with its next operation, when it is restored from the back/forward cache
    /// (at most ``logLimit`` entries and ``logByteLimit`` bytes; the oldest go first).
    var held: [JSONValue] = []
    private var heldSizes: [Int] = []

    /// Bytes one operation's body may have (the route answers 413 `body_too_large` above).
    static let operationLimit = 64 * 1024
    /// Bytes of JSON one page keeps at most from its operations (see ``kept``); an operation that
    /// would make it keep more is refused (413 `page_full`) and leaves the page as it was.
    static let keptLimit = 256 * 1024
    /// What the operations that add to the page gave it: every session, `PaymentRequest` (and the
    /// session it shows) and setup feature, each counted by the JSON size of its operation.
    private(set) var grown = 0
    /// The size of the last operation of each kind: what an operation replaces (the sheet's
    /// update, the page's frame and domain, the setup configuration, the errors shown) is at most it.
    private var lastOfKind: [String: Int] = [:]
    /// The JSON size of each `PaymentRequest`'s operation, by its number less one.
    private var requestSizes: [Int] = []
    /// What the page keeps, in bytes of JSON: ``grown`` and the last operation of each kind. With
    /// the two logs, a page keeps at most ``keptLimit`` + 2 × ``logByteLimit``.
    var kept: Int { grown + lastOfKind.values.reduce(0, +) }

    init(configuration: SheetConfiguration, wall: Double) {
        machine = SheetMachine(configuration: configuration)
        lastWall = wall
    }

    /// A bridge error: the operation itself was malformed (not an exception the page would see),
    /// or the page would keep too much.
    struct BridgeError: Error {
        enum Kind: Sendable { case invalid, pageFull }
        var kind = Kind.invalid
        var field: String?
        var message: String

        init(field: String?, message: String) {
            self.field = field
            self.message = message
        }

        init(pageFull message: String) {
            kind = .pageFull
            self.message = message
        }
    }

    /// Runs one operation `op` at wall-clock time `wall` and returns the answer. A page that throws
    /// is to be dropped by the caller for the page as it was before (the hub keeps the copy it had).
    mutating func handle(_ operation: JSONObject, wall: Double) throws(BridgeError) -> JSONObject {
        let size = JSONValue.object(operation).compactText.utf8.count
        var events: [DispatchedEvent] = []
        if !virtualClock {
            events += machine.advance(by: max(0, wall - lastWall))
        }
        lastWall = wall
        try applyPageFacts(operation)
        var answer = JSONObject()
        guard let name = operation["op"]?.stringValue else {
            throw BridgeError(field: "op", message: "required: the operation's name")
        }
        let sessionsBefore = machine.sessionCount
        try perform(name, operation, answer: &answer, events: &events)
        try account(name, operation, size: size, answer: answer, sessionsBefore: sessionsBefore)
        report(events, of: name, into: &answer)
        return answer
    }

    /// Counts the `configure` operation (of `size` bytes) that made this page: its wallet and settings are kept.
    mutating func configured(size: Int) { lastOfKind["configure"] = size }

    /// Counts what operation `name` (of `size` bytes) left in the page; throws when the page would
    /// keep more than ``keptLimit``.
    private mutating func account(
        _ name: String,
        _ operation: JSONObject,
        size: Int,
        answer: JSONObject,
        sessionsBefore: Int
    ) throws(BridgeError) {
        let succeeded = answer["threw"] == nil
        switch name {
        case "construct" where machine.sessionCount > sessionsBefore:
            grown += size
        case "paymentRequest" where succeeded:
            grown += size
            requestSizes.append(size)
        case "paymentRequestCall" where machine.sessionCount > sessionsBefore:
            // `show()`: a session of the request's own (its size again).
            if case .number(let number)? = operation["request"], let request = Int(number),
                requestSizes.indices.contains(request - 1)
            {
                grown += requestSizes[request - 1]
            }
        case "static" where succeeded && operation["method"]?.stringValue == "addSetupFeature":
            grown += size
        default:
            break
        }
        lastOfKind[name] = size
        if kept > Self.keptLimit {
            throw BridgeError(
                pageFull:
                    "this simulated page keeps at most \(Self.keptLimit / 1024) KiB of sessions, payment requests and updates, and this \(name) would make it \(kept / 1024) KiB: open a new page (reload it) or send configure to start it afresh"
            )
        }
    }

    /// What the page tells with its operations: the events it listens to, whether it runs under
    /// WebKit's test runner, its domain, the browser's languages and where its document sits.
    private mutating func applyPageFacts(_ operation: JSONObject) throws(BridgeError) {
        if let listeners = operation["listeners"] { machine.setListeners(try Self.listeners(listeners)) }
        // The page tells, when it constructs a session or a request, whether it runs under
        // WebKit's test runner (`window.internals`), whose mock coordinator stands in for the sheet.
        if let mock = operation["webKitMock"]?.boolValue { machine.setWebKitMock(mock) }
        if let domain = operation["pageDomain"]?.stringValue { machine.setPageDomain(domain) }
        // The browser's languages, most preferred first: the sheet speaks the first it can.
        if let languages = operation["languages"], !languages.isNull {
            guard let tags = SheetInput.languageTags(languages) else {
                throw BridgeError(
                    field: "languages",
                    message: "must be the browser's language tags (navigator.languages)"
                )
            }
            if !languageChosen { machine.setLanguage(SheetLanguage.preferred(tags)) }
        }
        // Where the page's document sits (its origin, its ancestors', the permissions policy).
        if let frameJSON = operation["frame"], !frameJSON.isNull {
            guard let frame = FrameContext(json: frameJSON) else {
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
        _ operation: JSONObject,
        answer: inout JSONObject,
        events: inout [DispatchedEvent]
    ) throws(BridgeError) {
        switch name {
        case "state", "tick":
            break
        case "advance":
            guard let seconds = operation["seconds"]?.doubleValue, seconds >= 0 else {
                throw BridgeError(field: "seconds", message: "required: a number of seconds, 0 or more")
            }
            events += machine.advance(by: seconds)
        case "construct":
            guard let versionArgument = operation["version"] else {
                throw BridgeError(field: "version", message: "required: the version the page passed")
            }
            // `unsigned long`, converted as WebKit's binding does.
            let version = WebIDLBinding(profile: machine.configuration.profile).unsignedLong(versionArgument)
            let gesture = operation["userGesture"]?.boolValue ?? false
            let result = machine.construct(
                version: version,
                request: operation["request"] ?? .null,
                userGesture: gesture || !requireUserGesture
            )
            record(result, into: &answer)
        case "call":
            let result = try sessionCall(operation)
            record(result, into: &answer)
            events += result.events
        case "static":
            record(try staticCall(operation), into: &answer)
        case "paymentRequest":
            guard let methodData = operation["methodData"], let details = operation["details"] else {
                throw BridgeError(field: "methodData", message: "required: the constructor's methodData and details")
            }
            record(
                machine.constructPaymentRequest(
                    methodData: methodData,
                    details: details,
                    options: operation["options"]
                ),
                into: &answer
            )
        case "paymentRequestCall":
            guard case .number(let number)? = operation["request"], let request = Int(number) else {
                throw BridgeError(field: "request", message: "required: the PaymentRequest's number")
            }
            var call = try Self.paymentRequestCall(operation)
            // `configure({requireUserGesture: false})` lifts the rule for `show()` as for sessions.
            if case .show(let gesture) = call { call = .show(userGesture: gesture || !requireUserGesture) }
            let result = machine.call(call, paymentRequest: request)
            record(result, into: &answer)
            events += result.events
        case "user":
            let source: ActionSource = operation["mock"]?.boolValue == true ? .webKitMock : .user
            events += Self.reportingIgnored(
                machine.perform(try Self.userAction(operation), from: source),
                into: &answer
            )
        case "mockChangePaymentMethod":
            guard let methodJSON = operation["paymentMethod"],
                let method = try? decodeJSONValue(ApplePayPaymentMethod.self, from: methodJSON)
            else {
                throw BridgeError(field: "paymentMethod", message: "required: an ApplePayPaymentMethod")
            }
            events += Self.reportingIgnored(machine.mockChangePaymentMethod(method), into: &answer)
        case "mockShippingAddress":
            // `MockPaymentCoordinator::setShippingAddress`: a `MockPaymentAddress`, kept for later.
            let members = operation["address"]?.objectValue ?? JSONObject()
            func text(_ key: String) -> String? { members[key]?.stringValue }
            var contact = ApplePayPaymentContact()
            contact.countryCode = text("countryCode")
            contact.addressLines = members["addressLines"]?.arrayValue?.compactMap(\.stringValue)
            contact.administrativeArea = text("administrativeArea")
            contact.locality = text("locality")
            contact.subLocality = text("subLocality")
            contact.postalCode = text("postalCode")
            contact.givenName = text("localizedName")
            contact.phoneNumber = text("phoneNumber")
            contact.emailAddress = text("emailAddress")
            machine.setMockShippingAddress(contact)
        case "navigate":
            events += machine.navigate()
        default:
            throw BridgeError(
                field: "op",
                message:
                    "unknown operation \"\(name)\" (known: construct, call, static, paymentRequest, paymentRequestCall, user, mockChangePaymentMethod, mockShippingAddress, advance, tick, state, navigate)"
            )
        }
    }

    /// A `call` operation: a method of an `ApplePaySession`, by its number.
    private mutating func sessionCall(_ operation: JSONObject) throws(BridgeError) -> PageResult {
        guard case .number(let number)? = operation["session"], let session = Int(number) else {
            throw BridgeError(field: "session", message: "required: the session's number")
        }
        guard let method = operation["method"]?.stringValue else {
            throw BridgeError(field: "method", message: "required: the method's name")
        }
        guard let pageMethod = PageCall.Method(rawValue: method) else {
            return PageResult(threw: .typeError("session.\(method) is not a function."))
        }
        return PageCall(pageMethod, arguments: operation["args"]?.arrayValue ?? []).map {
            machine.call($0, session: session)
        }
            ?? PageResult(threw: .notEnoughArguments)
    }

    /// A `static` operation: a static member of `ApplePaySession`, `ApplePayError` or `ApplePaySetup`.
    private mutating func staticCall(_ operation: JSONObject) throws(BridgeError) -> PageResult {
        guard let method = operation["method"]?.stringValue else {
            throw BridgeError(field: "method", message: "required: the method's name")
        }
        let args = operation["args"]?.arrayValue ?? []
        let gesture = operation["userGesture"]?.boolValue ?? false
        let result: PageResult
        switch method {
        case "supportsVersion":
            if args.isEmpty {
                result = PageResult(threw: .notEnoughArguments)
            } else {
                result = machine.supportsVersion(
                    Int(WebIDLBinding(profile: machine.configuration.profile).unsignedLong(args[0]) & 0xFFFF_FFFF)
                )
            }
        case "canMakePayments": result = machine.canMakePayments()
        case "canMakePaymentsWithActiveCard": result = machine.canMakePaymentsWithActiveCard()
        case "applePayCapabilities":
            result = machine.applePayCapabilities()
        case "openPaymentSetup": result = machine.openPaymentSetup(userGesture: gesture || !requireUserGesture)
        case "ApplePayError":
            // JSON has no `undefined`: the page lists the positions it passed as undefined.
            let undefinedAt = Set(
                operation["undefinedAt"]?.arrayValue?.compactMap { $0.doubleValue.map { Int($0) } } ?? []
            )
            let given: [JSONValue?] = args.enumerated().map {
                undefinedAt.contains($0.offset) ? Optional<JSONValue>.none : .some($0.element)
            }
            result = machine.makeError(arguments: given)
        case "ApplePaySetup": result = machine.makeSetup(configuration: args.first)
        case "getSetupFeatures": result = machine.getSetupFeatures(configuration: args.first ?? .object(JSONObject()))
        case "beginSetup":
            result = machine.beginSetup(
                configuration: args.first ?? .object(JSONObject()),
                features: args.count > 1 ? args[1] : nil,
                userGesture: gesture || !requireUserGesture
            )
        case "addSetupFeature":
            result = machine.addSetupFeature(
                state: args.first ?? .null,
                type: args.count > 1 ? args[1] : .null,
                supportsInstallments: args.count > 2 ? args[2] : .null
            )
        default: throw BridgeError(field: "method", message: "unknown static member \"\(method)\"")
        }
        return result
    }

    /// A `user` operation's action (the scenario format's user step, less the bridge's own members).
    static func userAction(_ operation: JSONObject) throws(BridgeError) -> UserAction {
        do throws(SheetInputError) {
            var step = operation
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
        var toPageSizes: [Int] = []
        for dispatched in events {
            var object = dispatched.event.json.objectValue ?? JSONObject()
            object["session"] = .number(String(dispatched.session))
            let size = JSONValue.object(object).compactText.utf8.count
            log.append(.object(object))
            logSizes.append(size)
            if case .ignored = dispatched.event { continue }
            toPage.append(.object(object))
            toPageSizes.append(size)
        }
        Self.trim(&log, sizes: &logSizes)
        if name == "navigate" {
            // Nobody reads a beacon's answer: the page gets these when it comes back.
            held += toPage
            heldSizes += toPageSizes
            Self.trim(&held, sizes: &heldSizes)
            toPage = []
        } else {
            toPage = held + toPage
            held = []
            heldSizes = []
        }
        answer["events"] = .array(toPage)
        if name == "state" {
            answer["log"] = .array(log)
            answer["pageErrors"] = .array(machine.lastPageErrors.map(\.jsonValue))
            answer["installmentConfiguration"] = machine.shownRequest?.installmentConfiguration ?? .null
            answer["setupConfiguration"] = machine.setupConfiguration ?? .null
            answer["mock"] = .object(machine.mockView.members)
        }
        answer["shows"] = .number(String(machine.showCount))
        answer["sheet"] = machine.snapshot()
        answer["choices"] = machine.choices()
        if machine.shownRequest != nil { answer["texts"] = machine.sheetTexts() }
        answer["now"] = .number(JSONValue.javaScriptNumberString(String(machine.now)))
        answer["clock"] = .string(virtualClock ? "virtual" : "real")
        answer["sessions"] = .array(
            (0..<machine.sessionCount).map { .string(machine.state(of: $0 + 1)?.pageVisible ?? "idle") }
        )
        answer["paid"] = .bool(machine.paid)
    }

    /// Drops the oldest of `entries` (whose JSON sizes are `sizes`) until at most ``logLimit``
    /// entries of ``logByteLimit`` bytes together are left.
    private static func trim(_ entries: inout [JSONValue], sizes: inout [Int]) {
        var total = sizes.reduce(0, +)
        var drop = 0
        while drop < entries.count && (entries.count - drop > logLimit || total > logByteLimit) {
            total -= sizes[drop]
            drop += 1
        }
        if drop > 0 {
            entries.removeFirst(drop)
            sizes.removeFirst(drop)
        }
    }

    /// `events`, after putting the reason of an ignored user action (the last, if several) in `answer`.
    private static func reportingIgnored(
        _ events: [DispatchedEvent],
        into answer: inout JSONObject
    ) -> [DispatchedEvent] {
        for dispatched in events {
            if case .ignored(_, let reason) = dispatched.event { answer["ignored"] = .string(reason) }
        }
        return events
    }

    private func record(_ result: PageResult, into answer: inout JSONObject) {
        if let thrown = result.threw { answer["threw"] = thrown.json }
        if let value = result.returned { answer["returned"] = value }
    }

    /// The engine's call for a `paymentRequestCall` operation.
    static func paymentRequestCall(_ operation: JSONObject) throws(BridgeError) -> PaymentRequestCall {
        let settled = operation["rejected"]?.boolValue == true ? nil : (operation["value"] ?? .null)
        switch operation["method"]?.stringValue {
        case "show": return .show(userGesture: operation["userGesture"]?.boolValue ?? false)
        case "abort": return .abort
        case "canMakePayment": return .canMakePayment
        case "completeMerchantValidation": return .completeMerchantValidation
        case "merchantSessionSettled": return .merchantSessionSettled(settled)
        case "completeMerchantValidationNow": return .completeMerchantValidationNow(operation["value"] ?? .null)
        case "showDetailsPending": return .showDetailsPending
        case "updateWith": return .updateWith
        case "detailsSettled": return .detailsSettled(settled)
        case "notUpdated": return .notUpdated
        case "complete":
            if let details = operation["details"] { return .completeWithDetails(operation["value"], details: details) }
            return .complete(operation["value"])
        case "retry": return .retry(operation["value"])
        default:
            throw BridgeError(
                field: "method",
                message: "unknown PaymentRequest method \(operation["method"]?.compactText ?? "(none)")"
            )
        }
    }

    static func listeners(_ value: JSONValue) throws(BridgeError) -> Set<SheetEventType> {
        guard let array = value.arrayValue else {
            throw BridgeError(field: "listeners", message: "must be an array of event types")
        }
        var out = Set<SheetEventType>()
        for element in array {
            guard let name = element.stringValue, let type = SheetEventType(rawValue: name) else {
                throw BridgeError(field: "listeners", message: "unknown event type \(element.compactText)")
            }
            out.insert(type)
        }
        return out
    }
}
