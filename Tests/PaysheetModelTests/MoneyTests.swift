import Testing

@testable import PaysheetModel

@Suite struct MoneyTests {
    let cny = Currency("CNY")!
    let jpy = Currency("JPY")!

    @Test func arithmeticIsCheckedAndNeverMixesCurrencies() throws {
        let a = Money(1_230, cny)
        #expect(try a.adding(Money(70, cny)) == Money(1_300, cny))
        #expect(try a.subtracting(Money(1_300, cny)) == Money(-70, cny))
        #expect(throws: MoneyError.currencyMismatch("CNY", "JPY")) { try a.adding(Money(1, jpy)) }
        #expect(throws: MoneyError.overflow) { try Money(.max, cny).adding(Money(1, cny)) }
        #expect(throws: MoneyError.overflow) { try Money(.min, cny).subtracting(Money(1, cny)) }
        #expect(throws: MoneyError.overflow) { try Money.sum([Money(.max, cny), Money(.max, cny)], in: cny) }
        #expect(try Money.sum([], in: cny) == .zero(cny))
        #expect(try Money(2, cny).exceeds(Money(1, cny)))
        #expect(!(try Money(1, cny).exceeds(Money(1, cny))))
    }

    @Test func itReadsCodesAndPrintsItsCurrency() {
        #expect(Money(1_230, currencyCode: "156") == Money(1_230, cny))
        #expect(Money(1_230, currencyCode: "XXQ") == nil)
        #expect(Money(1_230, cny).description == "12.30 CNY")
        #expect(Money(500, jpy).description == "500 JPY")
        #expect(!Money(0, cny).isPositive && Money(1, cny).isPositive)
    }
}
