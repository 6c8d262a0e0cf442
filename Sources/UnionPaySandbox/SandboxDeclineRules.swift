import PaysheetModel
import UnionPay
import Foundation

/// How the sandbox decides a consume's outcome, by test card or by amount.
///
/// - Test cards: a DPAN ending in `0063`, `0065`, `0067` or `0073` is declined at once (frozen
///   card, wrong PIN/expiry/CVN2, PIN tries exceeded, expired); one ending in `0060`, `0064` or
///   `0078` is accepted and then declined by the issuer (issuer decline, insufficient funds,
///   restricted). A sandbox wallet card whose `deviceAccountNumberSuffix` is one of these gets
///   such a DPAN.
/// - Amounts: `66.xx` in any currency with two minor digits (6600–6699 minor units) is treated as
///   the card ending in `00xx`; `66.03`/`66.05` answer `03`/`05` synchronously and then succeed.
/// - An expiry date (`expired`, YYMM) in the past declines with `73`; an account number that
///   fails the Luhn check with `61`.
public enum SandboxDeclineRules {
    /// The decision for one consume.
    public struct Decision: Sendable, Equatable {
        /// The synchronous `respCode`.
        public var synchronous: ResponseCode
        /// The final `respCode` (notification, query).
        public var final: ResponseCode

        /// A decision.
        public init(synchronous: ResponseCode, final: ResponseCode) {
            self.synchronous = synchronous
            self.final = final
        }

        /// Declined with `code`, at once and for good.
        static func declined(_ code: ResponseCode) -> Decision { Decision(synchronous: code, final: code) }

        /// Accepted, and succeeded.
        static let approved = Decision(synchronous: .success, final: .success)
    }

    /// Codes declined synchronously.
    static let synchronousDeclines: Set<ResponseCode> = [
        .invalidCardNumber, .cardStatusIncorrect, .wrongCardDetails, .pinTriesExceeded, .cardExpired,
    ]
    /// Codes accepted then declined.
    static let asynchronousDeclines: Set<ResponseCode> = [.issuerDeclined, .insufficientFunds, .issuerRestricted]
    /// Codes answered synchronously before a success (query, and the notification, say `00`).
    static let answeredThenSucceeded: Set<ResponseCode> = [.timeout, .processing]

    /// The decision for `accountNumber` (may be `nil` when the field is missing), `expiry` and `amount`.
    public static func decide(accountNumber: String?, expiry: String?, amount: Int, now: Date) -> Decision {
        if let acc = accountNumber, !Luhn.isValid(acc) { return .declined(.invalidCardNumber) }
        if let e = expiry, e.count == 4, let yymm = Int(e) {
            let current = Int(TransactionTime.format(now).dropFirst(2).prefix(4))!
            if yymm < current { return .declined(.cardExpired) }
        }
        var code: ResponseCode?
        if let acc = accountNumber, acc.count >= 4 {
            let suffix = acc.suffix(4)
            if suffix.hasPrefix("00") { code = ResponseCode(String(suffix.dropFirst(2))) }
        }
        if (6600...6699).contains(amount) { code = ResponseCode(String(format: "%02d", amount - 6600)) }
        guard let code else { return .approved }
        if synchronousDeclines.contains(code) { return .declined(code) }
        if asynchronousDeclines.contains(code) { return Decision(synchronous: .success, final: code) }
        if answeredThenSucceeded.contains(code) { return Decision(synchronous: code, final: .success) }
        return .approved
    }
}
