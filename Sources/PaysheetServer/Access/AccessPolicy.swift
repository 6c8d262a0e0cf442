import PaysheetPayments
import Foundation
import HTTPTypes
import Hummingbird

/// What a request's `Authorization: Bearer …` header carries.
enum Credential: Sendable, Equatable {
    /// No `Authorization` header.
    case none
    /// A merchant API key (`psk_…`).
    case merchantKey(String)
    /// An order's client secret (`pcs_…`).
    case clientSecret(String)
    /// Something else: never valid.
    case unusable

    /// Whether it names a merchant API key (valid or not: the key is checked after).
    var isMerchantKey: Bool {
        if case .merchantKey = self { return true }
        return false
    }

    init(_ request: Request) {
        guard let header = request.headers[.authorization] else {
            self = .none
            return
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, Self.isBearer(parts[0]) else {
            self = .unusable
            return
        }
        let value = Self.trimmed(parts[1])
        if value.hasPrefix(APIKeys.prefix) {
            self = .merchantKey(value)
        } else if value.hasPrefix(AccessPolicy.clientSecretPrefix) {
            self = .clientSecret(value)
        } else {
            self = .unusable
        }
    }

    /// Whether `scheme` is `Bearer` in any case (ASCII compared in place; anything else as
    /// `lowercased()` has it).
    static func isBearer(_ scheme: Substring) -> Bool {
        guard scheme.utf8.allSatisfy({ $0 < 0x80 }) else { return scheme.lowercased() == "bearer" }
        return scheme.utf8.count == 6 && zip(scheme.utf8, "bearer".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// `value` without leading and trailing white space: Foundation's `trimmingCharacters(in:
    /// .whitespaces)`, which is only called when there is something to trim or the text is not
    /// ASCII (a credential as sent is neither; the call was 0.6 % of the server's CPU, made on
    /// every request two or three times).
    static func trimmed(_ value: Substring) -> String {
        let utf8 = value.utf8
        if let first = utf8.first, let last = utf8.last, first != 0x20, first != 0x09, last != 0x20, last != 0x09,
            utf8.allSatisfy({ $0 < 0x80 })
        {
            return String(value)
        }
        return String(value).trimmingCharacters(in: .whitespaces)
    }
}

/// Who may call what. Every route of the merchant server has one owner:
///
/// - **anyone**: `/health`, the catalog, the notification route (the gateway's signature is checked
///   there), the sandbox's published certificate, `paysheet.js`, its bridge and the demo store,
///   the merchant console's page (`/console`: static, it holds no data);
/// - **the order's client secret or a merchant key**: the sheet's endpoints of that order, its
///   shopper's view, its cancel;
/// - **the first order's client secret or a merchant key**: an agreement's view and its cancel
///   (the shopper's subscription page);
/// - **a merchant key**: orders with free-form lines or their own shipping methods, the full
///   order view, listing orders, agreements and reconciliations, refunds, voids,
///   merchant-initiated charges of an agreement, reconciliations, `/metrics`.
///
/// A missing or unusable credential is 401 and nothing changes; another order's client secret is
/// 404, as if the order did not exist (ids are not confirmed to someone without its secret).
struct AccessPolicy: Sendable {
    let keys: APIKeys
    let store: PaymentStore
    /// Where this server's keys are and how to make one, told with an unknown key's 401 (no secret:
    /// a sandbox server names its database, a production server only the command).
    var unknownKeyHint = "keys are made with `paysheet api-key create` against this server's database"

    static let clientSecretPrefix = "pcs_"

    /// A new client secret: `pcs_` and 256 random bits.
    static func newClientSecret() -> String { Secrets.make(clientSecretPrefix) }

    /// The merchant key of `request`, verified; 401 otherwise.
    func merchant(_ request: Request) async throws -> APIKeyRecord {
        switch Credential(request) {
        case .merchantKey(let key):
            guard let record = try await keys.verify(key) else {
                throw ServiceError.unauthorized("the API key is not valid here (unknown or revoked): \(unknownKeyHint)")
            }
            return record
        case .none:
            throw ServiceError.unauthorized("this call needs a merchant API key: Authorization: Bearer psk_…")
        case .clientSecret:
            throw ServiceError.unauthorized(
                "this call needs a merchant API key; an order's client secret does not allow it"
            )
        case .unusable:
            throw ServiceError.unauthorized("the Authorization header is not Bearer and a Paysheet credential")
        }
    }

    /// Whether `request` carries a merchant key; a key that does not verify is 401 (a caller who
    /// means to be the merchant must not be served as a shopper).
    func optionalMerchant(_ request: Request) async throws -> APIKeyRecord? {
        switch Credential(request) {
        case .none, .clientSecret: return nil
        case .merchantKey, .unusable: return try await merchant(request)
        }
    }

    /// Who may act on an order.
    enum OrderCaller: Sendable {
        /// The merchant (a verified key).
        case merchant(APIKeyRecord)
        /// The shopper holding the order's client secret.
        case shopper
    }

    /// The order `id` if `request` may act on it: a merchant key, or this order's client secret.
    func order(_ id: String, _ request: Request) async throws -> (OrderRecord, OrderCaller) {
        let (order, _, caller) = try await orderAndPayments(id, request)
        return (order, caller)
    }

    /// The agreement `id` if `request` may see or cancel it: a merchant key, or the client secret
    /// of the order that started it (another secret: 404, as for orders).
    func agreement(_ id: String, _ request: Request) async throws -> (AgreementRecord, OrderCaller) {
        switch Credential(request) {
        case .clientSecret:
            guard let agreement = try await store.agreement(id) else { throw ServiceError.notFound("agreement \(id)") }
            do { _ = try await order(agreement.orderId, request) } catch let e as ServiceError where e.kind == .notFound
            {
                throw ServiceError.notFound("agreement \(id)")
            }
            return (agreement, .shopper)
        case .none:
            throw ServiceError.unauthorized(
                "this call needs the client secret of the agreement's order (or a merchant API key): Authorization: Bearer pcs_…"
            )
        case .merchantKey, .unusable:
            let key = try await merchant(request)
            guard let agreement = try await store.agreement(id) else { throw ServiceError.notFound("agreement \(id)") }
            return (agreement, .merchant(key))
        }
    }

    /// The caller of an order route, with the order and its payments as read to check it (one
    /// statement; the authorization starts from them rather than reading them again).
    func orderAndPayments(_ id: String, _ request: Request) async throws -> (OrderRecord, [PaymentRecord], OrderCaller)
    {
        let (order, payments, caller, _) = try await orderAndPayments(id, request, claiming: nil)
        return (order, payments, caller)
    }

    /// ``orderAndPayments(_:_:)``, claiming a shopper's idempotency key `claim` in the statement
    /// that reads the order when its client secret is the caller's (`claimed`; see
    /// ``PaymentStore/orderAndPayments(_:claiming:ifSecretHash:)``). A merchant's key is not
    /// claimed here (`claimed` is `false`): it is checked against another table first.
    func orderAndPayments(
        _ id: String,
        _ request: Request,
        claiming claim: PaymentStore.IdempotencyRequest?
    ) async throws -> (OrderRecord, [PaymentRecord], OrderCaller, claimed: Bool) {
        switch Credential(request) {
        case .clientSecret(let secret):
            let read: (order: OrderRecord, payments: [PaymentRecord], claimed: Bool)?
            if let claim {
                read = try await store.orderAndPayments(id, claiming: claim, ifSecretHash: Secrets.hash(secret))
            } else {
                read = try await store.orderAndPayments(id).map { ($0.order, $0.payments, false) }
            }
            guard let (order, payments, claimed) = read, let hash = order.clientSecretHash,
                Secrets.matches(secret, storedHash: hash)
            else {
                // Not reached with a claim (the statement compared the same hashes); never kept for a stranger.
                if let claim, read?.claimed == true { try? await store.releaseIdempotency(key: claim.key) }
                throw ServiceError.notFound("order \(id)")
            }
            return (order, payments, .shopper, claimed)
        case .none:
            throw ServiceError.unauthorized(
                "this call needs the order's client secret (or a merchant API key): Authorization: Bearer pcs_…"
            )
        case .merchantKey, .unusable:
            let key = try await merchant(request)
            guard let (order, payments) = try await store.orderAndPayments(id) else {
                throw ServiceError.notFound("order \(id)")
            }
            return (order, payments, .merchant(key), false)
        }
    }
}
