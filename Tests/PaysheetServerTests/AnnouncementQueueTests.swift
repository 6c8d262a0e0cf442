import Foundation
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
}

/// ``SettlementAnnouncements`` over a real database: SQLite, its statement an insert of what
/// PostgreSQL would be told (the queue, the sender and the payload are the same code).
@Suite(.timeLimit(.minutes(1))) struct SettlementAnnouncementsTests {
    static let record = "INSERT INTO announced (channel, payload) VALUES ($1, $2)"

    static func database() async throws -> SQLiteDatabase { try await SQLiteDatabase.open(path: ":memory:") }

    @Test func everySettledPaymentIsAnnouncedOnceNamingItsServer() async throws {
        let db = try await Self.database()
        _ = try await db.write("CREATE TABLE announced (channel TEXT NOT NULL, payload TEXT NOT NULL)", [])
        let announcements = SettlementAnnouncements(database: db, announcer: "server-a", statement: Self.record)
        let ids = (0..<500).map { "pay_\($0)" }
        await withTaskGroup(of: Void.self) { group in
            for id in ids { group.addTask { announcements.announce(id) } }
        }
        await announcements.sent()
        let rows = try await db.read("SELECT channel, payload FROM announced", [])
        var named: [String] = []
        for row in rows {
            #expect(try row.text("channel") == PaymentStore.settledChannel)
            let words = try #require(try row.text("payload")).split(separator: " ").map(String.init)
            #expect(words.last == "server-a")
            named += words.dropLast()
        }
        #expect(named.sorted() == ids.sorted(), "each payment exactly once")
    }

    @Test func anAnnouncementThatCannotBeSentIsGivenUpAndTheNextOneIsSent() async throws {
        let db = try await Self.database()
        // No table yet: both tries fail, and the sender stops rather than retrying for ever.
        let announcements = SettlementAnnouncements(database: db, announcer: "server-a", statement: Self.record)
        announcements.announce("pay_lost")
        await announcements.sent()
        _ = try await db.write("CREATE TABLE announced (channel TEXT NOT NULL, payload TEXT NOT NULL)", [])
        announcements.announce("pay_next")
        await announcements.sent()
        let rows = try await db.read("SELECT payload FROM announced", [])
        #expect(try rows.map { try $0.text("payload") } == ["pay_next server-a"])
    }

    @Test func aFullBatchOfRealIdsFitsPostgreSQLsPayload() async throws {
        let announcements = SettlementAnnouncements(
            database: try await SQLiteDatabase.open(path: ":memory:"),
            announcer: UUID().uuidString
        )
        // The longest ids the lifecycle makes: a reversal's prefix on the id `IDs.make` draws.
        let batch = (0..<AnnouncementQueue.batchLimit).map { _ in "void_" + IDs.make("") }
        #expect(announcements.payload(batch).utf8.count < 8_000)
    }
}
