/// The settled payments a server has still to announce, and whether a sender is running: the
/// pure part of ``SettlementAnnouncements``.
///
/// One sender at a time, started by the first payment queued while none runs; it takes the queue
/// in batches, oldest first, and stops when it finds the queue empty. Payments settled while a
/// batch is being sent go in the next one, so under load one announcement names many payments.
/// An announcement is a hint (a server that misses one reads the payment on its own schedule), so
/// a queue at its bound drops what would overflow it rather than grow while PostgreSQL is away.
struct AnnouncementQueue: Sendable {
    /// Payments named by one announcement at most: PostgreSQL's payload is under 8,000 bytes, and
    /// a payment id about 25 characters (`AnnouncementQueueTests`).
    static let batchLimit = 200
    /// Payments waiting at most.
    static let bound = 10_000

    private(set) var waiting: [String] = []
    private(set) var sending = false
    /// Payments not queued because the queue was full.
    private(set) var dropped = 0

    /// Queues `paymentId`; `true` when no sender runs and one must be started.
    mutating func add(_ paymentId: String) -> Bool {
        if waiting.count < Self.bound { waiting.append(paymentId) } else { dropped += 1 }
        guard !sending else { return false }
        sending = true
        return true
    }

    /// The sender's next batch, or `nil` when the queue is empty: the sender then stops, and the
    /// next ``add(_:)`` starts another.
    mutating func next() -> [String]? {
        guard !waiting.isEmpty else {
            sending = false
            return nil
        }
        guard waiting.count > Self.batchLimit else {
            defer { waiting = [] }
            return waiting
        }
        let batch = Array(waiting.prefix(Self.batchLimit))
        waiting.removeFirst(Self.batchLimit)
        return batch
    }
}
