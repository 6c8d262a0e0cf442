/// How a UnionPay `respCode` (UnionPay's interface specification, appendix of codes) moves a payment.
public enum ResponseClass: String, Sendable, Equatable {
    /// `00`, `A6`: success (a synchronous `00` on a money transaction means *accepted*).
    case success
    /// `03`, `04`, `05`, `06`: the outcome is not known yet; query.
    case unknown
    /// `12`: duplicate transaction; query the original, never re-send.
    case duplicate
    /// `34`: no such transaction; not proof of failure right after submission.
    case notFound
    /// `37`: too many queries; back off.
    case throttled
    /// `42`, `74`, `75`: the money was taken but the transaction is not clean; reconcile.
    case moneyTaken
    /// Every other code: the transaction failed.
    case failure
}

/// UnionPay ACP response codes (`respCode`, `origRespCode`).
public enum ResponseCode {
    /// The class of `code`.
    public static func classify(_ code: String) -> ResponseClass {
        switch code {
        case "00", "A6": .success
        case "03", "04", "05", "06": .unknown
        case "12": .duplicate
        case "34": .notFound
        case "37": .throttled
        case "42", "74", "75": .moneyTaken
        default: .failure
        }
    }

    /// Codes the sandbox gateway uses for declines, with UnionPay's meaning in English.
    public static let declines: [String: String] = [
        "60": "Declined by the issuer",
        "61": "Invalid card number",
        "63": "Card status incorrect (frozen, lost or closed)",
        "64": "Insufficient funds",
        "65": "Wrong PIN, expiry date or CVN2",
        "67": "PIN tries exceeded",
        "73": "Card expired",
        "78": "Transaction restricted by the issuer",
    ]

    /// `respMsg` as UnionPay's gateway writes it: the Chinese text and, for success, the
    /// seven-digit detail code in brackets (`成功[0000000]`).
    public static func unionPayMessage(_ code: String) -> String {
        switch code {
        case "00": "成功[0000000]"
        case "A6": "有缺陷的成功"
        case "01": "交易失败。详情请咨询95516"
        case "02": "系统未开放或暂时关闭"
        case "03": "交易通讯超时,请发起查询交易"
        case "04": "交易状态未明,请查询对账结果"
        case "05": "交易已受理,请稍后查询交易结果"
        case "06": "系统繁忙"
        case "10": "报文格式错误"
        case "11": "验证签名失败"
        case "12": "重复交易"
        case "13": "报文交易要素缺失"
        case "30": "交易未通过"
        case "33": "交易金额超限"
        case "34": "查无此交易"
        case "35": "原交易不存在或状态不正确"
        case "36": "与原交易信息不符"
        case "37": "已超过最大查询次数或操作过于频繁"
        case "42": "扣款成功但交易超过规定支付时间"
        case "45": "已被成功退货或已被成功撤销"
        case "60": "交易失败,详情请咨询您的发卡行"
        case "61": "输入的卡号无效"
        case "63": "卡状态不正确"
        case "64": "卡上的余额不足"
        case "65": "输入的密码、有效期或CVN2有误"
        case "67": "密码输入次数超限"
        case "98": "文件不存在"
        case "73": "支付卡已超过有效期"
        case "78": "发卡行交易权限受限"
        default: "交易失败"
        }
    }

    /// UnionPay's message for `code` (English rendering of the Chinese `respMsg`).
    public static func message(_ code: String) -> String {
        if let m = declines[code] { return m }
        switch code {
        case "00": return "Success"
        case "A6": return "Success with defects"
        case "01": return "Transaction failed"
        case "02": return "System not open or temporarily closed"
        case "03": return "Communication timeout; query the transaction"
        case "04": return "Transaction state unknown; query the transaction"
        case "05": return "Transaction accepted; query the result later"
        case "06": return "System busy"
        case "10": return "Message format error"
        case "11": return "Signature verification failed"
        case "12": return "Duplicate transaction"
        case "13": return "Required transaction element missing"
        case "30": return "Transaction not approved"
        case "33": return "Amount over limit"
        case "34": return "No such transaction"
        case "35": return "Original transaction missing or in the wrong state"
        case "36": return "Does not match the original transaction"
        case "37": return "Too many queries"
        case "45": return "Already refunded or voided"
        default: return "Transaction failed (\(code))"
        }
    }
}
