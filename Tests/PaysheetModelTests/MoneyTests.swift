import Foundation
import PaysheetModel
import Testing

/// The one amount grammar, checked sums and exact rates, by example and over generated inputs.
@Suite struct MoneyTests {
    @Test(arguments: [
        ("12.30", 2, 1230), ("0", 2, 0), ("0.5", 2, 50), ("007", 2, 700), ("1", 0, 1), ("123.456", 3, 123_456),
        ("92233720368547758.07", 2, Int.max),
    ])
    func amountsInTheGrammarAreRead(text: String, digits: Int, minor: Int) throws {
        #expect(try MinorUnits.parse(text, digits: digits) == minor)
    }

    @Test(arguments: [
        ("1e3", AmountError.Code.syntax), ("10.00abc", .syntax), (" 1.00", .syntax), ("1.00 ", .syntax),
        ("+1.00", .syntax),
        ("1,000.00", .syntax), (".50", .syntax), ("5.", .syntax), ("", .syntax), ("-", .negative), ("0x10", .syntax),
        ("１２", .syntax), ("NaN", .syntax), ("Infinity", .syntax), ("1.005", .precision), ("-1.00", .negative),
        ("99999999999999999999", .overflow), ("92233720368547758.08", .overflow), ("184467440737095506.16", .overflow),
        (String(repeating: "1", count: 33), .tooLong),
    ])
    func everythingElseIsRefusedWithItsReason(text: String, code: AmountError.Code) {
        let error = #expect(throws: AmountError.self) { _ = try MinorUnits.parse(text, digits: 2) }
        #expect(error?.code == code, "\(text): \(error?.message ?? "")")
    }

    @Test func aMinusSignOnlyWhereADiscountMayStand() throws {
        #expect(try MinorUnits.parse("-1800.00", digits: 2, allowNegative: true) == -180_000)
        #expect(try MinorUnits.parse("-0.01", digits: 2, allowNegative: true) == -1)
        #expect(throws: AmountError.self) { _ = try MinorUnits.parse("--1", digits: 2, allowNegative: true) }
        #expect(throws: AmountError.self) {
            _ = try MinorUnits.parse("-92233720368547758.08", digits: 2, allowNegative: true)
        }
    }

    @Test func formatAndParseAreInverse() throws {
        var random = SeededRandom(seed: 20_261_123)
        for _ in 0..<5_000 {
            let digits = Int.random(in: 0...4, using: &random)
            let minor = Int.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random)
            let text = MinorUnits.format(minor, digits: digits)
            #expect(try MinorUnits.parse(text, digits: digits, allowNegative: true) == minor, "\(text)")
        }
        #expect(MinorUnits.format(Int.min, digits: 2) == "-92233720368547758.08")
    }

    /// Random text made of the grammar's characters and a few others: never a crash, and what is
    /// accepted is exactly what a reference reading (written apart, by splitting) accepts.
    @Test func generatedTextIsReadAsAReferenceWouldRead() {
        var random = SeededRandom(seed: 7)
        let alphabet = Array("0123456789.-+e ,x")
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...24, using: &random)
            let text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
            let parsed = try? MinorUnits.parse(text, digits: 2, allowNegative: true)
            #expect(parsed == Self.reference(text, digits: 2), "\(text)")
        }
    }

    static func reference(_ text: String, digits: Int) -> Int? {
        var body = Substring(text)
        let negative = body.first == "-"
        if negative { body = body.dropFirst() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        if parts.count == 2 && fraction.isEmpty { return nil }
        guard fraction.allSatisfy({ $0.isASCII && $0.isNumber }), fraction.count <= digits else { return nil }
        fraction += String(repeating: "0", count: digits - fraction.count)
        var value: Int64 = 0
        for c in whole + fraction {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(c.wholeNumberValue!))
            if o1 || o2 { return nil }
            value = a
        }
        return negative ? -Int(value) : Int(value)
    }

    @Test func sumsAreCheckedNeverWrapped() throws {
        #expect(throws: AmountError.self) { _ = try MinorUnits.sum([Int.max, 1]) }
        #expect(throws: AmountError.self) { _ = try MinorUnits.sum([Int.min, -1]) }
        #expect(throws: AmountError.self) { _ = try MinorUnits.multiply(Int.max / 2, 3) }
        #expect(try MinorUnits.sum([100, -30, 5]) == 75)
        var random = SeededRandom(seed: 11)
        // Exact reference (Decimal holds 38 digits): a sum is refused exactly when a partial sum leaves 64 bits.
        let low = Decimal(Int.min)
        let high = Decimal(Int.max)
        for _ in 0..<2_000 {
            let values = (0..<Int.random(in: 0...8, using: &random)).map { _ in
                Int.random(in: Int.min / 4...Int.max / 4, using: &random)
            }
            var partial = Decimal(0)
            var fits = true
            for v in values {
                partial += Decimal(v)
                if partial < low || partial > high { fits = false }
            }
            let checked = try? MinorUnits.sum(values)
            #expect((checked != nil) == fits)
            if let checked { #expect(Decimal(checked) == partial) }
        }
    }

    @Test func ratesAreExactAndRoundHalvesAwayFromZero() throws {
        let tax = try Rate(percent: "7.25")
        #expect(tax.partsPerMillion == 72_500)
        #expect(tax.apply(to: 17_350) == 1_258)  // 12.57875 → 12.58
        #expect(try Rate(percent: "50").apply(to: 1) == 1)  // 0.5 → 1
        #expect(try Rate(percent: "50").apply(to: -1) == -1)
        #expect(try Rate(percent: "10").apply(to: Int.max) == 922_337_203_685_477_581)
        #expect(try Rate(percent: "100").apply(to: Int.max) == Int.max)
        #expect(try Rate(percent: "0.0001").apply(to: 500_000) == 1)  // 0.5 → 1
        #expect(try Rate(percent: "0.0001").apply(to: 499_999) == 0)
        for bad in ["100.01", "-1", "7.25000", "1e1", "abc", "7.2.5"] {
            #expect(throws: AmountError.self, "\(bad)") { _ = try Rate(percent: bad) }
        }
        // Against an exact reference in 128 bits, over generated bases and rates.
        var random = SeededRandom(seed: 3)
        for _ in 0..<5_000 {
            let ppm = Int.random(in: 0...1_000_000, using: &random)
            let base = Int.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random)
            let rate = try Rate(percent: MinorUnits.format(ppm, digits: 4))
            // base × ppm < 10^18 fits 64 bits here; the reference rounds it by hand.
            let exact = Int(base.magnitude) * ppm
            var expected = exact / 1_000_000
            if (exact % 1_000_000) * 2 >= 1_000_000 { expected += 1 }
            #expect(rate.apply(to: base) == (base < 0 ? -expected : expected))
        }
    }

    @Test func ratesReadFromConfigurationNumbersOrText() throws {
        let decoded = try JSONDecoder().decode(
            [String: Rate].self,
            from: Data(#"{"a": 7.25, "b": "6.5", "c": 10}"#.utf8)
        )
        #expect(decoded["a"]?.partsPerMillion == 72_500)
        #expect(decoded["b"]?.partsPerMillion == 65_000)
        #expect(decoded["c"]?.partsPerMillion == 100_000)
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode([String: Rate].self, from: Data(#"{"a": 0.123456}"#.utf8))
        }
        #expect(String(decoding: try JSONEncoder().encode(try Rate(percent: "7.25")), as: UTF8.self) == #""7.25""#)
    }
}
