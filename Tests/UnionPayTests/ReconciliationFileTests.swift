import Foundation
import Testing
@testable import UnionPay

@Suite struct ReconciliationFileTests {
    static let record = ReconciliationRecord(
        transactionCode: "S56",
        transmissionTime: "0906112203",
        maskedAccount: "622609******0048",
        amount: 476_800,
        queryId: "201509061122031906248",
        orderId: "10078087",
        merchantFee: -2_861,
        settlementAmount: 473_939,
        txnType: "01",
        bizType: "000201",
        originalQueryId: "",
        merchantId: "802310048993424",
        netAmount: 473_939,
        reserved: ""
    )

    @Test func aLineIsTheFortyTwoFieldsOfTheSpecificationSeparatedBySpaces() throws {
        let data = ReconciliationFile.render([Self.record])
        let line = [UInt8](data)
        #expect(line.count == 607 + 2)
        #expect(line.suffix(2) == [0x0D, 0x0A])
        let text = String(decoding: line.prefix(607), as: UTF8.self)
        // The positions UnionPay's SDKs read (their parseZMFile widths): amount at 66, queryId at 87, orderId at 112.
        #expect(text.hasPrefix("S56 "))
        #expect(text.dropFirst(66).prefix(12) == "000000476800")
        #expect(text.dropFirst(87).prefix(21) == "201509061122031906248")
        #expect(text.dropFirst(112).prefix(8) == "10078087")
        #expect(text.contains(" D000000002861 C000000473939 "))
        #expect(try ReconciliationFile.parse(data) == [Self.record])
    }

    @Test func refundsAreDebitsAndEveryFieldRoundTrips() throws {
        var refund = Self.record
        refund.txnType = "04"
        refund.settlementAmount = -1_000
        refund.netAmount = -1_000
        refund.merchantFee = 6
        refund.originalQueryId = "201509061122031906248"
        refund.reserved = "order ord_123"
        let data = ReconciliationFile.render([Self.record, refund])
        #expect(try ReconciliationFile.parse(data) == [Self.record, refund])
        #expect(String(decoding: data, as: UTF8.self).contains(" D000000001000 "))
    }

    @Test func unreadableLinesAreRefusedByNumber() {
        var bad = [UInt8](ReconciliationFile.render([Self.record, Self.record]))
        bad[609 + 66] = UInt8(ascii: "x")  // the second line's amount
        #expect(throws: ACPError(.malformed, "reconciliation file line 2: field 7 is \"x00000476800\", not digits")) {
            try ReconciliationFile.parse(Data(bad))
        }
        #expect(throws: ACPError.self) { try ReconciliationFile.parse(Data("S56 short line\r\n".utf8)) }
        var sign = [UInt8](ReconciliationFile.render([Self.record]))
        sign[ReconciliationFile.offsets[15]] = UInt8(ascii: "X")
        #expect(throws: ACPError.self) { try ReconciliationFile.parse(Data(sign)) }
    }

    @Test func theFileContentIsAZlibStreamOfAZipArchive() throws {
        let zm = ReconciliationFile.render([Self.record])
        let content = ReconciliationFile.fileContent(files: [
            ("INN15090588ZM_802310048993424", zm), ("RD201015090501_802310048993424", Data("summary".utf8)),
        ])
        #expect(try ReconciliationFile.records(fileContent: content) == [Self.record])
        let zip = try #require(Zlib.decompress(Data(base64Encoded: content)!, format: .zlib))
        #expect(zip.prefix(4) == Data([0x50, 0x4B, 0x03, 0x04]))
        let archive = try ZipArchive(reading: zip)
        #expect(archive.files.map(\.name) == ["INN15090588ZM_802310048993424", "RD201015090501_802310048993424"])
        #expect(archive.files[1].contents == Data("summary".utf8))
    }

    @Test func damagedArchivesAreRefusedNotTrusted() throws {
        #expect(throws: ACPError.self) { try ReconciliationFile.records(fileContent: "not base64!") }
        #expect(throws: ACPError.self) {
            try ReconciliationFile.records(fileContent: Data("plain".utf8).base64EncodedString())
        }
        let zip = ZipArchive(files: [("INN15090588ZM_1", ReconciliationFile.render([Self.record]))]).encoded()
        // A flipped byte inside the deflated data fails inflation or the CRC-32.
        var flipped = [UInt8](zip)
        flipped[30 + "INN15090588ZM_1".utf8.count + 5] ^= 0xFF
        #expect(throws: ACPError.self) { try ZipArchive(reading: Data(flipped)) }
        // An archive without a ZM file says what it holds.
        let other = Zlib.compress(ZipArchive(files: [("readme.txt", Data("x".utf8))]).encoded(), format: .zlib)
            .base64EncodedString()
        #expect(throws: ACPError(.malformed, "the archive has no ZM file (it holds readme.txt)")) {
            try ReconciliationFile.records(fileContent: other)
        }
        // A stream that inflates past the limit is refused.
        let big = Zlib.compress(Data(count: 4 << 20), format: .zlib)
        #expect(Zlib.decompress(big, format: .zlib, limit: 1 << 20) == nil)
        #expect(Zlib.decompress(big, format: .zlib)?.count == 4 << 20)
    }

    /// UnionPay's own published sample (`802310048993424_20150905.zip`, shipped with its PHP and
    /// Java SDKs), read when `PAYSHEET_UNIONPAY_SAMPLE_ZIP` names it: UnionPay's code is not in this
    /// repository.
    @Test func unionPaysPublishedSampleFileIsRead() throws {
        guard let path = ProcessInfo.processInfo.environment["PAYSHEET_UNIONPAY_SAMPLE_ZIP"] else {
            print("UnionPay's sample reconciliation archive not given (PAYSHEET_UNIONPAY_SAMPLE_ZIP): skipped")
            return
        }
        let zip = try Data(contentsOf: URL(fileURLWithPath: path))
        let content = Zlib.compress(zip, format: .zlib).base64EncodedString()
        let records = try ReconciliationFile.records(fileContent: content)
        #expect(records.count == 8)
        #expect(records.first == Self.record.with(bizType: "000201"))
        #expect(
            records.allSatisfy {
                $0.settlementAmount == $0.amount + $0.merchantFee && $0.netAmount == $0.settlementAmount
            }
        )
        #expect(records.map(\.amount).reduce(0, +) == 1_322_700)
    }
}

extension ReconciliationRecord {
    func with(bizType: String) -> ReconciliationRecord {
        var r = self
        r.bizType = bizType
        return r
    }
}

@Suite struct SettleDateTests {
    @Test func aMonthAndDayIsTheLatestSuchDateByTheDayAfter() throws {
        let now = try #require(TransactionTime.parse("20261124020000"))  // Beijing
        #expect(TransactionTime.day(monthAndDay: "1123", before: now) == "20261123")
        // Tomorrow: asked too early, not last year's.
        #expect(TransactionTime.day(monthAndDay: "1125", before: now) == "20261125")
        #expect(TransactionTime.day(monthAndDay: "1126", before: now) == "20251126")
        #expect(TransactionTime.day(monthAndDay: "0101", before: now) == "20260101")
        let newYear = try #require(TransactionTime.parse("20270101080000"))
        #expect(TransactionTime.day(monthAndDay: "1231", before: newYear) == "20261231")
    }
}
