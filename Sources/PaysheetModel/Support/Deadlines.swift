import Foundation

/// Actions run when their deadline passes unless cancelled first, all served by one timer: the
/// deadlines of a process's statements and waits, nearly all cancelled long before they pass.
///
/// Why not a `Task.sleep` for each (what ``FirstOf`` and the server's payment waits did): on
/// Linux every sleep is a `dispatch_after` of its own, which cannot be taken back (a cancelled
/// sleep's timer still fires at its time), and each wakes Dispatch's timer thread. Under load that
/// was a timer for each PostgreSQL statement (fired 15 s later) and one for each payment wait:
/// with PostgresNIO's own timers, 12 % of the server's CPU on PostgreSQL in a profile
/// (docs/benchmarks.md). Nor NIO's `scheduleTask`, which wakes its event loop for each task
/// scheduled from outside it. Here adding a deadline takes a lock and a heap insertion,
/// cancelling it a dictionary removal, and the timer (a task sleeping until the earliest
/// deadline) is set anew only when a deadline falls before the one it is set for
/// (``DeadlineQueue``).
///
/// An action runs on the timer's task, outside the lock, and must not block: resume a
/// continuation, or start a task. One that races its cancellation may still run once.
package final class Deadlines: @unchecked Sendable {
    /// The clock: what time it is, and a sleep until an instant (throwing when cancelled).
    package typealias Now = @Sendable () -> ContinuousClock.Instant
    package typealias Sleep = @Sendable (ContinuousClock.Instant) async throws -> Void

    // `@unchecked`: its state is only touched under `lock` (as `OneShot`'s).
    private let lock = NSLock()
    private let now: Now
    private let sleep: Sleep
    private var queue = DeadlineQueue<ContinuousClock.Instant>()
    private var actions: [UInt64: @Sendable () -> Void] = [:]
    private var nextID: UInt64 = 0
    /// The timer: the task sleeping until the queue's armed instant, and its generation (a timer
    /// replaced by an earlier one finds its generation gone and does nothing).
    private var timer: Task<Void, Never>?
    private var generation: UInt64 = 0

    /// The process's deadlines.
    package static let shared = Deadlines()

    /// Deadlines on `ContinuousClock`, or on the clock a test gives.
    package init(
        now: @escaping Now = { ContinuousClock.now },
        sleep: @escaping Sleep = { try await Task.sleep(until: $0, clock: .continuous) }
    ) {
        self.now = now
        self.sleep = sleep
    }

    /// A deadline added by ``schedule(after:_:)``: cancel it when what it guards is done.
    package struct Entry: Sendable {
        let id: UInt64
        let owner: Deadlines

        /// Takes the deadline back: its action does not run, unless the timer already took it
        /// (it may then run after this returns).
        package func cancel() { owner.cancel(id) }
    }

    /// Runs `action` once `seconds` have passed, unless the returned entry is cancelled first:
    /// at once for 0 or less (and for NaN), and after 10⁹ s (about 32 years) for anything longer.
    package func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> Entry {
        let clamped = seconds.isNaN ? 0 : min(max(seconds, 0), 1e9)
        let at = now().advanced(by: .nanoseconds(Int64(clamped * 1e9)))
        return lock.withLock {
            nextID += 1
            actions[nextID] = action
            if let arm = queue.add(nextID, at: at) { setTimerLocked(arm) }
            return Entry(id: nextID, owner: self)
        }
    }

    /// How many deadlines are neither cancelled nor run (past ones the timer has not reached yet
    /// included).
    package var pending: Int { lock.withLock { queue.count } }

    private func cancel(_ id: UInt64) {
        lock.withLock {
            if queue.remove(id) { actions.removeValue(forKey: id) }
        }
    }

    /// Replaces the timer with one for `instant` (under the lock). Detached: the timer carries
    /// neither the priority nor the task-locals (a request's trace context) of whichever caller
    /// happened to set it.
    private func setTimerLocked(_ instant: ContinuousClock.Instant) {
        timer?.cancel()
        generation &+= 1
        let mine = generation
        let sleep = sleep
        timer = Task.detached { [self] in
            // Cancelled when an earlier deadline replaced it: that timer serves this one's too.
            do { try await sleep(instant) } catch { return }
            fire(mine)
        }
    }

    /// The timer of `mine` went off: runs the actions due and sets it for the next deadline.
    private func fire(_ mine: UInt64) {
        let due: [@Sendable () -> Void] = lock.withLock {
            guard mine == generation else { return [] }
            timer = nil
            let (ids, next) = queue.expire(at: now())
            if let next { setTimerLocked(next) }
            return ids.compactMap { actions.removeValue(forKey: $0) }
        }
        for action in due { action() }
    }
}
