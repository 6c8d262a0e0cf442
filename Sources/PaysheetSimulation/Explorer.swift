import Foundation

/// Runs schedules: random ones from seeds, or every one of a small configuration.
public enum Explorer {
    /// The configuration of random schedule `seed`: 1–3 servers, 1–4 orders, with faults.
    public static func configuration(seed: UInt64) -> SimulationConfiguration {
        var chooser = SeededChooser(seed: seed ^ 0x5EED)
        return SimulationConfiguration(
            servers: 1 + chooser.choose(3),
            orders: 1 + chooser.choose(4),
            faults: chooser.choose(8) != 0
        )
    }

    /// The command that replays schedule `seed` of `configuration` with `mutant`, step by step.
    public static func replayCommand(
        seed: UInt64,
        configuration: SimulationConfiguration,
        mutant: Core.Mutant?
    ) -> String {
        "swift run paysheet-sim replay --seed \(seed) --world '\(configuration)'"
            + (mutant.map { " --mutant \($0.rawValue)" } ?? "")
    }

    /// The command that replays the exhaustive schedule `path` of `configuration`.
    public static func replayCommand(
        path: [Int],
        configuration: SimulationConfiguration,
        mutant: Core.Mutant?
    ) -> String {
        "swift run paysheet-sim replay --path \(path.map(String.init).joined(separator: ",")) --world '\(configuration)'"
            + (mutant.map { " --mutant \($0.rawValue)" } ?? "")
    }

    /// A failed schedule: what broke and how to see it again.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The invariant and where.
        public var violation: Violation
        /// The one-line command that replays it.
        public var replay: String

        public var description: String { "\(violation)\n  replay: \(replay)" }
    }

    /// Runs the random schedule `seed` (its configuration from the seed unless given).
    public static func run(
        seed: UInt64,
        configuration: SimulationConfiguration? = nil,
        mutant: Core.Mutant? = nil
    ) -> Failure? {
        let world = configuration ?? Self.configuration(seed: seed)
        var simulation = Simulation(configuration: world, chooser: SeededChooser(seed: seed), core: .with(mutant))
        do {
            try simulation.run()
            return nil
        } catch {
            return Failure(violation: error, replay: replayCommand(seed: seed, configuration: world, mutant: mutant))
        }
    }

    /// Runs seeds `seeds`; the first failure, and how many ran.
    public static func run(seeds: Range<UInt64>, mutant: Core.Mutant? = nil) -> (ran: Int, failure: Failure?) {
        var ran = 0
        for seed in seeds {
            ran += 1
            if let failure = run(seed: seed, mutant: mutant) { return (ran, failure) }
        }
        return (ran, nil)
    }

    /// Runs every schedule of `configuration` (at most `limit`): how many, the first failure, and
    /// whether all were run.
    public static func exhaust(
        _ configuration: SimulationConfiguration,
        mutant: Core.Mutant? = nil,
        maxDeviations: Int?,
        limit: Int = 1_000_000
    ) -> (schedules: Int, failure: Failure?, complete: Bool) {
        var chooser = ExhaustiveChooser(maxDeviations: maxDeviations)
        var count = 0
        while count < limit {
            var simulation = Simulation(configuration: configuration, chooser: chooser, core: .with(mutant))
            count += 1
            do { try simulation.run() } catch {
                let path = simulation.chooser.choices
                return (
                    count,
                    Failure(
                        violation: error,
                        replay: replayCommand(path: path, configuration: configuration, mutant: mutant)
                    ), false
                )
            }
            chooser = simulation.chooser
            if !chooser.advance() { return (count, nil, true) }
        }
        return (count, nil, false)
    }

    /// Replays one schedule with its trace.
    public static func replay<C: Chooser>(
        _ chooser: C,
        configuration: SimulationConfiguration,
        mutant: Core.Mutant?
    ) -> (trace: [String], violation: Violation?) {
        var simulation = Simulation(configuration: configuration, chooser: chooser, core: .with(mutant), tracing: true)
        do {
            try simulation.run()
            return (simulation.trace ?? [], nil)
        } catch {
            return (simulation.trace ?? [], error)
        }
    }
}
