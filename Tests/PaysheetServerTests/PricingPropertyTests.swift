import Foundation
import PaysheetModel
import Testing
@testable import PaysheetServer

/// Pricing over generated orders and settings: coupons, tax by region, surcharges by card type,
/// shipping and discount lines, with amounts from the whole range and past it.
@Suite struct PricingPropertyTests {
    static let amounts = [
        "0.00", "0.01", "1.00", "9.99", "128.00", "-2.00", "-1800.00", "99999999.99", "50000000.00",
        "92233720368547758.07",
        "-92233720368547758.08", "1e3", "10.00abc", "1.001", "", "-", "00.10", "18446744073709551616",
    ]

    @Test func totalsAreTheSumOfTheLinesOrTheOrderIsRefused() throws {
        var random = SeededRandom(seed: 99)
        var priced = 0
        for _ in 0..<3_000 {
            var settings = MerchantSettings()
            settings.coupons = [
                "C": try Rate(percent: MinorUnits.format(Int.random(in: 0...1_000_000, using: &random), digits: 4))
            ]
            settings.taxRates = [
                "US-CA": try Rate(percent: MinorUnits.format(Int.random(in: 0...300_000, using: &random), digits: 4))
            ]
            settings.surcharges = [
                "credit": try Rate(percent: MinorUnits.format(Int.random(in: 0...50_000, using: &random), digits: 4))
            ]
            let lines = (0..<Int.random(in: 1...5, using: &random)).map { i in
                ApplePayLineItem(
                    label: "L\(i)",
                    amount: Self.amounts[Int.random(in: 0..<Self.amounts.count, using: &random)]
                )
            }
            let shipping = Self.amounts[Int.random(in: 0..<Self.amounts.count, using: &random)]
            var order = OrderRecord(
                id: "ord_x",
                status: .created,
                currency: Currency("CNY")!,
                countryCode: "CN",
                lineItems: lines,
                shippingMethods: [ApplePayShippingMethod(label: "S", detail: "", amount: shipping, identifier: "s")],
                shippingMethod: "s",
                amount: 0,
                applicationData: "",
                createdAt: Date()
            )
            if Bool.random(using: &random) { order.couponCode = "C" }
            if Bool.random(using: &random) { order.taxRegion = "US-CA" }
            if Bool.random(using: &random) { order.cardType = "credit" }
            let pricing: Pricing
            do { pricing = try Pricing.price(order, settings: settings) } catch let error as ServiceError {
                #expect(error.kind == .invalid)
                continue
            }
            priced += 1
            let sum = try MinorUnits.sum(
                pricing.lineItems.map { try MinorUnits.parse($0.amount ?? "", digits: 2, allowNegative: true) }
            )
            #expect(sum == pricing.amount)
            #expect(pricing.total.amount == MinorUnits.format(pricing.amount, digits: 2))
            #expect(pricing.amount <= 10_000_000_000)
            // The only negative lines: the ones given, and the coupon.
            let negatives = pricing.lineItems.filter { $0.amount?.hasPrefix("-") == true }.map(\.label)
            #expect(
                negatives.allSatisfy { label in
                    label == "Coupon C" || lines.contains { $0.label == label && $0.amount?.hasPrefix("-") == true }
                }
            )
            // Tax and surcharge are never negative.
            #expect(
                pricing.lineItems.filter { $0.label == "Tax" || $0.label?.hasSuffix("surcharge") == true }.allSatisfy {
                    $0.amount?.hasPrefix("-") == false
                }
            )
        }
        #expect(priced > 200)  // most generated orders hold an amount that must be refused
    }

    @Test func generatedRefundsNeverExceedWhatWasPaid() async throws {
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            let id = try #require(order["id"]?.stringValue)
            #expect(try await server.pay(order, factory: factory).paid)
            var random = SeededRandom(seed: 5)
            let pool = [
                "0.01", "10.00", "33.33", "60.00", "100.00", "100.01", "-5.00", "0", "1e1", "92233720368547758.07",
                "5.5x",
                "7.777",
            ]
            for _ in 0..<25 {
                let amount = pool[Int.random(in: 0..<pool.count, using: &random)]
                let (status, _) = try await server.send("POST", "/v1/orders/\(id)/refunds", #"{"amount":"\#(amount)"}"#)
                #expect([201, 400, 409, 422].contains(status), "refund \(amount): \(status)")
            }
            let final = try await server.order(id)
            let refunded = try MinorUnits.parse(final["refunded"]?.stringValue ?? "", digits: 2)
            #expect(refunded <= 10_000)
            let ledger = try await server.ledger().filter { $0["txnType"] == "04" && $0["respCode"] == "00" }
            let atAcquirer = try ledger.reduce(0) {
                $0 + (try MinorUnits.parse($1["amount"]?.compactText ?? "", digits: 0))
            }
            #expect(atAcquirer == refunded)
        }
    }
}
