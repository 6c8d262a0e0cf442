import UnionPay
import PaysheetModel
/// Faults the sandbox gateway injects, each with a probability in 0…1 (drawn from a seeded
/// generator, so a run can be repeated).
public struct SandboxFaults: Sendable, Codable, Equatable {
    /// Seed of the fault generator.
    public var seed: UInt64 = 1
    /// Seconds from acceptance until a transaction's result is final (queries answer `05` before).
    public var processingSeconds: Double = 0
    /// A notification is never sent.
    public var dropNotification: Double = 0
    /// A notification is sent twice.
    public var duplicateNotification: Double = 0
    /// A notification is sent late, after up to ``notificationDelaySeconds``.
    public var delayNotification: Double = 0
    /// The longest notification delay.
    public var notificationDelaySeconds: Double = 2
    /// The synchronous answer comes after ``timeoutSeconds`` (the transaction is processed).
    public var timeout: Double = 0
    /// How long a "timeout" answer takes.
    public var timeoutSeconds: Double = 15
    /// HTTP 503 before anything is processed.
    public var serverErrorBefore: Double = 0
    /// HTTP 500 after the transaction was processed (the worst case: money moved, no answer).
    public var serverErrorAfter: Double = 0
    /// A query answers after ``slowQuerySeconds``.
    public var slowQuery: Double = 0
    /// How long a slow query takes.
    public var slowQuerySeconds: Double = 2
    /// A query answers `respCode=03` (query timed out; query again).
    public var queryTimeoutCode: Double = 0

    /// No faults.
    public init() {}

    /// Decodes a JSON object whose members are all optional (missing ones keep their defaults).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = SandboxFaults()
        func v(_ k: CodingKeys, _ fallback: Double) throws -> Double {
            let x = try c.decodeIfPresent(Double.self, forKey: k) ?? fallback
            guard x >= 0, x.isFinite else {
                throw DecodingError.dataCorruptedError(
                    forKey: k,
                    in: c,
                    debugDescription: "\(k.stringValue) must be a non-negative number"
                )
            }
            return x
        }
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? d.seed
        processingSeconds = try v(.processingSeconds, d.processingSeconds)
        dropNotification = try v(.dropNotification, d.dropNotification)
        duplicateNotification = try v(.duplicateNotification, d.duplicateNotification)
        delayNotification = try v(.delayNotification, d.delayNotification)
        notificationDelaySeconds = try v(.notificationDelaySeconds, d.notificationDelaySeconds)
        timeout = try v(.timeout, d.timeout)
        timeoutSeconds = try v(.timeoutSeconds, d.timeoutSeconds)
        serverErrorBefore = try v(.serverErrorBefore, d.serverErrorBefore)
        serverErrorAfter = try v(.serverErrorAfter, d.serverErrorAfter)
        slowQuery = try v(.slowQuery, d.slowQuery)
        slowQuerySeconds = try v(.slowQuerySeconds, d.slowQuerySeconds)
        queryTimeoutCode = try v(.queryTimeoutCode, d.queryTimeoutCode)
    }

    /// Every fault at `probability`, with short delays (for fault runs).
    public static func all(_ probability: Double, seed: UInt64 = 1, timeoutSeconds: Double = 3) -> SandboxFaults {
        var f = SandboxFaults()
        f.seed = seed
        f.dropNotification = probability
        f.duplicateNotification = probability
        f.delayNotification = probability
        f.notificationDelaySeconds = 2
        f.timeout = probability / 2
        f.timeoutSeconds = timeoutSeconds
        f.serverErrorBefore = probability / 2
        f.serverErrorAfter = probability / 2
        f.slowQuery = probability
        f.slowQuerySeconds = 1
        f.queryTimeoutCode = probability / 2
        return f
    }
}

/// The faults' draws: seeded, so that a run comes again from its seed.
typealias FaultRandom = SeededRandom
