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
    /// A charge (consume) accepted at once stays in processing (queries answer `05`, no
    /// notification) until ``SandboxGateway/releaseHeldCharges(now:)`` (`POST /sandbox/release`)
    /// ends its processing: then its result is final and its notification is sent (subject to the
    /// notification faults). A test hook: the order of the acquirer's outcome and what the
    /// merchant does meanwhile is driven by the test, not by a delay on the wall clock. Package
    /// access in Swift; over HTTP a member of `PUT /sandbox/faults` like the others.
    package var holdCharges: Double = 0

    /// No faults.
    public init() {}

    /// Decodes a JSON object whose members are all optional (missing ones keep their defaults).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = SandboxFaults()
        func nonNegative(_ key: CodingKeys, _ fallback: Double) throws -> Double {
            let value = try container.decodeIfPresent(Double.self, forKey: key) ?? fallback
            guard value >= 0, value.isFinite else {
                throw DecodingError.dataCorruptedError(
                    forKey: key,
                    in: container,
                    debugDescription: "\(key.stringValue) must be a non-negative number"
                )
            }
            return value
        }
        seed = try container.decodeIfPresent(UInt64.self, forKey: .seed) ?? defaults.seed
        processingSeconds = try nonNegative(.processingSeconds, defaults.processingSeconds)
        dropNotification = try nonNegative(.dropNotification, defaults.dropNotification)
        duplicateNotification = try nonNegative(.duplicateNotification, defaults.duplicateNotification)
        delayNotification = try nonNegative(.delayNotification, defaults.delayNotification)
        notificationDelaySeconds = try nonNegative(.notificationDelaySeconds, defaults.notificationDelaySeconds)
        timeout = try nonNegative(.timeout, defaults.timeout)
        timeoutSeconds = try nonNegative(.timeoutSeconds, defaults.timeoutSeconds)
        serverErrorBefore = try nonNegative(.serverErrorBefore, defaults.serverErrorBefore)
        serverErrorAfter = try nonNegative(.serverErrorAfter, defaults.serverErrorAfter)
        slowQuery = try nonNegative(.slowQuery, defaults.slowQuery)
        slowQuerySeconds = try nonNegative(.slowQuerySeconds, defaults.slowQuerySeconds)
        queryTimeoutCode = try nonNegative(.queryTimeoutCode, defaults.queryTimeoutCode)
        holdCharges = try nonNegative(.holdCharges, defaults.holdCharges)
    }

    /// Every fault at `probability`, with short delays (for fault runs).
    public static func all(_ probability: Double, seed: UInt64 = 1, timeoutSeconds: Double = 3) -> SandboxFaults {
        var faults = SandboxFaults()
        faults.seed = seed
        faults.dropNotification = probability
        faults.duplicateNotification = probability
        faults.delayNotification = probability
        faults.notificationDelaySeconds = 2
        faults.timeout = probability / 2
        faults.timeoutSeconds = timeoutSeconds
        faults.serverErrorBefore = probability / 2
        faults.serverErrorAfter = probability / 2
        faults.slowQuery = probability
        faults.slowQuerySeconds = 1
        faults.queryTimeoutCode = probability / 2
        return faults
    }
}

/// The faults' draws: seeded, so that a run comes again from its seed.
typealias FaultRandom = SeededRandom
