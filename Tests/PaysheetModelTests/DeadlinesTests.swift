import Foundation
import Testing

@testable import PaysheetModel

/// One timer for many deadlines: the queue that says when to set it (time an input), the driver
/// on the real clock, and `FirstOf` over it.
@Suite(.timeLimit(.minutes(1))) struct DeadlinesTests {
    @Test func theTimerIsSetAnewOnlyForAnEarlierDeadline() {
        var queue = DeadlineQueue<Int>()
        let first = queue.add(1, at: 100)  // nothing set yet
        let later = queue.add(2, at: 150)  // later than the timer: it serves this one too
        let same = queue.add(3, at: 100)  // the same instant
        let earlier = queue.add(4, at: 40)  // earlier: set it anew
        #expect(first == 100 && later == nil && same == nil && earlier == 40)
        #expect(queue.armed == 40 && queue.count == 4)
    }

    @Test func expiringAnswersTheDueInOrderAndTheNextLiveDeadline() {
        var queue = DeadlineQueue<Int>()
        for (id, at) in [(1, 30), (2, 10), (3, 20), (4, 50), (5, 40)] { _ = queue.add(UInt64(id), at: at) }
        let removed = (queue.remove(3), queue.remove(3), queue.remove(5))
        #expect(removed == (true, false, true))  // each once only
        let early = queue.expire(at: 5)
        #expect(early.due.isEmpty && early.next == 10)  // a timer that went off early finds nothing due
        let (due, next) = queue.expire(at: 30)
        #expect(due == [2, 1])  // earliest first; 3 was removed
        #expect(next == 50)  // 40 (removed) is skipped
        let again = queue.remove(1)
        #expect(!again)  // already due
        let last = queue.expire(at: 60)
        #expect(last.due == [4] && last.next == nil)
        #expect(queue.armed == nil && queue.count == 0)
        let unset = queue.add(6, at: 70)
        #expect(unset == 70)  // the timer unset: set for the next one added
    }

    /// Removed deadlines are dropped when they outnumber the live ones: the order survives.
    @Test func manyRemovedDeadlinesKeepTheOrderOfTheLiveOnes() {
        var queue = DeadlineQueue<Int>()
        var kept: [UInt64] = []
        for id in UInt64(1)...1_000 {
            _ = queue.add(id, at: Int((id * 7_919) % 1_009))
            if id % 10 == 0 { kept.append(id) } else { queue.remove(id) }
        }
        #expect(queue.count == 100)
        let (due, next) = queue.expire(at: 2_000)
        #expect(next == nil)
        #expect(due.count == 100 && Set(due) == Set(kept))
        let instants = due.map { Int(($0 * 7_919) % 1_009) }
        #expect(instants == instants.sorted())
    }

    /// On the real clock: an action runs, not before its deadline.
    @Test func anActionRunsOnceItsDeadlinePasses() async throws {
        let deadlines = Deadlines()
        let started = ContinuousClock.now
        let ran = OneShot<Void>()
        _ = deadlines.schedule(after: 0.02) { ran.resume(.success(())) }
        try await value(of: ran)
        #expect(ContinuousClock.now - started >= .milliseconds(20))
        #expect(deadlines.pending == 0)
    }

    /// On a clock the test moves: nothing runs before its time, whatever the machine's load.
    @Test func nothingRunsBeforeItsTime() async throws {
        let time = ManualTime()
        let deadlines = time.deadlines()
        let ran = OneShot<Duration>()
        _ = deadlines.schedule(after: 0.02) { ran.resume(.success(time.elapsed)) }
        time.advance(to: .milliseconds(10))
        // The timer asleep until 20 ms with the clock at 10 ms: nothing ran, nothing can yet.
        while time.sleeping != [.milliseconds(20)] {
            try Task.checkCancellation()
            await Task.yield()
        }
        time.advance(to: .milliseconds(25))
        let at = try await value(of: ran)
        #expect(at == .milliseconds(25))  // run at the first reading of the clock past its deadline
        #expect(deadlines.pending == 0)
    }

    /// A cancelled deadline's action never runs: had it run, it would have run before the later
    /// one that the test waits for (due actions run earliest first).
    @Test func aCancelledDeadlineDoesNotRun() async throws {
        let time = ManualTime()
        let deadlines = time.deadlines()
        let ran = OneShot<String>()
        let first = deadlines.schedule(after: 0.01) { ran.resume(.success("the cancelled one")) }
        first.cancel()
        _ = deadlines.schedule(after: 0.03) { ran.resume(.success("the later one")) }
        time.advance(to: .milliseconds(40))
        let which = try await value(of: ran)
        #expect(which == "the later one")
        #expect(deadlines.pending == 0)
    }

    /// A deadline earlier than the one the timer is set for does not wait for that one.
    @Test func anEarlierDeadlineIsNotHeldUpByALaterOne() async throws {
        let time = ManualTime()
        let deadlines = time.deadlines()
        let late = deadlines.schedule(after: 1_000) { Issue.record("a deadline 1,000 s away ran") }
        let ran = OneShot<Void>()
        _ = deadlines.schedule(after: 0.01) { ran.resume(.success(())) }
        time.advance(to: .milliseconds(20))
        try await value(of: ran)
        #expect(deadlines.pending == 1)
        late.cancel()
        #expect(deadlines.pending == 0)
    }

    @Test func firstOfAnswersTheOperationOrNothingAtItsDeadline() async throws {
        #expect(try await FirstOf.value(within: 100) { 7 } == 7)
        await #expect(throws: CancellationError.self) {
            _ = try await FirstOf.value(within: 100) { () async throws -> Int in throw CancellationError() }
        }
        // An operation that never answers: nil at the deadline, without waiting for it.
        let never = try await FirstOf.value(within: 0.02) { () async throws -> Int in
            try await Task.sleep(for: .seconds(1_000))
            return 1
        }
        #expect(never == nil)
    }
}

