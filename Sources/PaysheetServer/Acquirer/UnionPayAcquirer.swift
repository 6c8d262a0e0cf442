import PaysheetPayments
import Foundation
import PaysheetModel
import UnionPay

/// The ``Acquirer`` for UnionPay's ACP 5.1.0 gateway (production, UnionPay's test
/// environment, or Paysheet's sandbox gateway).
public struct UnionPayAcquirer: Acquirer {
    /// The client.
    public let client: UnionPayClient

    /// An acquirer over `client`.
    public init(client: UnionPayClient) { self.client = client }

    public var name: String { "unionpay" }

    /// A new identity: `orderId` is 128 random bits (32 hexadecimal digits: UnionPay takes 8–40
    /// letters and digits, no `-` or `_`), made from nothing the shopper sees (not `paymentId`,
    /// which the identity is stored with); `txnTime` is `now` in Beijing time, as UnionPay requires.
    public func newIdentity(paymentId: String, now: Date) -> TransactionIdentity {
        TransactionIdentity(orderId: Self.newOrderId(), txnTime: TransactionTime.format(now))
    }

    /// A new acquirer `orderId`: 32 random hexadecimal digits (unique with overwhelming probability;
    /// the store's unique index on the identity refuses a repeat rather than mixing two transactions),
    /// never 13 decimal digits in a row (what log scanners take for a card number: ``IDs``).
    static func newOrderId() -> String { IDs.drawn { Secrets.hex(32) } }

    public func settlementFile(day: String, now: Date) async -> SettlementFile {
        let mmdd = String(day.dropFirst(4))
        switch await client.reconciliation(settleDate: mmdd, txnTime: TransactionTime.format(now)) {
        case .noFile: return .notReady
        case .failed(let why): return .failed(why)
        case .file(let name, let records):
            // The file gives MMDDhhmmss: the latest such date by the clearing day.
            let noon = TransactionTime.parse(day + "120000") ?? now
            return .file(
                name: name,
                transactions: records.map { r in
                    let sentDay = TransactionTime.day(monthAndDay: String(r.transmissionTime.prefix(4)), before: noon)
                    return SettledTransaction(
                        identity: TransactionIdentity(
                            orderId: r.orderId,
                            txnTime: sentDay + r.transmissionTime.dropFirst(4)
                        ),
                        reference: r.queryId,
                        amount: r.amount,
                        type: r.txnType
                    )
                }
            )
        }
    }

    /// The answer to a transaction of `amount` minor units that is not sent: only positive amounts
    /// reach the gateway (a consume of 0 is never sent, whatever asked for it).
    static func notSent(_ amount: Money) -> SubmitAnswer? {
        amount.isPositive
            ? nil : .declined(code: notSentCode, message: "not sent: an amount of \(amount) is not above zero")
    }

    /// The code of a transaction that was never sent (`NS`: not one of UnionPay's codes): an amount
    /// not above zero, or card data that could not be encrypted to the configured certificate.
    static let notSentCode = "NS"

    public func charge(_ request: ChargeRequest) async -> SubmitAnswer {
        if let refused = Self.notSent(request.amount) { return refused }
        return submitAnswer(
            await client.consume(
                orderId: request.identity.orderId,
                txnTime: request.identity.txnTime,
                amount: request.amount.minorUnits,
                currencyCode: request.amount.currency.numeric,
                instrument: request.instrument,
                reserved: request.reference
            )
        )
    }

    public func refund(
        _ identity: TransactionIdentity,
        amount: Money,
        originalReference: String
    ) async -> SubmitAnswer {
        if let refused = Self.notSent(amount) { return refused }
        return submitAnswer(
            await client.reverse(
                .refund,
                orderId: identity.orderId,
                txnTime: identity.txnTime,
                amount: amount.minorUnits,
                currencyCode: amount.currency.numeric,
                originalQueryId: originalReference
            )
        )
    }

