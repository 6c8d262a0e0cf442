import Foundation
import PaysheetSimulation
import Testing

/// The core under deterministic simulation, on a fixed budget (CI runs far more: `.ci/run`'s
/// simulation stage, docs/payment-core.md). A failure prints the one-line command that replays it.
@Suite struct SimulationTests {
    @Test func randomSchedulesKeepEveryInvariant() {
        let (ran, failure) = Explorer.run(seeds: 1..<301)
        #expect(failure == nil, "\(failure.map(String.init(describing:)) ?? "")")
        #expect(ran == 300)
    }

    @Test(arguments: SimulationConfiguration.Script.allCases)
    func everyScheduleOfASmallWorldWithOneUnusualChoiceKeepsEveryInvariant(script: SimulationConfiguration.Script) {
        let world = SimulationConfiguration(servers: 1, orders: 1, faults: true, horizon: 60, script: script)
        let (count, failure, complete) = Explorer.exhaust(world, maxDeviations: 1)
        #expect(failure == nil, "\(failure.map(String.init(describing:)) ?? "")")
        #expect(complete && count > 50)
    }

    @Test(arguments: Core.Mutant.allCases) func eachBrokenCoreIsCaughtByItsInvariant(mutant: Core.Mutant) {
        let (_, failure) = Explorer.run(seeds: 1..<2_001, mutant: mutant)
        #expect(
            failure?.violation.invariant == mutant.caughtBy,
            "\(mutant): \(failure.map(String.init(describing:)) ?? "not caught")"
        )
        #expect(failure?.replay.contains("--mutant \(mutant.rawValue)") == true)
    }

    @Test func aScheduleReplaysExactly() {
        let world = Explorer.configuration(seed: 42)
        let first = Explorer.replay(SeededChooser(seed: 42), configuration: world, mutant: nil)
        let second = Explorer.replay(SeededChooser(seed: 42), configuration: world, mutant: nil)
        #expect(first.trace == second.trace && first.trace.count > 10)
        let other = Explorer.replay(SeededChooser(seed: 43), configuration: world, mutant: nil)
        #expect(other.trace != first.trace)
    }

    @Test func theWorldDescriptionReadsBack() {
        let world = SimulationConfiguration(servers: 3, orders: 2, faults: false, horizon: 90, script: .twoRefunds)
        #expect(SimulationConfiguration(parsing: world.description) == world)
        #expect(SimulationConfiguration(parsing: "servers=9") == nil)
    }
}
