import Foundation

/// One transaction of UnionPay's daily merchant reconciliation file (the `ZM` file of the
/// archive a file transfer, `txnType=76`, downloads): fixed-width fields separated by one space,
/// one transaction a line, lines ending in CR LF, GBK text.
public struct ReconciliationRecord: Sendable, Codable, Equatable {
    /// 交易代码: UnionPay's code of the transaction (`S56` in its published sample of consumes).
    public var transactionCode: String
    /// 交易传输时间: `MMDDhhmmss` of the request's `txnTime`.
    public var transmissionTime: String
    /// 帐号: the account number, masked.
    public var maskedAccount: String
    /// 交易金额: `txnAmt`, minor units.
    public var amount: Int
    /// 查询流水号: `queryId`.
    public var queryId: String
    /// 商户订单号: `orderId`.
    public var orderId: String
    /// 商户手续费: the merchant's fee, signed (`D`, a debit to the merchant, is negative).
    public var merchantFee: Int
    /// 结算金额: the settled amount, signed (`C` positive, `D` negative).
    public var settlementAmount: Int
    /// 交易类型: `txnType` (`01` consume, `04` refund, `31` void).
    public var txnType: String
    /// 业务类型: `bizType`.
    public var bizType: String
    /// 原交易查询流水号: a refund's or void's `origQryId`.
    public var originalQueryId: String
    /// 商户代码: `merId`.
    public var merchantId: String
    /// 清算净额: the net settlement, signed.
    public var netAmount: Int
    /// 商户自定义域: `reqReserved`, as echoed.
    public var reserved: String

    /// Creates a record.
    public init(
        transactionCode: String,
        transmissionTime: String,
        maskedAccount: String,
        amount: Int,
        queryId: String,
        orderId: String,
        merchantFee: Int,
        settlementAmount: Int,
        txnType: String,
        bizType: String,
        originalQueryId: String,
        merchantId: String,
        netAmount: Int,
        reserved: String
    ) {
        self.transactionCode = transactionCode
        self.transmissionTime = transmissionTime
        self.maskedAccount = maskedAccount
        self.amount = amount
        self.queryId = queryId
        self.orderId = orderId
        self.merchantFee = merchantFee
        self.settlementAmount = settlementAmount
        self.txnType = txnType
        self.bizType = bizType
        self.originalQueryId = originalQueryId
        self.merchantId = merchantId
        self.netAmount = netAmount
        self.reserved = reserved
    }
}

/// The `ZM` file's layout and its reading and writing.
public enum ReconciliationFile {
    /// The widths of the 42 fields, as UnionPay's file interface specification (全渠道平台接入接口规范
    /// 第3部分 文件接口, 6.1) and its SDKs' `parseZMFile` give them.
    static let widths = [
        3, 11, 11, 6, 10, 19, 12, 4, 2, 21, 2, 32, 2, 6, 10, 13, 13, 4, 15, 2, 2, 6, 2, 4, 32, 1, 21, 15, 1, 15, 32,
        13, 13, 8, 32, 13, 13, 12, 2, 1, 32, 98,
    ]
    /// Where each field starts in a line.
    static let offsets: [Int] = widths.indices.map { i in widths[..<i].reduce(0, +) + i }
    /// A whole line, without its CR LF: 607 bytes.
    static let lineLength = offsets.last! + widths.last!

    enum Field: Int {
        case code = 0
        case transmissionTime = 4
        case account = 5
        case amount = 6
        case queryId = 9
        case orderId = 11
        case fee = 15
        case settlement = 16
        case txnType = 19
        case txnSubType = 20
        case bizType = 21
        case originalQueryId = 26
        case merchantId = 27
        case net = 32
        case reserved = 34
    }

    /// The archive's `ZM` file name for `merId` and settlement date `yyMMdd` (`INN15090588ZM_802310048993424`).
    public static func fileName(merchantId: String, settleDate yymmdd: String) -> String {
        "INN\(yymmdd)88ZM_\(merchantId)"
    }

