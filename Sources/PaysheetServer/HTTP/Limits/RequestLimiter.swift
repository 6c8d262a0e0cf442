import Foundation
import NIOConcurrencyHelpers

/// The request limits of one server (``ServerConfiguration/RequestLimits``): anonymous orders and
/// coupon attempts per client address. Each server counts its own callers; several servers behind
/// one proxy each allow the rate (see docs/server.md, "Limits").
final class RequestLimiter: Sendable {
    /// What is limited.
    enum Kind: String, Sendable {
        case anonymousOrder = "orders"
        case couponAttempt = "coupon codes"
        case walletOrderLog = "Wallet order log messages"
    }

    let rules: [Kind: TokenBuckets.Rule]
    private let buckets = NIOLockedValueBox(TokenBuckets())

    init(_ limits: ServerConfiguration.RequestLimits) {
        rules = [
            .anonymousOrder: .init(capacity: limits.anonymousOrdersPerMinute, period: 60),
            .couponAttempt: .init(capacity: limits.couponAttemptsPerMinute, period: 60),
            // A device logs its errors with an order now and then; more is someone filling the logs.
            .walletOrderLog: .init(capacity: 60, period: 60),
        ]
    }

    /// Takes one `kind` for `client` at `now`; throws 429 with `Retry-After` when over the rate.
    func take(_ kind: Kind, client: String, now: Date) throws {
        guard let rule = rules[kind] else { return }
        let decision = buckets.withLockedValue {
            $0.take(kind.rawValue + " " + client, rule: rule, now: now.timeIntervalSinceReferenceDate)
        }
        if case .refused(let seconds) = decision {
            throw ServiceError(
                .tooManyRequests,
                code: "rate_limited",
                message:
                    "too many \(kind.rawValue) from this client (at most \(rule.capacity) a minute); retry in \(seconds) s",
                retryAfter: seconds
            )
        }
    }
}
