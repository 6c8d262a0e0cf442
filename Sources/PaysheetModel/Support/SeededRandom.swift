/// SplitMix64: a small seeded generator, so that what it draws (sandbox faults, generated test
/// inputs) comes again from the same seed. Not for secrets.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    /// The state; the seed at first.
    public var state: UInt64

    /// A generator starting at `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<1`.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// `true` with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { p > 0 && unit() < p }
}
