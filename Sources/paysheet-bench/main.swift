import Foundation
import PaysheetModel
import PaysheetScenario
import PaysheetSheet

// Release benchmark of the sheet engine (`swift run -c release paysheet-bench [Conformance]`).
// Prints engine steps per second on one core, the whole conformance suite's time, and both as
// ratios against a baseline measured in the same run: parsing the same scenario text as JSON
// with Foundation's JSONSerialization (the cheapest thing any runner must do with a file).

let usage = """
    usage: paysheet-bench [sheet [FOLDER]]   the sheet engine and the conformance suite (default: Conformance)
           paysheet-bench tokens [--rounds N] token verify and decrypt, and ACP's RSA, against `openssl speed`
           paysheet-bench tokens-stages      µs per stage of a token
           paysheet-bench tokens-loop decrypt|full [SECONDS]   one EC_v1 line alone, for a profiler
           paysheet-bench contacts           contact validation
           paysheet-bench contacts-stages    µs per stage of a contact
           paysheet-bench load …             the server's load generator (Tools/load_bench.sh drives it)
           paysheet-bench floor-server …     the protocol floor the load benchmark compares against
    Run it built for release: swift run -c release paysheet-bench …
    """
if let first = CommandLine.arguments.dropFirst().first, ["-h", "--help", "help"].contains(first) {
    print(usage)
    exit(0)
}
if let first = CommandLine.arguments.dropFirst().first, first.hasPrefix("-") {
    FileHandle.standardError.write(Data("paysheet-bench: unknown option \(first)\n\(usage)\n".utf8))
    exit(2)
}

if CommandLine.arguments.dropFirst().first == "load" {
    exit(await runLoad(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.dropFirst().first == "floor-server" {
    exit(await runFloorServer(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.dropFirst().first == "contacts-stages" {
    runContactStages()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "contacts" {
    try runContactBenchmark()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "tokens-stages" {
    try await runTokenStages()
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "tokens-loop" {
    try await runTokenLoop(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "tokens" {
    try await runTokenBenchmark(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let root =
    CommandLine.arguments.dropFirst().first.map {
        $0 == "sheet" ? (CommandLine.arguments.dropFirst(2).first ?? "Conformance") : $0
    } ?? "Conformance"
let files = ((FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []).filter {
    $0.hasSuffix(".json")
}.sorted()
guard !files.isEmpty else {
    print("no scenarios under \(root)")
    exit(2)
}
let texts = files.map { try! String(contentsOfFile: (root as NSString).appendingPathComponent($0), encoding: .utf8) }
let scenarios = zip(files, texts).map { try! ScenarioParser.parse($1, file: $0) }
let runner = ScenarioRunner(recordTranscript: false)

// 1. Engine steps per second: a full payment driven directly on the state machine.
let request: JSONValue = [
    "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa", "masterCard"],
    "merchantCapabilities": ["supports3DS"],
    "requiredShippingContactFields": ["postalAddress", "email"],
    "shippingMethods": [
        ["label": "Std", "detail": "", "amount": "0.00", "identifier": "std"],
        ["label": "Exp", "detail": "", "amount": "9.99", "identifier": "exp"],
    ],
    "total": ["label": "Shop", "amount": "10.00"],
]
let update: JSONValue = [
    "newTotal": ["label": "Shop", "amount": "10.80"], "newLineItems": [["label": "Tax", "amount": "0.80"]],
]
let stepsPerPayment = 10
var payments = 0
var sink = 0
let engineTime = seconds {
    for _ in 0..<20_000 {
        var machine = SheetMachine()
        _ = machine.construct(version: 14, request: request)
        sink &+= machine.call(.begin, session: 1).events.count
        sink &+= machine.call(.completeMerchantValidation(["s": 1]), session: 1).events.count
        sink &+= machine.call(.completePaymentMethodSelection(update), session: 1).events.count
        sink &+= machine.call(.completeShippingContactSelection(update), session: 1).events.count
        sink &+= machine.perform(.selectShippingMethod(identifier: "exp")).count
        sink &+= machine.call(.completeShippingMethodSelection(update), session: 1).events.count
        sink &+= machine.perform(.authorize).count
        sink &+= machine.advance(by: 1).count
        sink &+= machine.call(.completePayment(["status": 0]), session: 1).events.count
        payments += 1
    }
}
let engineSteps = Double(payments * stepsPerPayment) / engineTime

// 2. Scenario steps per second through the runner (parsed scenarios, expectations included).
var scenarioSteps = 0
let rounds = 20
var failed = 0
let suiteTime =
    seconds {
        for _ in 0..<rounds {
            for scenario in scenarios {
                let outcome = runner.run(scenario)
                if !outcome.passed { failed += 1 }
                scenarioSteps += scenario.steps.count
            }
        }
    } / Double(rounds)

// 3. The whole suite from text (parse + run), as `paysheet sheet test` does it.
let fromTextTime = seconds {
    for (f, t) in zip(files, texts) { if !runner.run(text: t, file: f).passed { failed += 1 } }
}

// Baseline: Foundation's JSONSerialization over the same texts.
let baselineTime = seconds {
    for text in texts { sink &+= ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil) ? 1 : 0 }
}

func f(_ x: Double) -> String { String(format: "%.0f", x) }
func ms(_ x: Double) -> String { String(format: "%.2f ms", x * 1000) }
print("paysheet-bench (release, one core)")
print(
    "engine steps/s (direct state machine, full payments):  \(f(engineSteps))   target ≥ 100000   \(engineSteps >= 100_000 ? "OK" : "BELOW TARGET")"
)
print(
    "scenario steps/s (runner, parsed scenarios):           \(f(Double(scenarioSteps) / (suiteTime * Double(rounds))))"
)
print("conformance suite, \(files.count) scenarios, parsed:          \(ms(suiteTime))")
print(
    "conformance suite from text (parse + run):             \(ms(fromTextTime))   target < 1000 ms   \(fromTextTime < 1 ? "OK" : "ABOVE TARGET")"
)
print("baseline: JSONSerialization of the same files:         \(ms(baselineTime))")
print("ratio suite-from-text / baseline:                      \(String(format: "%.1f", fromTextTime / baselineTime))x")
if failed > 0 {
    print("\(failed) scenario runs failed")
    exit(1)
}
if sink == 42 { print("") }
