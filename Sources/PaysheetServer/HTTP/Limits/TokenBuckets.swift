/// Token buckets by key (a client address, an order), without I/O: time is an input.
///
/// Each key's bucket holds at most `capacity` tokens and refills at `capacity` per `period`; a
/// request takes one, or is refused with the seconds until one is there. At most `maxKeys`
/// buckets are kept: when full, buckets that have refilled are dropped (they are the same as
/// none), then the longest unused.
struct TokenBuckets {
    /// The rule of one kind of request: `capacity` per `period` seconds.
    struct Rule: Sendable, Equatable {
        var capacity: Int
        var period: Double

        var perSecond: Double { Double(capacity) / period }
    }

    /// Whether a request may go ahead.
    enum Decision: Equatable {
        case allowed
        /// Refused; a token is there after this many whole seconds.
        case refused(retryAfter: Int)
    }

    private struct Bucket {
        var tokens: Double
        var at: Double
    }

    let maxKeys: Int
    private var buckets: [String: Bucket] = [:]

    init(maxKeys: Int = 100_000) { self.maxKeys = maxKeys }

    /// Buckets kept.
    var count: Int { buckets.count }

    /// Takes a token from `key`'s bucket at `now` (seconds on any monotonic scale).
    mutating func take(_ key: String, rule: Rule, now: Double) -> Decision {
        guard rule.capacity > 0 else { return .refused(retryAfter: Int(rule.period.rounded(.up))) }
        var bucket = buckets[key] ?? Bucket(tokens: Double(rule.capacity), at: now)
        bucket.tokens = min(Double(rule.capacity), bucket.tokens + max(0, now - bucket.at) * rule.perSecond)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[key] = bucket
            return .refused(retryAfter: max(1, Int(((1 - bucket.tokens) / rule.perSecond).rounded(.up))))
        }
        bucket.tokens -= 1
        if buckets[key] == nil, buckets.count >= maxKeys { prune(rule: rule, now: now) }
        buckets[key] = bucket
        return .allowed
    }

    private mutating func prune(rule: Rule, now: Double) {
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.at) * rule.perSecond < Double(rule.capacity) }
        if buckets.count >= maxKeys {
            let oldest = buckets.sorted { $0.value.at < $1.value.at }.prefix(buckets.count - maxKeys / 2)
            for (key, _) in oldest { buckets[key] = nil }
        }
    }
}