    public func void(
        _ identity: TransactionIdentity,
        amount: Money,
        originalReference: String
    ) async -> SubmitAnswer {
        if let refused = Self.notSent(amount) { return refused }
        return submitAnswer(
            await client.reverse(
                .void,
                orderId: identity.orderId,
                txnTime: identity.txnTime,
                amount: amount.minorUnits,
                currencyCode: amount.currency.numeric,
                originalQueryId: originalReference
            )
        )
    }

    func submitAnswer(_ answer: UnionPayClient.Answer) -> SubmitAnswer {
        switch answer {
        case .noAnswer(let reason): return .unknown(reason: reason)
        // Nothing reached the gateway (card data that could not be encrypted): failed for good.
        case .notSent(let reason): return .declined(code: Self.notSentCode, message: "not sent: \(reason)")
        case .message(let message):
            let code = message.responseCode ?? ""
            switch code.kind {
            case .success: return .accepted(reference: message["queryId"])
            case .duplicate: return .duplicate
            case .unknown, .notFound, .throttled, .moneyTaken:
                return .unknown(reason: "respCode \(code): \(code.meaning)")
            case .failure: return .declined(code: code.rawValue, message: message["respMsg"] ?? code.meaning)
            }
        }
    }

    public func query(_ identity: TransactionIdentity) async -> TransactionStatus {
        switch await client.query(orderId: identity.orderId, txnTime: identity.txnTime) {
        case .noAnswer(let reason), .notSent(let reason): return .unknown(reason: reason, throttled: false)
        case .message(let message):
            let code = message.responseCode ?? ""
            switch code.kind {
            case .success:
                return status(code: message.originalResponseCode ?? "", message, message: message["origRespMsg"])
            case .notFound: return .notFound
            case .throttled: return .unknown(reason: "respCode \(code): \(code.meaning)", throttled: true)
            default:
                return .unknown(reason: "query answered respCode \(code): \(code.meaning)", throttled: false)
            }
        }
    }

    func status(code: ResponseCode, _ m: ACPMessage, message: String?) -> TransactionStatus {
        switch code.kind {
        case .success:
            // Fen, by the one amount grammar (no sign, no exponent, no other text).
            guard let amount = m["txnAmt"].flatMap({ try? MinorUnits.parse($0, digits: 0) }) else {
                return .unknown(reason: "success without a txnAmt in fen", throttled: false)
            }
            if let text = m["settleAmt"], (try? MinorUnits.parse(text, digits: 0)) != amount {
                return .moneyTaken(
                    code: code.rawValue,
                    message: "settleAmt \(text.prefix(32)) differs from txnAmt \(amount)"
                )
            }
            // The currency as the gateway states it (UnionPay's default is 156, yuan, when absent).
            guard let money = Money(amount, currencyCode: m["currencyCode"] ?? "156") else {
                return .moneyTaken(
                    code: code.rawValue,
                    message: "a success in an unknown currency \(m["currencyCode"]?.prefix(8) ?? "")"
                )
            }
            return .succeeded(amount: money, reference: m["queryId"])
        case .unknown: return .pending(reason: "origRespCode \(code): \(code.meaning)")
        case .notFound: return .notFound
        case .moneyTaken: return .moneyTaken(code: code.rawValue, message: code.meaning)
        case .duplicate, .throttled, .failure:
            return .failed(code: code.rawValue, message: message ?? code.meaning)
        }
    }

    public func parseNotification(_ body: String) throws -> AcquirerNotification {
        let message = try client.notification(body)
        let identity = TransactionIdentity(
            orderId: try message.required("orderId"),
            txnTime: try message.required("txnTime")
        )
        let code = ResponseCode(try message.required("respCode"))
        let key = [identity.orderId, identity.txnTime, message["txnType"] ?? "", code.rawValue].joined(separator: "|")
        return AcquirerNotification(
            identity: identity,
            deduplicationKey: key,
            status: status(code: code, message, message: message["respMsg"]),
            raw: body
        )
    }
}
