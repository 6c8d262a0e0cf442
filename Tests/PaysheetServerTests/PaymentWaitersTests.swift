import Foundation
import PaysheetModel
import Testing
@testable import PaysheetServer

/// The hand-off between the change that commits a payment and the authorization waiting for it.
@Suite struct PaymentWaitersTests {
    static func payment(version: Int) -> PaymentRecord {
        var p = StoreTests.payment(StoreTests.order(), id: "pay_w")
        p.version = version
        return p
    }

    @Test func aSignalWakesTheWaiterAndHandsOverTheNewestCommittedVersion() async throws {
        let waiters = PaymentWaiters()
        await waiters.watch("pay_w")
        #expect(await waiters.committed("pay_w") == nil)
        let generation = await waiters.generation("pay_w")
        async let woken = waiters.wait("pay_w", after: generation, timeout: 100)
        // Gives the waiter a chance to park before the signal; the outcome does not depend on it
        // (a signal before it parks is seen by its generation), and the timeout is 100 s.
        try await Task.sleep(for: .milliseconds(50))
        let order = StoreTests.order("ord_w")
        await waiters.signal("pay_w", Self.payment(version: 3), order: order)
        #expect(await woken == true)
        // An older version signalled late (two changes racing to the actor) does not replace it.
        await waiters.signal("pay_w", Self.payment(version: 2), order: nil)
        let committed = try #require(await waiters.committed("pay_w"))
        #expect(committed.0.version == 3 && committed.1?.id == "ord_w")
        await waiters.unwatch("pay_w")
        #expect(await waiters.committed("pay_w") == nil)
    }

    @Test func aTimeoutIsNotASignalAndUnwatchedPaymentsAreNotKept() async throws {
        let waiters = PaymentWaiters()
        await waiters.signal("pay_w", Self.payment(version: 1), order: nil)  // nobody watches: nothing kept
        await waiters.watch("pay_w")
        #expect(await waiters.committed("pay_w") == nil)
        let generation = await waiters.generation("pay_w")
        #expect(await waiters.wait("pay_w", after: generation, timeout: 0.05) == false)
        // A signal between reading the generation and waiting is not missed.
        await waiters.signal("pay_w", Self.payment(version: 2), order: nil)
        #expect(await waiters.wait("pay_w", after: generation, timeout: 100) == true)
    }

    /// A request cancelled while it waits (its client went away, the server shuts down) stops
    /// waiting at once, before its timeout, as does one cancelled before it waits; neither leaves
    /// a wait behind, and the next wait is woken by a signal as before.
    @Test(.timeLimit(.minutes(1))) func aCancelledWaitEndsAtOnce() async throws {
        let waiters = PaymentWaiters()
        await waiters.watch("pay_w")
        let generation = await waiters.generation("pay_w")
        let waiting = Task { await waiters.wait("pay_w", after: generation, timeout: 1_000) }
        try await Self.untilWaiting(waiters)  // no clock
        waiting.cancel()
        #expect(try await Self.value(of: waiting) == false)
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await waiters.wait("pay_w", after: generation, timeout: 1_000)
        }
        #expect(try await Self.value(of: early) == false)
        #expect(await waiters.waits("pay_w") == 0)
        let next = Task { await waiters.wait("pay_w", after: generation, timeout: 1_000) }
        try await Self.untilWaiting(waiters)
        await waiters.signal("pay_w", Self.payment(version: 1), order: nil)
        #expect(try await Self.value(of: next) == true)
        #expect(await waiters.waits("pay_w") == 0)
    }

    /// Returns once a wait for `pay_w` is in progress; throws when the test is cancelled.
    static func untilWaiting(_ waiters: PaymentWaiters) async throws {
        while await waiters.waits("pay_w") == 0 {
            try Task.checkCancellation()
            await Task.yield()
        }
    }

    /// `task`'s value, or `CancellationError` when the test is cancelled first (its time limit):
    /// a wait that does not end fails the test instead of holding it for the wait's 1,000 s.
    static func value(of task: Task<Bool, Never>) async throws -> Bool {
        let answer = OneShot<Bool>()
        let relay = Task { answer.resume(.success(await task.value)) }
        defer { relay.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { answer.arm($0) }
        } onCancel: {
            answer.resume(.failure(CancellationError()))
        }
    }

    /// Watches are counted: an authorization that started watching before the acquirer was asked
    /// keeps its count and the committed version while another request for the same payment
    /// (a second authorize) ends its own watch.
    @Test func anotherRequestEndingItsWatchDoesNotResetTheCount() async throws {
        let waiters = PaymentWaiters()
        let first = await waiters.watch("pay_w")
        await waiters.watch("pay_w")
        await waiters.signal("pay_w", Self.payment(version: 4), order: nil)
        await waiters.unwatch("pay_w")  // the second request has its answer
        #expect(await waiters.generation("pay_w") == first + 1)
        #expect(await waiters.committed("pay_w")?.0.version == 4)
        await waiters.unwatch("pay_w")
        #expect(await waiters.committed("pay_w") == nil)
        #expect(await waiters.generation("pay_w") == 0)
    }

    /// Another server's change (a poke) makes waiters read the payment anew: the generation moves
    /// and what this process committed before is no longer handed out.
    @Test func anotherServersChangeMakesWaitersReadAnew() async throws {
        let waiters = PaymentWaiters()
        await waiters.watch("pay_w")
        await waiters.signal("pay_w", Self.payment(version: 5), order: nil)
        let generation = await waiters.generation("pay_w")
        #expect(await waiters.committed("pay_w")?.0.version == 5)
        await waiters.poke("pay_w")
        #expect(await waiters.generation("pay_w") == generation + 1)
        #expect(await waiters.committed("pay_w") == nil)
    }

    /// An announcement names the payment and the store that sent it: a server's listener skips
    /// its own (its waiters got the change in-process) and wakes waiters for another's.
    @Test func aServerSkipsItsOwnAnnouncements() async throws {
        let here = PaymentStore(database: try await SQLiteDatabase.open(path: ":memory:"))
        let other = PaymentStore(database: try await SQLiteDatabase.open(path: ":memory:"))
        #expect(here.announcer != other.announcer)
        #expect(SettlementListener.paymentsChanged(by: "pay_1 \(here.announcer)", notHere: here) == [])
        #expect(SettlementListener.paymentsChanged(by: "pay_1 \(other.announcer)", notHere: here) == ["pay_1"])
        #expect(SettlementListener.paymentsChanged(by: "pay_1", notHere: here) == ["pay_1"])
        // Several payments in one announcement (sent while an earlier one was on its way).
        #expect(
            SettlementListener.paymentsChanged(by: "pay_1 pay_2 pay_3 \(other.announcer)", notHere: here)
                == ["pay_1", "pay_2", "pay_3"]
        )
        #expect(SettlementListener.paymentsChanged(by: "pay_1 pay_2 \(here.announcer)", notHere: here) == [])
        // What a store sends is what a listener reads.
        let announcements = SettlementAnnouncements(database: other.database, announcer: other.announcer)
        #expect(
            SettlementListener.paymentsChanged(by: announcements.payload(["pay_4", "pay_5"]), notHere: here)
                == ["pay_4", "pay_5"]
        )
        #expect(here.announcements == nil, "SQLite is one server: nothing to announce")
    }
}
