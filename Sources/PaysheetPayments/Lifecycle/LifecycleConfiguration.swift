/// The timing rules of ``PaymentLifecycle`` and ``OrderLifecycle``.
public struct LifecycleConfiguration: Sendable, Codable, Equatable {
    /// Seconds to wait for a notification after the acquirer accepted, before the first query.
    public var resultWait: Double = 3
    /// The query schedule after that: UnionPay's 1, 2, 4, 8, 16, 32 s.
    public var queryIntervals: [Double] = [1, 2, 4, 8, 16, 32]
    /// Then back off: 5, 10, 30, 60, 120 minutes; the last repeats.
    public var backoffIntervals: [Double] = [300, 600, 1800, 3600, 7200]
    /// A transaction the acquirer still does not know this many seconds after submission never
    /// reached it (`34` is proof of failure only late).
    public var notFoundIsFinalAfter: Double = 60
    /// Seconds a server holds a due payment it claimed for a query: no other server queries it
    /// meanwhile; a server that dies loses the claim when it runs out. Longer than a query takes.
    public var leaseSeconds: Double = 30
    /// Seconds after its charge during which the shopper may still cancel a paid order (the
    /// sheet's 30 s, the authorization's answer in flight, a slow page); past it, a paid order is
    /// the merchant's to refund (its key may cancel at any time).
    public var shopperCancelWindow: Double = 120
    /// The acquirer's clearing day (voids are same-day only).
    public var clearingDay = ClearingDay()

    /// UnionPay's schedule.
    public init() {}

    /// Reads the settings given; the others keep their defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        resultWait = try c.decodeIfPresent(Double.self, forKey: .resultWait) ?? resultWait
        queryIntervals = try c.decodeIfPresent([Double].self, forKey: .queryIntervals) ?? queryIntervals
        backoffIntervals = try c.decodeIfPresent([Double].self, forKey: .backoffIntervals) ?? backoffIntervals
        notFoundIsFinalAfter = try c.decodeIfPresent(Double.self, forKey: .notFoundIsFinalAfter) ?? notFoundIsFinalAfter
        leaseSeconds = try c.decodeIfPresent(Double.self, forKey: .leaseSeconds) ?? leaseSeconds
        shopperCancelWindow = try c.decodeIfPresent(Double.self, forKey: .shopperCancelWindow) ?? shopperCancelWindow
        clearingDay = try c.decodeIfPresent(ClearingDay.self, forKey: .clearingDay) ?? clearingDay
    }

    /// The wait before query number `n` (0-based) after the first.
    package func interval(after n: Int) -> Double {
        if n < queryIntervals.count { return queryIntervals[n] }
        guard !backoffIntervals.isEmpty else { return queryIntervals.last ?? 60 }
        return backoffIntervals[min(n - queryIntervals.count, backoffIntervals.count - 1)]
    }
}
