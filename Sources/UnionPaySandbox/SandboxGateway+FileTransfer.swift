import UnionPay
import Foundation
import PaysheetModel

extension SandboxGateway {
    /// The merchant fee the sandbox charges, in millionths (0.6 %, as in UnionPay's published
    /// sample file).
    static let feeRate = try! Rate(percent: "0.6")

    /// Handles a file transfer (`txnType=76`, `fileType=00`): the reconciliation archive of the
    /// clearing day `settleDate` (`MMDD`), as UnionPay serves it: `fileName`
    /// (`{merId}_{YYYYMMDD}.zip`) and `fileContent` (Base64 of the zlib-compressed ZIP, whose `ZM`
    /// file lists the day's successful transactions). A day that has not ended yet answers `98`
    /// (文件不存在), as UnionPay does before its file exists.
    public func fileTransfer(_ body: String, now clock: Date = Date()) -> Reply {
        let now = clock.addingTimeInterval(fileClockOffset)
        let request: ACPMessage
        switch verifiedRequest(body, now: now) {
        case .failure(let refusal): return refusal.reply
        case .success(let r): request = r
        }
        guard request["txnType"] == TransactionType.fileTransfer.rawValue, let merId = request["merId"],
            let settleDate = request["settleDate"], settleDate.utf8.count == 4,
            settleDate.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            let txnTime = request["txnTime"], let sent = TransactionTime.parse(txnTime)
        else {
            return refusal(request, .missingElement, "报文交易要素缺失 (txnType 76 needs merId, settleDate MMDD and txnTime)")
                .reply
        }
        guard request["fileType"] == "00" else {
            return refusal(request, .missingElement, "报文交易要素缺失 (fileType must be 00, the merchant reconciliation file)")
                .reply
        }
        let today = TransactionTime.format(now)
        let day = TransactionTime.day(monthAndDay: settleDate, before: sent)
        guard day < String(today.prefix(8)) else {
            return refusal(request, .fileNotFound, "文件不存在 (the clearing day \(day) has not ended)").reply
        }
        let records = entries().filter { entry in
            entry.merchantId == merId && entry.status(at: now) == "success"
                && TransactionTime.format(entry.finalAt).prefix(8) == day
        }.map { entry -> ReconciliationRecord in
            let credit = entry.txnType == .consume
            let fee = Self.feeRate.apply(to: entry.amount)
            let settlement = (entry.amount - fee) * (credit ? 1 : -1)
            return ReconciliationRecord(
                transactionCode: credit ? "S56" : "S30",
                transmissionTime: String(entry.txnTime.dropFirst(4)),
                maskedAccount: entry.maskedAccount ?? "",
                amount: entry.amount,
                queryId: entry.queryId,
                orderId: entry.orderId,
                merchantFee: credit ? -fee : fee,
                settlementAmount: settlement,
                txnType: entry.txnType.rawValue,
                bizType: "000802",
                originalQueryId: entry.originalQueryId ?? "",
                merchantId: merId,
                netAmount: settlement,
                reserved: entry.reserved ?? ""
            )
        }
        let yymmdd = String(day.dropFirst(2))
        let content = ReconciliationFile.fileContent(
            files: [
                (ReconciliationFile.fileName(merchantId: merId, settleDate: yymmdd), ReconciliationFile.render(records))
            ],
            date: now
        )
        return Reply(
            status: 200,
            body: answer(
                request,
                [
                    "respCode": ResponseCode.success.rawValue, "fileType": "00", "settleDate": settleDate,
                    "fileName": "\(merId)_\(day).zip",
                    "fileContent": content,
                ]
            )
        )
    }
}
