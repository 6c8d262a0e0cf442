import Testing

@testable import PaysheetServer

/// The queue behind settlement announcements: one sender at a time, batches oldest first, and a
/// bound that drops rather than grows.
@Suite struct AnnouncementQueueTests {
    @Test func theFirstPaymentStartsASenderAndTheNextOnesJoinItsQueue() {
        var queue = AnnouncementQueue()
        let starts1 = queue.add("pay_1")
        #expect(starts1)
        let starts2 = queue.add("pay_2")
        #expect(!starts2)
        let starts3 = queue.add("pay_3")
        #expect(!starts3)
        let batch4 = queue.next()
        #expect(batch4 == ["pay_1", "pay_2", "pay_3"])
        // Settled while that batch was sent: the running sender takes it, no second sender starts.
        let starts5 = queue.add("pay_4")
        #expect(!starts5)
        let batch6 = queue.next()
        #expect(batch6 == ["pay_4"])
        // Empty: the sender stops, and the next payment starts another.
        let batch7 = queue.next()
        #expect(batch7 == nil)
        #expect(!queue.sending)
        let starts8 = queue.add("pay_5")
        #expect(starts8)
        let batch9 = queue.next()
        #expect(batch9 == ["pay_5"])
        let batch10 = queue.next()
        #expect(batch10 == nil)
    }

    @Test func aBatchHoldsAtMostItsLimitOldestFirst() {
        var queue = AnnouncementQueue()
        let ids = (0..<(AnnouncementQueue.batchLimit * 2 + 3)).map { "pay_\($0)" }
        for id in ids { _ = queue.add(id) }
        let batch11 = queue.next()
        #expect(batch11 == Array(ids[0..<AnnouncementQueue.batchLimit]))
        let batch12 = queue.next()
        #expect(batch12 == Array(ids[AnnouncementQueue.batchLimit..<(AnnouncementQueue.batchLimit * 2)]))
        let batch13 = queue.next()
        #expect(batch13 == Array(ids[(AnnouncementQueue.batchLimit * 2)...]))
        let batch14 = queue.next()
        #expect(batch14 == nil)
    }

    @Test func aFullQueueDropsWhatWouldOverflowIt() {
        var queue = AnnouncementQueue()
        for index in 0..<AnnouncementQueue.bound { _ = queue.add("pay_\(index)") }
        #expect(queue.dropped == 0)
        let starts15 = queue.add("pay_over")
        #expect(!starts15)
        #expect(queue.dropped == 1)
        #expect(queue.waiting.count == AnnouncementQueue.bound)
        #expect(queue.waiting.last == "pay_\(AnnouncementQueue.bound - 1)")
    }

    @Test func anAnnouncementFitsPostgreSQLsPayload() {
        // A payment id is 20 characters, the announcer a UUID (36): a full batch stays well under
        // PostgreSQL's 8,000 bytes.
        let longest = AnnouncementQueue.batchLimit * (20 + 1) + 36
        #expect(longest < 8_000)
    }
}
