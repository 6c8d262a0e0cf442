import PaysheetModel
import PaysheetSheet

/// One step as it ran: what it did and what the page and the sheet saw after it.
public struct TranscriptEntry: Sendable {
    /// The 1-based step number.
    public var step: Int
    /// The step as written (JSON).
    public var input: JSONValue
    /// The exception the step threw (page steps).
    public var threw: ScriptError?
    /// The value the step returned (page steps).
    public var returned: JSONValue?
    /// The events it caused.
    public var events: [JSONValue]
    /// The sheet after the step.
    public var sheet: JSONValue
    /// The page-visible state of the step's session.
    public var session: String
    /// For `expect` steps: `nil` when it held, else why not.
    public var failure: String?

    /// The entry as one JSON object (`paysheet sheet run --json`).
    public var json: JSONValue {
        var object = JSONObject()
        object["step"] = .number(String(step))
        object["input"] = input
        object["threw"] = threw?.json ?? .null
        if let returned { object["returned"] = returned }
        object["events"] = .array(events)
        object["session"] = .string(session)
        object["sheet"] = sheet
        if case .object(let inputObject) = input, inputObject["expect"] != nil {
            object["held"] = .bool(failure == nil)
        }
        if let failure { object["failure"] = .string(failure) }
        return .object(object)
    }
}

/// The outcome of a scenario.
public struct ScenarioOutcome: Sendable {
    /// The scenario's name (or the file's, when it could not be read).
    public var name: String
    /// The file.
    public var file: String
    /// Whether every expectation held.
    public var passed: Bool { failure == nil }
    /// Why it failed: a failed expectation or a ``ScenarioError``.
    public var failure: String?
    /// Every step as it ran (up to the first failure).
    public var transcript: [TranscriptEntry]

    /// An outcome.
    public init(name: String, file: String, failure: String?, transcript: [TranscriptEntry]) {
        self.name = name
        self.file = file
        self.failure = failure
        self.transcript = transcript
    }
}

/// Runs scenarios against the sheet engine.
public struct ScenarioRunner: Sendable {
    /// Whether to record a transcript (off for `sheet test` and the benchmark: faster).
    public var recordTranscript: Bool

    /// Makes the tokens of authorized payments; `nil` keeps the scenario's configuration
    /// (a marked placeholder token).
    public var tokenFactory: (any PaymentTokenFactory)?

    /// A runner.
    public init(recordTranscript: Bool = true, tokenFactory: (any PaymentTokenFactory)? = nil) {
        self.recordTranscript = recordTranscript
        self.tokenFactory = tokenFactory
    }

    /// Reads and runs a scenario file's text.
    public func run(text: String, file: String) -> ScenarioOutcome {
        do throws(ScenarioError) {
            return run(try ScenarioParser.parse(text, file: file))
        } catch {
            return ScenarioOutcome(
                name: Self.name(of: text, file: file),
                file: file,
                failure: "scenario error: \(error)",
                transcript: []
            )
        }
    }

