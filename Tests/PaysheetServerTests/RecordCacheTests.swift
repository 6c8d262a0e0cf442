import Foundation
import Testing
@testable import PaysheetServer

/// Stored bodies decoded once: what the store wrote or read is served again without decoding.
@Suite struct RecordCacheTests {
    @Test func aWrittenBodyIsReadBackWithoutDecodingAndEqualsADecode() throws {
        let order = StoreTests.order()
        let text = try PaymentStore.json(order)
        #expect(PaymentStore.records.value(OrderRecord.self, for: text) == order)
        #expect(try PaymentStore.decode(OrderRecord.self, text) == order)
        // What a fresh decoder makes of the same text is the same value.
        #expect(try JSONDecoder().decode(OrderRecord.self, from: Data(text.utf8)) == order)
    }

    @Test func hitsMissesTypesAndCapacity() throws {
        let cache = RecordCache(capacity: 3)
        #expect(cache.value(Int.self, for: "1") == nil)
        cache.remember(1, for: "1")
        cache.remember("one", for: "1")  // the same text as another type is another entry
        #expect(cache.value(Int.self, for: "1") == 1)
        #expect(cache.value(String.self, for: "1") == "one")
        #expect(cache.value(Double.self, for: "1") == nil)
        cache.remember(2, for: "2")
        #expect(cache.count == 3)
        cache.remember(3, for: "3")  // full: starts over
        #expect(cache.count == 1 && cache.value(Int.self, for: "3") == 3 && cache.value(Int.self, for: "1") == nil)
    }

    @Test func aBodyNotSeenBeforeIsDecodedAndABadOneStillFails() throws {
        let payment = StoreTests.payment(StoreTests.order())
        let text = String(decoding: try JSONEncoder().encode(payment), as: UTF8.self) + " "  // not through the store
        #expect(PaymentStore.records.value(PaymentRecord.self, for: text) == nil)
        #expect(try PaymentStore.decode(PaymentRecord.self, text) == payment)
        #expect(PaymentStore.records.value(PaymentRecord.self, for: text) == payment)
        #expect(throws: (any Error).self) { try PaymentStore.decode(PaymentRecord.self, #"{"id": 1}"#) }
        #expect(throws: StorageError.self) { try PaymentStore.decode(PaymentRecord.self, nil) }
    }

    @Test func theCacheIsBoundedInBytes() {
        let cache = RecordCache(capacity: 1_000, byteCapacity: 10_000)
        for i in 0..<100 {
            let text = String(repeating: "x", count: 900) + String(i)
            cache.remember(i, for: text)
            #expect(cache.byteCount <= 10_000)
        }
        #expect(cache.count <= 11)
        // A body larger than a quarter of the budget is not kept at all.
        cache.remember(1, for: String(repeating: "y", count: 3_000))
        #expect(cache.value(Int.self, for: String(repeating: "y", count: 3_000)) == nil)
    }
}
