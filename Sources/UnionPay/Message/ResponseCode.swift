/// How a UnionPay `respCode` (UnionPay's interface specification, appendix of codes) moves a payment.
public enum ResponseClass: String, Sendable, Equatable, CaseIterable {
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

/// A UnionPay ACP response code (`respCode`, `origRespCode`): its class, its meaning in English,
/// and the Chinese `respMsg` UnionPay's gateway writes for it.
///
/// Messages carry codes as strings (``ACPMessage`` fields stay strings on the wire); read one with
/// ``ACPMessage/responseCode`` or ``init(_:)``, and compare with the named codes:
///
/// ```swift
/// if answer.responseCode == .success { … }
/// switch code.kind { case .unknown: … }
/// ```
///
/// Any two characters are a code: one not named here is a ``ResponseClass/failure``.
public struct ResponseCode: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The code as UnionPay writes it (`00`, `A6`, …).
    public let rawValue: String

    /// The code `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The code written as a literal (`"64"`).
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Decodes the code from a string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the code as its string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The code as written (`64`).
    public var description: String { rawValue }

    // MARK: Named codes

    /// `00`: success (on a money transaction's synchronous answer: accepted).
    public static let success: ResponseCode = "00"
    /// `A6`: success with defects.
    public static let defectiveSuccess: ResponseCode = "A6"
    /// `01`: the transaction failed.
    public static let transactionFailed: ResponseCode = "01"
    /// `02`: the system is not open or temporarily closed.
    public static let systemClosed: ResponseCode = "02"
    /// `03`: communication timeout; query the transaction.
    public static let timeout: ResponseCode = "03"
    /// `04`: the transaction's state is unknown; query it.
    public static let stateUnknown: ResponseCode = "04"
    /// `05`: accepted; query the result later.
    public static let processing: ResponseCode = "05"
    /// `06`: the system is busy.
    public static let systemBusy: ResponseCode = "06"
    /// `10`: message format error.
    public static let formatError: ResponseCode = "10"
    /// `11`: the signature does not verify.
    public static let signatureFailure: ResponseCode = "11"
    /// `12`: duplicate transaction.
    public static let duplicate: ResponseCode = "12"
    /// `13`: a required transaction element is missing.
    public static let missingElement: ResponseCode = "13"
    /// `30`: the transaction was not approved.
    public static let notApproved: ResponseCode = "30"
    /// `33`: the amount is over the limit.
    public static let amountOverLimit: ResponseCode = "33"
    /// `34`: no such transaction.
    public static let noSuchTransaction: ResponseCode = "34"
    /// `35`: the original transaction is missing or in the wrong state.
    public static let originalNotFound: ResponseCode = "35"
    /// `36`: the request does not match the original transaction.
    public static let originalMismatch: ResponseCode = "36"
    /// `37`: too many queries.
    public static let tooManyQueries: ResponseCode = "37"
    /// `42`: debited, but after the time allowed for payment.
    public static let paidTooLate: ResponseCode = "42"
    /// `45`: already refunded or voided.
    public static let alreadyReversed: ResponseCode = "45"
    /// `60`: declined by the issuer.
    public static let issuerDeclined: ResponseCode = "60"
    /// `61`: invalid card number.
    public static let invalidCardNumber: ResponseCode = "61"
    /// `63`: the card's status is wrong (frozen, lost or closed).
    public static let cardStatusIncorrect: ResponseCode = "63"
    /// `64`: insufficient funds.
    public static let insufficientFunds: ResponseCode = "64"
    /// `65`: wrong PIN, expiry date or CVN2.
    public static let wrongCardDetails: ResponseCode = "65"
    /// `67`: PIN tries exceeded.
    public static let pinTriesExceeded: ResponseCode = "67"
    /// `73`: the card has expired.
    public static let cardExpired: ResponseCode = "73"
    /// `78`: the transaction is restricted by the issuer.
    public static let issuerRestricted: ResponseCode = "78"
    /// `98`: (file transfer) no file for the day.
    public static let fileNotFound: ResponseCode = "98"

