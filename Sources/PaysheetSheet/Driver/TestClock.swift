/// Virtual time for driving a sheet from Swift tests. Nothing sleeps: time moves only when a
/// test (or a delegate simulating a slow back end) calls ``advance(by:)``.
public actor TestClock {
    /// Seconds since the clock was made.
    public private(set) var now: Double = 0

    /// A clock at zero.
    public init() {}

    /// Moves time forward.
    public func advance(by seconds: Double) { now += max(0, seconds) }
}
