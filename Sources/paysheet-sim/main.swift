import Foundation
import PaysheetSimulation

// The payment core under deterministic simulation (docs/payment-core.md).
//
//   paysheet-sim run [--schedules N] [--from SEED] [--jobs J]   random schedules; a failure prints its replay
//   paysheet-sim exhaust [--deviations K]                         every schedule of the small worlds (bounded)
//   paysheet-sim mutants [--schedules N]                          each broken core must be caught
//   paysheet-sim replay --seed S --world '…' [--mutant M]         one schedule, step by step
//   paysheet-sim replay --path 0,1,… --world '…' [--mutant M]

let usage = """
    usage: paysheet-sim run [--schedules N] [--from SEED] [--jobs J]
           paysheet-sim exhaust [--deviations K|all] [--faults false]
           paysheet-sim mutants [--schedules N]
           paysheet-sim replay (--seed S | --path P) --world 'servers=2 orders=3 …' [--mutant NAME]
    """

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

guard let command = arguments.first, !["-h", "--help", "help"].contains(command) else {
    print(usage)
    exit(arguments.isEmpty ? 2 : 0)
}
let clock = ContinuousClock()
let started = clock.now

switch command {
case "run":
    let total = UInt64(option("--schedules") ?? "100000") ?? 100_000
    let from = UInt64(option("--from") ?? "1") ?? 1
    let jobs = max(1, Int(option("--jobs") ?? "2") ?? 2)
    let results = Results()
    DispatchQueue.concurrentPerform(iterations: jobs) { job in
        // Seeds from..<from+total, split into `jobs` runs of consecutive seeds.
        let size = (total + UInt64(jobs) - 1) / UInt64(jobs)
        let first = from + UInt64(job) * size
        let last = min(from + total, first + size)
        let result = first < last ? Explorer.run(seeds: first..<last) : (0, nil)
        results.add(result)
    }
    let all = results.all
    let ran = all.reduce(0) { $0 + $1.ran }
    let elapsed = clock.now - started
    if let failure = all.compactMap(\.failure).first {
        print("FAILED after \(ran) schedules (\(elapsed)): \(failure)")
        exit(1)
    }
    print("\(ran) schedules, every invariant held after every step (\(elapsed))")
case "exhaust":
    // `--deviations all`: no bound (every schedule); `--faults false`: no lost messages or crashes.
    let deviations = option("--deviations") == "all" ? nil : Int(option("--deviations") ?? "2") ?? 2
    let faults = option("--faults") != "false"
    let horizon = Double(option("--horizon") ?? "60") ?? 60
    let bound = deviations.map { "at most \($0) unusual choices" } ?? "every schedule"
    // The small worlds side by side (one per core).
    let lines = Lines()
    let scripts = SimulationConfiguration.Script.allCases
    DispatchQueue.concurrentPerform(iterations: scripts.count) { index in
        let script = scripts[index]
        let world = SimulationConfiguration(servers: 1, orders: 1, faults: faults, horizon: horizon, script: script)
        let (count, failure, complete) = Explorer.exhaust(world, maxDeviations: deviations, limit: 5_000_000)
        let line =
            "\(script.rawValue)\(faults ? "" : " without faults"), \(bound): \(count) schedules"
            + (complete ? ", all of them" : " (cut short)") + (failure.map { ": \($0)" } ?? "")
        lines.add(line, failed: failure != nil || !complete)
    }
    for line in lines.all.sorted() { print(line) }
    print("(\(clock.now - started))")
    if lines.failed { exit(1) }
case "mutants":
    let budget = UInt64(option("--schedules") ?? "20000") ?? 20_000
    var missed = false
    for mutant in Core.Mutant.allCases {
        let (ran, failure) = Explorer.run(seeds: 1..<(1 + budget), mutant: mutant)
        if let failure, failure.violation.invariant == mutant.caughtBy {
            print("\(mutant.rawValue): caught by \(mutant.caughtBy.rawValue) after \(ran) schedules")
            print("  replay: \(failure.replay)")
        } else {
            missed = true
            print(
                "\(mutant.rawValue): NOT caught by \(mutant.caughtBy.rawValue)\(failure.map { " (caught by \($0.violation.invariant.rawValue) instead)" } ?? "")"
            )
        }
    }
    if missed { exit(1) }
case "replay":
    guard let worldText = option("--world"), let world = SimulationConfiguration(parsing: worldText) else {
        fail("replay needs --world '…' as a failure printed it")
    }
    var mutant: Core.Mutant?
    if let name = option("--mutant") {
        guard let named = Core.Mutant(rawValue: name) else { fail("no mutant \(name)") }
        mutant = named
    }
    let result: (trace: [String], violation: Violation?)
    if let seed = option("--seed").flatMap(UInt64.init) {
        result = Explorer.replay(SeededChooser(seed: seed), configuration: world, mutant: mutant)
    } else if let path = option("--path") {
        result = Explorer.replay(
            ReplayChooser(path: path.split(separator: ",").compactMap { Int($0) }),
            configuration: world,
            mutant: mutant
        )
    } else {
        fail("replay needs --seed or --path")
    }
    for line in result.trace { print(line) }
    if let violation = result.violation {
        print("VIOLATED: \(violation)")
        exit(1)
    }
    print("every invariant held")
default:
    fail(usage)
}

/// The runs' results, gathered from the threads that made them (NSLock: `Mutex` needs macOS 15).
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [(ran: Int, failure: Explorer.Failure?)] = []
    func add(_ result: (ran: Int, failure: Explorer.Failure?)) { lock.withLock { results.append(result) } }
    var all: [(ran: Int, failure: Explorer.Failure?)] { lock.withLock { results } }
}

/// Lines printed by the runs side by side, and whether one failed.
final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var anyFailed = false
    func add(_ line: String, failed: Bool) {
        lock.withLock {
            lines.append(line)
            anyFailed = anyFailed || failed
        }
    }
    var all: [String] { lock.withLock { lines } }
    var failed: Bool { lock.withLock { anyFailed } }
}
