import Foundation
import PaysheetModel
import Testing

@testable import PaysheetPayments

/// Orders and payments keep the stored JSON shape they always had (amounts in minor units beside
/// the currency's code), while in Swift their amounts are `Money`.
@Suite struct RecordShapeTests {
    @Test func aStoredOrderReadsBackWithItsCurrencyAndWritesTheSameShape() throws {
        let stored = #"""
            {"id":"ord_1","status":"paid","currencyCode":"CNY","countryCode":"CN","lineItems":[],"shippingMethods":[],
            "amount":2599,"applicationData":"","paid":2599,"refunded":100,"createdAt":0,"version":3}
            """#
        let order = try JSONDecoder().decode(OrderRecord.self, from: Data(stored.utf8))
        #expect(order.amount == Money(2599, Currency("CNY")!) && order.paid.minorUnits == 2599)
        #expect(order.refunded == Money(100, Currency("CNY")!) && order.currencyCode == "CNY" && order.version == 3)
        let written = try JSONSerialization.jsonObject(with: JSONEncoder().encode(order)) as? [String: Any]
        #expect(written?["amount"] as? Int == 2599 && written?["currencyCode"] as? String == "CNY")
        #expect(written?["refunded"] as? Int == 100)
        let unknown = stored.replacingOccurrences(of: "\"CNY\"", with: "\"QQQ\"")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(OrderRecord.self, from: Data(unknown.utf8)) }
    }

    @Test func aStoredPaymentReadsBackAsMoney() throws {
        let stored = #"""
            {"id":"pay_1","orderId":"ord_1","kind":"charge","identity":{"orderId":"A1","txnTime":"20270101100000"},
            "amount":1000,"currencyNumeric":"156","lifecycle":{"state":"succeeded","expectedAmount":1000,
            "submittedAt":0,"queries":0},"createdAt":0,"version":2}
            """#
        let payment = try JSONDecoder().decode(PaymentRecord.self, from: Data(stored.utf8))
        #expect(payment.amount == Money(1000, Currency("CNY")!) && payment.currencyNumeric == "156")
        #expect(payment.lifecycle.expectedCurrency == nil)  // written before it was kept
        let written = try JSONSerialization.jsonObject(with: JSONEncoder().encode(payment)) as? [String: Any]
        #expect(written?["amount"] as? Int == 1000 && written?["currencyNumeric"] as? String == "156")
    }
}
