/// How a UnionPay `respCode` (research §1.9) moves a payment.
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
