import Foundation
import PaysheetModel
import Testing
import UnionPay

@testable import PaysheetServer

/// Finding 13 of the audit: the shopper's view told the acquirer's identifiers by derivation. The
/// acquirer order id was the payment id without its `_` (the shopper's view shows payment ids), and
/// `txnTime` was the payment's `createdAt` in Beijing time (the shopper's view shows it, and the
/// payment id's time prefix to the millisecond). With both, anyone holding an order's client
/// secret could name the charge to the acquirer (`queryTrans.do`, a refund's `origQryId` lookup,
/// a notification's identity).
@Suite struct ShopperViewAttackTests {
    /// Every string in `value`, members' names included.
    static func strings(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let text): return [text]
        case .array(let items): return items.flatMap(strings)
        case .object(let members): return members.flatMap { [$0.key] + strings($0.value) }
        default: return []
        }
    }

    /// Every acquirer order id the shopper could derive from `text`: its letters and digits, as
    /// UnionPay takes them (8–40), whole and cut to 32 and 40.
    static func orderIds(from text: String) -> Set<String> {
        let alphanumeric = String(text.filter { $0.isASCII && ($0.isLetter || $0.isNumber) })
        return [text, alphanumeric, String(alphanumeric.prefix(32)), String(alphanumeric.prefix(40))]
    }

    /// Every instant `text` tells to the second or better: an ISO 8601 time, or an id's time
    /// prefix (`pay_` and 12 hexadecimal digits of milliseconds).
    static func instants(in text: String) -> [Date] {
        var found: [Date] = []
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { found.append(date) }
        formatter.formatOptions.insert(.withFractionalSeconds)
        if let date = formatter.date(from: text) { found.append(date) }
        if let underscore = text.firstIndex(of: "_") {
            let digits = text[text.index(after: underscore)...].prefix(12)
            if digits.count == 12, let milliseconds = UInt64(digits, radix: 16) {
                found.append(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            }
        }
        return found
    }

    /// Every `txnTime` the shopper could derive from `strings`: each instant in Beijing time.
    static func txnTimes(from strings: [String]) -> Set<String> {
        Set(strings.flatMap(instants).map(TransactionTime.format))
    }

    @Test func theShoppersViewTellsNeitherTheAcquirerOrderIdNorTheTransactionTime() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder()
        let id = try #require(order["id"]?.stringValue)
        let secret = try #require(server.secret(id))
        // The shopper takes ten seconds on the sheet (the order's own time is not the charge's).
        server.advanceClock(by: 10)
        #expect(try await server.pay(order, factory: factory).paid)
        // A partial refund: a second acquirer transaction of the order.
        let (refunded, _) = try await server.send("POST", "/v1/orders/\(id)/refunds", #"{"amount":"1.00"}"#)
        #expect(refunded == 201 || refunded == 200)
        // What the shopper sees: the order's view with its client secret, and what created it.
        let (status, shopper) = try await server.send("GET", "/v1/orders/\(id)", nil, auth: secret)
        #expect(status == 200)
        let seen = Self.strings(shopper) + Self.strings(order)
        let seenText = shopper.compactText + order.compactText
        // What the merchant and the acquirer see.
        let (_, merchant) = try await server.send("GET", "/v1/orders/\(id)", nil)
        let payments = try #require(merchant["payments"]?.arrayValue)
        #expect(payments.count == 2)
        let identities = payments.compactMap { payment -> (String, String)? in
            guard let orderId = payment["acquirerOrderId"]?.stringValue,
                let txnTime = payment["acquirerTxnTime"]?.stringValue
            else { return nil }
            return (orderId, txnTime)
        }
        #expect(identities.count == 2)
        let ledger = try await server.ledger()
        for (orderId, txnTime) in identities {
            // UnionPay's rules: 8–40 letters and digits; yyyyMMddHHmmss.
            #expect(
                (8...40).contains(orderId.count) && orderId.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            )
            #expect(txnTime.count == 14 && txnTime.allSatisfy(\.isNumber))
            #expect(
                ledger.contains { $0["orderId"]?.stringValue == orderId && $0["txnTime"]?.stringValue == txnTime },
                "the gateway's ledger has \(orderId) \(txnTime)"
            )
            // From the shopper's view only.
            #expect(!seenText.contains(orderId), "the shopper's view shows \(orderId)")
            #expect(
                !seen.contains { Self.orderIds(from: $0).contains(orderId) },
                "the acquirer order id \(orderId) is derived from what the shopper sees"
            )
            #expect(
                !Self.txnTimes(from: seen).contains(txnTime),
                "txnTime \(txnTime) is a time the shopper sees (to the second)"
            )
        }
        #expect(Set(identities.map(\.0)).count == 2, "each transaction has its own acquirer order id")
    }
}