    /// The name of a scenario that cannot be run: its `name` when the file is JSON with one,
    /// else the file's name without folder and extension (`FAIL name: …`, as for the others).
    static func name(of text: String, file: String) -> String {
        if let json = try? JSONParser.parse(text), case .object(let object) = json,
            case .string(let name)? = object["name"], !name.isEmpty
        {
            return name
        }
        var base = Substring(file.split(separator: "/").last ?? Substring(file))
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = base[..<dot] }
        return String(base)
    }

    /// Runs a parsed scenario.
    public func run(_ scenario: Scenario) -> ScenarioOutcome {
        var configuration = scenario.configuration
        if let tokenFactory { configuration.tokenFactory = tokenFactory }
        var page = PageUnderTest(machine: SheetMachine(configuration: configuration), scenario: scenario)
        var log: [JSONValue] = []
        var transcript: [TranscriptEntry] = []
        for (offset, step) in scenario.steps.enumerated() {
            let number = offset + 1
            var answer = PageUnderTest.Answer()
            var failure: String?
            switch step {
            case .page(let pageStep, let instance):
                answer = page.perform(pageStep, instance: instance)
            case .user(let action):
                answer.events = page.machine.perform(action)
            case .wait(let seconds):
                answer.events = page.machine.advance(by: seconds)
            case .expect(let expectation):
                failure = check(
                    expectation,
                    machine: page.machine,
                    log: &log,
                    lastThrew: page.lastThrew,
                    lastReturned: page.lastReturned,
                    hadPageStep: page.hadPageStep,
                    session: page.currentSession
                )
            }
            let recorded = Self.record(answer.events, into: &log, multi: page.machine.sessionCount > 1)
            if recordTranscript || failure != nil {
                let sessionState = page.currentSession.flatMap { page.machine.state(of: $0)?.pageVisible } ?? "idle"
                transcript.append(
                    TranscriptEntry(
                        step: number,
                        input: scenario.rawSteps.indices.contains(offset) ? scenario.rawSteps[offset] : inputJSON(step),
                        threw: answer.threw,
                        returned: answer.returned,
                        events: recorded,
                        sheet: recordTranscript ? page.machine.snapshot() : .null,
                        session: sessionState,
                        failure: failure
                    )
                )
            }
            if let failure {
                return ScenarioOutcome(
                    name: scenario.name,
                    file: scenario.file,
                    failure: "step \(number): \(failure)",
                    transcript: transcript
                )
            }
        }
        return ScenarioOutcome(name: scenario.name, file: scenario.file, failure: nil, transcript: transcript)
    }

    /// The events as the log and the transcript show them (with their session when there are several).
    static func record(_ events: [DispatchedEvent], into log: inout [JSONValue], multi: Bool) -> [JSONValue] {
        events.map { dispatched in
            var json = dispatched.event.json
            if multi, case .object(var object) = json {
                object["session"] = .number(String(dispatched.session))
                json = .object(object)
            }
            log.append(json)
            return json
        }
    }

    private func check(
        _ expectation: Expectation,
        machine: SheetMachine,
        log: inout [JSONValue],
        lastThrew: ScriptError?,
        lastReturned: JSONValue?,
        hadPageStep: Bool,
        session: Int?
    ) -> String? {
        if let threw = expectation.threw {
            let actual = lastThrew?.json ?? .null
            switch threw {
            case nil:
                if let lastThrew { return "threw: expected nothing, the last page step threw \(lastThrew)" }
            case .string(let name)?:
                if lastThrew?.name.rawValue != name {
                    return "threw: expected \(name), found \(lastThrew.map { "\($0)" } ?? "nothing")"
                }
            case let expected?:
                if let mismatch = Matcher.mismatch(expected: expected, actual: actual, path: "threw") {
                    return mismatch + (lastThrew.map { " (threw \($0))" } ?? " (threw nothing)")
                }
            }
        }
        if let returned = expectation.returned {
            let expected = returned ?? .null
            if let mismatch = Matcher.mismatch(expected: expected, actual: lastReturned ?? .null, path: "returned") {
                return mismatch
            }
        }
        if let events = expectation.events {
            let actual = JSONValue.array(log)
            log.removeAll()
            if let mismatch = Matcher.mismatch(expected: .array(events), actual: actual, path: "events") {
                return mismatch
            }
        }
        if let state = expectation.session {
            let actual = session.flatMap { machine.state(of: $0)?.pageVisible } ?? "idle"
            if actual != state { return "session: expected \(state), found \(actual)" }
        }
        if let sheet = expectation.sheet,
            let mismatch = Matcher.mismatch(expected: sheet, actual: machine.snapshot(), path: "sheet")
        {
            return mismatch
        }
        if let paid = expectation.paid, paid != machine.paid { return "paid: expected \(paid), found \(machine.paid)" }
        return nil
    }

    private func inputJSON(_ step: ScenarioStep) -> JSONValue {
        switch step {
        case .expect(let expectation): return ["expect": expectation.raw]
        case .wait(let seconds): return ["wait": .number(JSONValue.javaScriptNumberString(String(seconds)))]
        case .user(let action): return ["user": .string(action.name)]
        case .page(let pageStep, let instance):
            var object: JSONObject = ["page": .string(Self.pageName(pageStep))]
            if instance != 1 { object["instance"] = .number(String(instance)) }
            return .object(object)
        }
    }

    static func pageName(_ step: PageStep) -> String {
        switch step {
        case .construct: return "construct"
        case .call(let call): return call.name
        case .supportsVersion: return "supportsVersion"
        case .canMakePayments: return "canMakePayments"
        case .canMakePaymentsWithActiveCard: return "canMakePaymentsWithActiveCard"
        case .openPaymentSetup: return "openPaymentSetup"
        case .newApplePayError: return "newApplePayError"
        case .navigate: return "navigate"
        case .newPaymentRequest: return "newPaymentRequest"
        case .request(let name, _): return name
        }
    }
}
