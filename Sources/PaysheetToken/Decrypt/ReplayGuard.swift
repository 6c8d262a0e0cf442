import Foundation

/// Remembers accepted `transactionId`s so that the same token is not accepted twice (Apple's
/// step 5). A server with several processes implements it over its database.
public protocol ReplayGuard: Sendable {
    /// Records `transactionId`; `false` when it was already recorded.
    func recordFirstUse(of transactionId: String, signedAt signingTime: Date, now: Date) -> Bool
}

/// A ``ReplayGuard`` in memory: transaction ids are kept until their token could no longer pass
/// the signing-time check (`retention` seconds after signing).
public final class InMemoryReplayGuard: ReplayGuard, @unchecked Sendable {
    // `@unchecked`: `seen` is only touched under `lock` (`Synchronization.Mutex` needs macOS 15, the
    // package supports macOS 14, and PaysheetToken depends on nothing that has a checked lock).
    private let lock = NSLock()
    private var seen: [String: Date] = [:]
    private let retention: TimeInterval

    /// A guard keeping ids for `retention` seconds after their signing time (by default twice
    /// Apple's 5-minute window, to cover clock differences both ways).
    public init(retention: TimeInterval = 600) { self.retention = retention }

    public func recordFirstUse(of transactionId: String, signedAt signingTime: Date, now: Date) -> Bool {
        let id = transactionId.lowercased()
        lock.lock()
        defer { lock.unlock() }
        if seen.count > 4096 {
            let cutoff = now.addingTimeInterval(-retention)
            seen = seen.filter { $0.value >= cutoff }
        }
        if seen[id] != nil { return false }
        seen[id] = signingTime
        return true
    }
}