    /// The named codes, with their English meaning and UnionPay's `respMsg`.
    static let table: [ResponseCode: (english: String, chinese: String)] = [
        success: ("Success", "成功[0000000]"),
        defectiveSuccess: ("Success with defects", "有缺陷的成功"),
        transactionFailed: ("Transaction failed", "交易失败。详情请咨询95516"),
        systemClosed: ("System not open or temporarily closed", "系统未开放或暂时关闭"),
        timeout: ("Communication timeout; query the transaction", "交易通讯超时,请发起查询交易"),
        stateUnknown: ("Transaction state unknown; query the transaction", "交易状态未明,请查询对账结果"),
        processing: ("Transaction accepted; query the result later", "交易已受理,请稍后查询交易结果"),
        systemBusy: ("System busy", "系统繁忙"),
        formatError: ("Message format error", "报文格式错误"),
        signatureFailure: ("Signature verification failed", "验证签名失败"),
        duplicate: ("Duplicate transaction", "重复交易"),
        missingElement: ("Required transaction element missing", "报文交易要素缺失"),
        notApproved: ("Transaction not approved", "交易未通过"),
        amountOverLimit: ("Amount over limit", "交易金额超限"),
        noSuchTransaction: ("No such transaction", "查无此交易"),
        originalNotFound: ("Original transaction missing or in the wrong state", "原交易不存在或状态不正确"),
        originalMismatch: ("Does not match the original transaction", "与原交易信息不符"),
        tooManyQueries: ("Too many queries", "已超过最大查询次数或操作过于频繁"),
        paidTooLate: ("Debited after the time allowed for payment", "扣款成功但交易超过规定支付时间"),
        alreadyReversed: ("Already refunded or voided", "已被成功退货或已被成功撤销"),
        issuerDeclined: ("Declined by the issuer", "交易失败,详情请咨询您的发卡行"),
        invalidCardNumber: ("Invalid card number", "输入的卡号无效"),
        cardStatusIncorrect: ("Card status incorrect (frozen, lost or closed)", "卡状态不正确"),
        insufficientFunds: ("Insufficient funds", "卡上的余额不足"),
        wrongCardDetails: ("Wrong PIN, expiry date or CVN2", "输入的密码、有效期或CVN2有误"),
        pinTriesExceeded: ("PIN tries exceeded", "密码输入次数超限"),
        cardExpired: ("Card expired", "支付卡已超过有效期"),
        issuerRestricted: ("Transaction restricted by the issuer", "发卡行交易权限受限"),
        fileNotFound: ("File not found", "文件不存在"),
    ]

    // MARK: What a code means

    /// How the code moves a payment.
    public var kind: ResponseClass {
        switch self {
        case .success, .defectiveSuccess: .success
        case .timeout, .stateUnknown, .processing, .systemBusy: .unknown
        case .duplicate: .duplicate
        case .noSuchTransaction: .notFound
        case .tooManyQueries: .throttled
        case .paidTooLate, "74", "75": .moneyTaken
        default: .failure
        }
    }

    /// UnionPay's meaning of the code in English; for a code not named here, what its class says
    /// (`Transaction failed (NN)`, or for `74` and `75` that the money was taken).
    public var meaning: String {
        if let named = Self.table[self] { return named.english }
        return kind == .moneyTaken
            ? "Debited, but the transaction is not clean (\(rawValue))" : "Transaction failed (\(rawValue))"
    }

    /// `respMsg` as UnionPay's gateway writes it: the Chinese text and, for success, the
    /// seven-digit detail code in brackets (`成功[0000000]`); `交易失败` for a code not named here.
    public var unionPayMessage: String { Self.table[self]?.chinese ?? "交易失败" }

    /// Whether the sandbox gateway declines with this code: the issuer's and the card's refusals
    /// (`60`, `61`, `63`, `64`, `65`, `67`, `73`, `78`), each a ``ResponseClass/failure``.
    public var isCardDecline: Bool { Self.cardDeclines.contains(self) }

    /// The codes of ``isCardDecline``.
    public static let cardDeclines: Set<ResponseCode> = [
        .issuerDeclined, .invalidCardNumber, .cardStatusIncorrect, .insufficientFunds, .wrongCardDetails,
        .pinTriesExceeded, .cardExpired, .issuerRestricted,
    ]
}

extension ACPMessage {
    /// `respCode`, typed; `nil` when the message has none.
    public var responseCode: ResponseCode? { self["respCode"].map(ResponseCode.init(rawValue:)) }

    /// `origRespCode` (a query's answer about the original transaction), typed.
    public var originalResponseCode: ResponseCode? { self["origRespCode"].map(ResponseCode.init(rawValue:)) }
}