    /// The transactions of a `ZM` file; throws ``ACPError`` naming the first line it cannot read.
    public static func parse(_ contents: Data) throws(ACPError) -> [ReconciliationRecord] {
        var records: [ReconciliationRecord] = []
        var number = 0
        for rawLine in contents.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            var line = [UInt8](rawLine)
            if line.last == 0x0D { line.removeLast() }
            if line.allSatisfy({ $0 == 0x20 }) { continue }
            // The trailing reserved field may come trimmed; everything before it must be there.
            let needed = offsets[Field.reserved.rawValue] + widths[Field.reserved.rawValue]
            guard line.count >= needed, line.count <= lineLength else {
                throw ACPError(
                    .malformed,
                    "reconciliation file line \(number) is \(line.count) bytes, not \(lineLength)"
                )
            }
            func fieldText(_ field: Field) -> String {
                let start = offsets[field.rawValue]
                let end = min(line.count, start + widths[field.rawValue])
                return String(decoding: line[start..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            }
            func unsigned(_ field: Field) throws(ACPError) -> Int {
                let text = fieldText(field)
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text) else {
                    throw ACPError(
                        .malformed,
                        "reconciliation file line \(number): field \(field.rawValue + 1) is \"\(text)\", not digits"
                    )
                }
                return value
            }
            func signed(_ field: Field) throws(ACPError) -> Int {
                let text = fieldText(field)
                let digits = text.drop(while: { $0 == "C" || $0 == "D" })
                guard text.count == 13 || (text.count == 12 && digits.count == 12),
                    digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                    let value = Int(digits)
                else {
                    throw ACPError(
                        .malformed,
                        "reconciliation file line \(number): field \(field.rawValue + 1) is \"\(text)\", not C/D and 12 digits"
                    )
                }
                return text.hasPrefix("D") ? -value : value
            }
            records.append(
                ReconciliationRecord(
                    transactionCode: fieldText(.code),
                    transmissionTime: fieldText(.transmissionTime),
                    maskedAccount: fieldText(.account),
                    amount: try unsigned(.amount),
                    queryId: fieldText(.queryId),
                    orderId: fieldText(.orderId),
                    merchantFee: try signed(.fee),
                    settlementAmount: try signed(.settlement),
                    txnType: fieldText(.txnType),
                    bizType: fieldText(.bizType),
                    originalQueryId: fieldText(.originalQueryId),
                    merchantId: fieldText(.merchantId),
                    netAmount: try signed(.net),
                    reserved: fieldText(.reserved)
                )
            )
        }
        return records
    }

    /// The `ZM` file of `records`, as UnionPay writes it (used by the sandbox gateway).
    public static func render(_ records: [ReconciliationRecord]) -> Data {
        var out = Data()
        for record in records {
            var fields = widths.map { String(repeating: " ", count: $0) }
            func put(_ field: Field, _ value: String) {
                let width = widths[field.rawValue]
                fields[field.rawValue] =
                    String(value.prefix(width)) + String(repeating: " ", count: max(0, width - value.count))
            }
            func amount(_ value: Int) -> String {
                let digits = String(abs(value))
                return String(repeating: "0", count: max(0, 12 - digits.count)) + digits
            }
            func signed(_ value: Int) -> String { (value < 0 ? "D" : "C") + amount(value) }
            put(.code, record.transactionCode)
            put(.transmissionTime, record.transmissionTime)
            put(.account, record.maskedAccount)
            put(.amount, amount(record.amount))
            put(.queryId, record.queryId)
            put(.orderId, record.orderId)
            put(.fee, signed(record.merchantFee))
            put(.settlement, signed(record.settlementAmount))
            put(.txnType, record.txnType)
            put(.bizType, record.bizType)
            put(.originalQueryId, record.originalQueryId)
            put(.merchantId, record.merchantId)
            put(.net, signed(record.netAmount))
            put(.reserved, record.reserved)
            out.append(Data(fields.joined(separator: " ").utf8))
            out.append(contentsOf: [0x0D, 0x0A])
        }
        return out
    }

    /// The records of a file transfer's answer: `fileContent` is the Base64 of a zlib stream of a
    /// ZIP archive; its `ZM` files are read (other files, such as the `RD` summary, are not).
    public static func records(fileContent: String) throws(ACPError) -> [ReconciliationRecord] {
        guard let compressed = Data(base64Encoded: fileContent, options: .ignoreUnknownCharacters) else {
            throw ACPError(.malformed, "fileContent is not Base64")
        }
        guard let zip = Zlib.decompress(compressed, format: .zlib) else {
            throw ACPError(
                .malformed,
                "fileContent is not a complete zlib stream (or inflates past \(Zlib.maximumOutput >> 20) MiB)"
            )
        }
        let archive = try ZipArchive(reading: zip)
        let files = archive.files.filter { $0.name.split(separator: "/").last?.contains("ZM_") == true }
        guard !files.isEmpty else {
            throw ACPError(
                .malformed,
                "the archive has no ZM file (it holds \(archive.files.map(\.name).joined(separator: ", ")))"
            )
        }
        var records: [ReconciliationRecord] = []
        for file in files { records += try parse(file.contents) }
        return records
    }

    /// A file transfer's `fileContent` for an archive of `files`.
    public static func fileContent(files: [(name: String, contents: Data)], date: Date = Date()) -> String {
        Zlib.compress(ZipArchive(files: files).encoded(date: date), format: .zlib).base64EncodedString()
    }
}
