import Foundation

/// The work that follows a stored change and must not hold up the request that made it — a
/// canceled order's unwind once a notification settled its charge — queued here and done by a
/// service that owns it (the query poller runs ``run(_:)`` beside its rounds), so that no task is
/// left unowned. Bounded: when full, an unwind is dropped and the poller's next round
/// (``PaymentService/runCancellations(limit:)``) does it, as after a restart.
final class FollowUps: Sendable {
    private let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init(capacity: Int = 10_000) {
        (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(capacity))
    }

    /// Asks for the unwind of the canceled order `orderId`.
    func unwind(_ orderId: String) { continuation.yield(orderId) }

    /// Does the queued work with `unwind`, until cancelled.
    func run(_ unwind: @escaping @Sendable (String) async -> Void) async {
        await withDiscardingTaskGroup { group in
            for await orderId in stream {
                group.addTask { await unwind(orderId) }
            }
        }
    }
}
