/// Where a simulation's decisions come from: a seeded generator (random schedules), or a
/// depth-first walk that takes every choice in turn (all schedules of a small configuration).
/// Each run asks the same questions in the same order for the same answers: a schedule is its
/// seed, or its path of choices, and replays exactly.
public protocol Chooser {
    /// A number in `0..<count` (`count` ≥ 1).
    mutating func choose(_ count: Int) -> Int
    /// Whether something with probability `probability` happens (a fault, a duplicate, …).
    mutating func chance(_ probability: Double) -> Bool
}

/// SplitMix64: small, fast and the same on every platform, so that a seed replays anywhere.
public struct SeededChooser: Chooser {
    private var state: UInt64

    /// The chooser of `seed`.
    public init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func choose(_ count: Int) -> Int {
        precondition(count >= 1)
        return count == 1 ? 0 : Int(next() % UInt64(count))
    }

    public mutating func chance(_ probability: Double) -> Bool {
        guard probability > 0 else { return false }
        return Double(next() >> 11) / Double(1 << 53) < probability
    }
}

/// Every schedule, depth first: each run follows the path of the last one up to its last choice
/// that has an untried alternative, takes that alternative, and then the first of everything.
/// `chance` is a choice of two (it happens or not) whenever its probability is above zero.
///
/// `maxDeviations` bounds how many choices of a schedule may differ from the first option (as
/// CHESS bounds preemptions): every schedule within the bound is run, none outside it. Most
/// faults need one or two unusual choices to show; the bound keeps the count in reach.
public struct ExhaustiveChooser: Chooser {
    private var path: [(taken: Int, count: Int)] = []
    private var position = 0
    /// The most choices of one schedule that are not the first option (`nil`: no bound).
    public let maxDeviations: Int?

    /// A walk from the first schedule.
    public init(maxDeviations: Int? = nil) { self.maxDeviations = maxDeviations }

    public mutating func choose(_ count: Int) -> Int {
        precondition(count >= 1)
        defer { position += 1 }
        if position < path.count {
            path[position].count = count
            return min(path[position].taken, count - 1)
        }
        path.append((0, count))
        return 0
    }

    public mutating func chance(_ probability: Double) -> Bool {
        guard probability > 0 else { return false }
        return choose(2) == 1
    }

    /// Moves to the next schedule; `false` when every one was taken.
    public mutating func advance() -> Bool {
        path.removeSubrange(min(position, path.count)...)
        position = 0
        var deviations = path.filter { $0.taken != 0 }.count
        while let last = path.last {
            if last.taken != 0 { deviations -= 1 }
            let allowed = maxDeviations.map { deviations + 1 <= $0 } ?? true
            if last.taken + 1 < last.count, allowed {
                path[path.count - 1].taken += 1
                return true
            }
            path.removeLast()
        }
        return false
    }

    /// The current path, as a replayable list of choices.
    public var choices: [Int] { path.map(\.taken) }
}

/// Replays a path of choices an ``ExhaustiveChooser`` printed; past its end, the first of everything.
public struct ReplayChooser: Chooser {
    private let path: [Int]
    private var position = 0

    /// The replay of `path`.
    public init(path: [Int]) { self.path = path }

    public mutating func choose(_ count: Int) -> Int {
        defer { position += 1 }
        return position < path.count ? min(path[position], count - 1) : 0
    }

    public mutating func chance(_ probability: Double) -> Bool {
        guard probability > 0 else { return false }
        return choose(2) == 1
    }
}
