import Foundation
import Testing

/// `paysheet-bench` and `paysheet-sim` as a user runs them: their usage, and a replay of a
/// simulated schedule, as a failure's printed command does it.
@Suite struct ToolUsageTests {
    static func tool(_ name: String) -> URL { CLITests.binary.deletingLastPathComponent().appendingPathComponent(name) }

    static func run(_ name: String, _ arguments: [String]) throws -> CLITests.Run {
        let p = Process()
        p.executableURL = tool(name)
        p.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        p.standardOutput = output
        p.standardError = error
        try p.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CLITests.Run(
            status: p.terminationStatus,
            out: String(decoding: out, as: UTF8.self),
            err: String(decoding: err, as: UTF8.self)
        )
    }

    @Test(arguments: ["--help", "-h"]) func theBenchmarkPrintsItsUsage(_ flag: String) throws {
        let help = try Self.run("paysheet-bench", [flag])
        #expect(help.status == 0)
        #expect(help.out.hasPrefix("usage: paysheet-bench"), "\(help.out.prefix(200))")
        let bogus = try Self.run("paysheet-bench", ["--bogus"])
        #expect(bogus.status == 2 && bogus.err.contains("unknown option --bogus"))
    }

    @Test func theSimulatorPrintsItsUsageAndReplaysASchedule() throws {
        #expect(try Self.run("paysheet-sim", ["-h"]).status == 0)
        #expect(try Self.run("paysheet-sim", []).status == 2)
        let world = "servers=2 orders=2 faults=true horizon=60"
        let held = try Self.run("paysheet-sim", ["replay", "--seed", "5", "--world", world])
        #expect(held.status == 0, "\(held.out.suffix(300))")
        #expect(held.out.hasSuffix("every invariant held\n"))
        #expect(held.out.contains("server "))
        // A broken core, as a failure prints its replay: the same schedule, the invariant named.
        let broken = try Self.run(
            "paysheet-sim",
            [
                "replay", "--seed", "2", "--world", "servers=3 orders=4 faults=true horizon=120", "--mutant",
                "accepted-is-paid",
            ]
        )
        #expect(broken.status == 1)
        #expect(broken.out.contains("VIOLATED: ledger-matches-acquirer"), "\(broken.out.suffix(300))")
    }
}