/// `shot`'s value, or `CancellationError` when the test is cancelled first (its time limit): a
/// deadline that never runs fails the test instead of hanging it.
func value<T: Sendable>(of shot: OneShot<T>) async throws -> T {
    try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { shot.arm($0) }
    } onCancel: {
        shot.resume(.failure(CancellationError()))
    }
}

/// A clock the test moves: a sleep ends when the clock is moved past its instant, or when its
/// task is cancelled.
final class ManualTime: @unchecked Sendable {
    // `@unchecked`: its state is only touched under `lock`.
    private let lock = NSLock()
    private let start = ContinuousClock.now
    private var offset: Duration = .zero
    private var sleepers: [Int: (at: ContinuousClock.Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
    private var cancelledEarly: Set<Int> = []
    private var nextID = 0

    var now: ContinuousClock.Instant { lock.withLock { start + offset } }
    /// When the sleeps in progress end, as times since the start, earliest first.
    var sleeping: [Duration] { lock.withLock { sleepers.values.map { $0.at - start }.sorted() } }
    var elapsed: Duration { lock.withLock { offset } }

    /// Deadlines on this clock.
    func deadlines() -> Deadlines {
        Deadlines(now: { self.now }, sleep: { try await self.sleep(until: $0) })
    }

    func sleep(until instant: ContinuousClock.Instant) async throws {
        let id = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let answer: Result<Void, any Error>? = lock.withLock {
                    if cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if start + offset >= instant { return .success(()) }
                    sleepers[id] = (instant, c)
                    return nil
                }
                if let answer { c.resume(with: answer) }
            }
        } onCancel: {
            let c: CheckedContinuation<Void, any Error>? = lock.withLock {
                guard let sleeper = sleepers.removeValue(forKey: id) else {
                    cancelledEarly.insert(id)
                    return nil
                }
                return sleeper.continuation
            }
            c?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock to `elapsed` after its start and ends the sleeps due.
    func advance(to elapsed: Duration) {
        let due: [CheckedContinuation<Void, any Error>] = lock.withLock {
            offset = elapsed
            let now = start + offset
            let ids = sleepers.filter { $0.value.at <= now }.map(\.key)
            return ids.compactMap { sleepers.removeValue(forKey: $0)?.continuation }
        }
        for c in due { c.resume() }
    }
}
