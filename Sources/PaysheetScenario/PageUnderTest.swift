import PaysheetModel
import PaysheetSheet

/// The page a scenario drives: the engine, the sessions and payment requests its instances name,
/// and what the last page step threw or returned (for the next `expect`).
struct PageUnderTest {
    var machine: SheetMachine
    let scenario: Scenario
    /// The engine's session of each scenario instance (`instance` in a step; 1 by default).
    private(set) var sessions: [Int: Int] = [:]
    /// The engine's `PaymentRequest` of each scenario instance.
    private(set) var requests: [Int: Int] = [:]
    /// The instance the last page step addressed.
    private var currentInstance = 1
    private(set) var lastThrew: ScriptError?
    private(set) var lastReturned: JSONValue?
    /// Whether a page step ran before (an `expect` of `threw` or `returned` needs one).
    private(set) var hadPageStep = false

    init(machine: SheetMachine, scenario: Scenario) {
        self.machine = machine
        self.scenario = scenario
    }

    /// What a step did: the exception it threw, the value it returned, the events dispatched.
    struct Answer {
        var threw: ScriptError?
        var returned: JSONValue?
        var events: [DispatchedEvent] = []

        init(threw: ScriptError? = nil, returned: JSONValue? = nil, events: [DispatchedEvent] = []) {
            self.threw = threw
            self.returned = returned
            self.events = events
        }

        init(_ result: PageResult) {
            self.init(threw: result.threw, returned: result.returned, events: result.events)
        }
    }

    /// The engine's session of the instance the last page step addressed.
    var currentSession: Int? { sessions[currentInstance] }

    /// Runs a page step on `instance`.
    mutating func perform(_ step: PageStep, instance: Int) -> Answer {
        hadPageStep = true
        let answer = answer(step, instance: instance)
        lastThrew = answer.threw
        lastReturned = answer.returned
        return answer
    }

    private mutating func answer(_ step: PageStep, instance: Int) -> Answer {
        switch step {
        case .construct(let version, let request, let gesture):
            currentInstance = instance
            let result = machine.construct(
                version: version ?? scenario.version,
                request: request ?? scenario.request,
                userGesture: gesture
            )
            if result.threw == nil, let session = result.returned?.doubleValue { sessions[instance] = Int(session) }
            return Answer(threw: result.threw)
        case .call(let call):
            currentInstance = instance
            if sessions[instance] == nil, case .begin = call {
                // `begin` on an instance never constructed: the scenario's own request, constructed first.
                let constructed = machine.construct(version: scenario.version, request: scenario.request)
                if let threw = constructed.threw { return Answer(threw: threw) }
                if let session = constructed.returned?.doubleValue { sessions[instance] = Int(session) }
            }
            return Answer(machine.call(call, session: sessions[instance] ?? 0))
        case .supportsVersion(let version): return Answer(machine.supportsVersion(version))
        case .canMakePayments: return Answer(machine.canMakePayments())
        case .canMakePaymentsWithActiveCard: return Answer(machine.canMakePaymentsWithActiveCard())
        case .openPaymentSetup(let gesture): return Answer(machine.openPaymentSetup(userGesture: gesture))
        case .newApplePayError(let arguments): return Answer(machine.makeError(arguments: arguments))
        case .navigate: return Answer(events: machine.navigate())
        case .newPaymentRequest(let methodData, let details, let options):
            let result = machine.constructPaymentRequest(methodData: methodData, details: details, options: options)
            if result.threw == nil, let request = result.returned?.objectValue?["request"]?.doubleValue {
                requests[instance] = Int(request)
            }
            return Answer(threw: result.threw, returned: result.returned)
        case .request(_, let calls):
            var answer = Answer()
            for call in calls {
                let result = machine.call(call, paymentRequest: requests[instance] ?? 0)
                answer.events += result.events
                answer.threw = result.threw
                answer.returned = result.returned
                if result.threw != nil { break }
            }
            return answer
        }
    }
}
