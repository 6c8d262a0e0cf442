import Foundation
import PaysheetModel
import PaysheetPayments
import PaysheetToken

/// Orders in Wallet: the order details of paid orders and Apple's order web service over them.
///
/// A paid order's authentication token is a random secret (`pwo_` and 256 bits) issued when the
/// payment succeeds (in the authorization's answer, `result.orderDetails`) or when the merchant
/// asks for a new one (which replaces the earlier ones); only its SHA-256 is stored, and a
/// presented token is compared with every stored one in constant time. A token is accepted for
/// `walletOrders.tokenLifetime` after it was issued. The order web service (`webServiceURL` +
/// `/v1/orders/…`, `/v1/devices/…`, `/v1/log`) serves the order's signed package and keeps the
/// devices registered for its updates; an order's `updatedAt` is the last change of its payments
/// (or its cancel), so refunds and cancels reach "changes since".
public struct WalletOrderService: Sendable {
    let store: PaymentStore
    /// Builds `order.json`.
    let orderJSON: WalletOrderJSON
    /// Signs packages.
    let signer: OrderPackageSigner
    /// Seconds a token is accepted after it was issued.
    let tokenLifetime: TimeInterval
    let now: @Sendable () -> Date

    /// The prefix of authentication tokens.
    static let tokenPrefix = "pwo_"
    /// Devices one order may have registered.
    static let devicesPerOrder = 100
    /// Orders one device's changes answer lists at most.
    static let ordersPerDevice = 1_000

    /// The order type identifier.
    public var orderTypeIdentifier: String { orderJSON.orderTypeIdentifier }
    /// The web service's URL (what `orderDetails.webServiceURL` names).
    public var webServiceURL: String { orderJSON.webServiceURL }

    /// A service for `store`'s orders: issued under `orderTypeIdentifier`, served at
    /// `webServiceURL` (this server's public URL + `/wallet-orders`), signed by `signer` (whose
    /// certificate must name `orderTypeIdentifier`).
    init(
        store: PaymentStore,
        settings: MerchantSettings,
        walletOrders: WalletOrderSettings,
        publicURL: String,
        signer: OrderPackageSigner,
        now: @escaping @Sendable () -> Date
    ) throws {
        let type = walletOrders.typeIdentifier(merchant: settings)
        guard signer.orderTypeIdentifier == type else {
            throw ConfigurationError(
                "walletOrders: the Order Type ID certificate names \(signer.orderTypeIdentifier ?? "no order type"), not \(type)"
            )
        }
        self.store = store
        self.orderJSON = WalletOrderJSON(
            orderTypeIdentifier: type,
            webServiceURL: publicURL + Self.basePath,
            orderManagementURL: walletOrders.orderManagementURL ?? publicURL + "/store/order?id={orderIdentifier}",
            storeURL: publicURL + "/",
            settings: settings
        )
        self.signer = signer
        self.tokenLifetime = walletOrders.tokenLifetime
        self.now = now
    }

    /// Where the order web service's routes are, under the server's public URL.
    static let basePath = "/wallet-orders"

    // MARK: Issuing

    /// A new authentication token for the paid order `orderId`, and the order details a page
    /// passes to `completePayment` with it. `replacing`: every earlier token of the order stops
    /// working (the merchant's reissue). 404 for an unknown order; 409 `order_not_paid` unless it
    /// is paid.
    public func issue(orderId: String, replacing: Bool) async throws -> ApplePayPaymentOrderDetails {
        guard let order = try await store.order(orderId) else { throw ServiceError.notFound("order \(orderId)") }
        let (details, token) = try prepare(for: order)
        try await store.insertWalletOrderToken(token, replacing: replacing)
        return details
    }

    /// A new authentication token for the paid `order` and the order details carrying it, with the
    /// token's record still to be stored (by the caller, before anyone is given the details): the
    /// authorization's answer stores it with its idempotency key's answer, one commit for both.
    /// 409 `order_not_paid` unless the order is paid.
    func prepare(for order: OrderRecord) throws -> (details: ApplePayPaymentOrderDetails, token: WalletOrderToken) {
        guard order.status == .paid else {
            throw ServiceError(
                .conflict,
                code: "order_not_paid",
                message: "order \(order.id) is \(order.status.rawValue): Wallet orders are issued for paid orders only"
            )
        }
        let token = Secrets.make(Self.tokenPrefix)
        let record = WalletOrderToken(
            hash: Secrets.hash(token),
            orderId: order.id,
            orderTypeIdentifier: orderTypeIdentifier,
            issuedAt: now(),
            revokedAt: nil
        )
        let details = ApplePayPaymentOrderDetails(
            orderTypeIdentifier: orderTypeIdentifier,
            orderIdentifier: order.id,
            webServiceURL: webServiceURL,
            authenticationToken: token
        )
        return (details, record)
    }

    // MARK: The web service

    /// The token of an `Authorization: AppleOrder …` header.
    static func token(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0] == "AppleOrder" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// The order `orderId` of type `type` with its payments, if `authorization` carries one of
    /// its tokens, not replaced and not expired; otherwise 401 (`unauthorized`, `stale_token`,
    /// `token_expired`), whatever the order (an unknown order is a token that matches nothing).
    func authenticate(
        type: String,
        orderId: String,
        authorization: String?
    ) async throws -> (order: OrderRecord, payments: [PaymentRecord], token: String) {
        guard let token = Self.token(authorization) else {
            throw ServiceError.unauthorized(
                "this call needs the order's token: Authorization: AppleOrder <authenticationToken>"
            )
        }
        let presented = Array(Secrets.hash(token).utf8)
        let stored =
            type == orderTypeIdentifier
            ? try await store.walletOrderTokens(orderId: orderId, orderTypeIdentifier: type) : []
        // Every stored hash is compared in full, whichever matches.
        var match: WalletOrderToken?
        for candidate in stored where constantTimeEqual(presented, Array(candidate.hash.utf8)) { match = candidate }
        guard let match else {
            throw ServiceError.unauthorized("the authentication token is not valid for order \(type)/\(orderId)")
        }
        if match.revokedAt != nil {
            throw ServiceError(
                .unauthorized,
                code: "stale_token",
                message:
                    "this authentication token of order \(orderId) was replaced by a newer one; the order's page or merchant has it"
            )
        }
        if now().timeIntervalSince(match.issuedAt) > tokenLifetime {
            throw ServiceError(
                .unauthorized,
                code: "token_expired",
                message:
                    "this authentication token of order \(orderId) was issued \(Timestamp.text(match.issuedAt)) and was accepted for \(Int(tokenLifetime / 86_400)) days"
            )
        }
        guard let (order, payments) = try await store.orderAndPayments(orderId) else {
            throw ServiceError.unauthorized("the authentication token is not valid for order \(type)/\(orderId)")
        }
        return (order, payments, token)
    }

    /// When `order` last changed as Wallet sees it: its payments' last transition, or its cancel.
    func updatedAt(_ order: OrderRecord, payments: [PaymentRecord]) async throws -> Date {
        var latest = order.createdAt
        for events in try await store.events(payments: payments.map(\.id)).values {
            for event in events where event.at > latest { latest = event.at }
        }
        if let canceled = order.canceledAt, canceled > latest { latest = canceled }
        return latest
    }

    /// The signed package of `order` carrying `token`, and when the order last changed.
    func package(
        _ order: OrderRecord,
        payments: [PaymentRecord],
        token: String
    ) async throws -> (package: Data, lastModified: Date) {
        let updated = try await updatedAt(order, payments: payments)
        let json = orderJSON.json(order, updatedAt: updated, token: token)
        let files: [(name: String, contents: Data)] = [
            ("order.json", Data(json.compactText.utf8)),
            (WalletOrderJSON.logoFile, WalletOrderJSON.logo),
        ]
        do {
            return (
                try WalletOrderPackage.build(files, signer: signer, signingTime: now(), modified: updated),
                updated
            )
        } catch {
            throw ServiceError(
                .internalFailure,
                code: "signing_failed",
                message: "the order package could not be signed"
            )
        }
    }

    /// A device identifier Wallet sends: 1 to 128 letters, digits, `.`, `_` or `-`.
    static func checkDevice(_ id: String) throws {
        guard (1...128).contains(id.utf8.count),
            id.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D })
        else {
            throw ServiceError.invalid(
                "deviceIdentifier",
                "a device identifier is 1 to 128 letters, digits, dots, underscores or hyphens"
            )
        }
    }

    /// Registers `device` for the updates of the order it authenticated for with `pushToken`;
    /// `true` when new. 400 for a push token that is not 1 to 512 printable characters; 429
    /// `too_many_devices` past ``devicesPerOrder``.
    func register(device: String, orderId: String, pushToken: String) async throws -> Bool {
        try Self.checkDevice(device)
        guard (1...512).contains(pushToken.utf8.count), pushToken.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ServiceError.invalid("pushToken", "pushToken is 1 to 512 printable characters")
        }
        let registration = WalletOrderRegistration(
            deviceIdentifier: device,
            orderTypeIdentifier: orderTypeIdentifier,
            orderId: orderId,
            pushToken: pushToken
        )
        guard
            let created = try await store.registerWalletOrderDevice(
                registration,
                at: now(),
                limit: Self.devicesPerOrder
            )
        else {
            throw ServiceError(
                .tooManyRequests,
                code: "too_many_devices",
                message: "order \(orderId) has \(Self.devicesPerOrder) devices registered for its updates already"
            )
        }
        return created
    }

    /// Removes `device`'s registration for `orderId`; 404 `not_registered` when it had none.
    func unregister(device: String, orderId: String) async throws {
        try Self.checkDevice(device)
        guard
            try await store.unregisterWalletOrderDevice(
                deviceIdentifier: device,
                orderTypeIdentifier: orderTypeIdentifier,
                orderId: orderId
            )
        else {
            throw ServiceError(
                .notFound,
                code: "not_registered",
                message: "this device is not registered for the updates of order \(orderId)"
            )
        }
    }

    /// The orders of `type` that `device` registered for which changed after `since` (the
    /// `lastModified` of an earlier answer: milliseconds since 1970), and the new `lastModified`;
    /// `nil` when none.
    func changes(device: String, type: String, since: String?) async throws -> (orders: [String], lastModified: String)?
    {
        try Self.checkDevice(device)
        var after: Int?
        if let since {
            guard let value = Int(since), value >= 0 else {
                throw ServiceError.invalid(
                    "ordersModifiedSince",
                    "ordersModifiedSince is the lastModified of an earlier answer (a whole number)"
                )
            }
            after = value
        }
        guard type == orderTypeIdentifier else { return nil }
        var changed: [String] = []
        var latest = -1
        for orderId in try await store.walletOrderRegistrations(
            deviceIdentifier: device,
            orderTypeIdentifier: type,
            limit: Self.ordersPerDevice
        ) {
            guard let (order, payments) = try await store.orderAndPayments(orderId) else { continue }
            let updated = PaymentStore.ms(try await updatedAt(order, payments: payments))
            if let after, updated <= after { continue }
            changed.append(orderId)
            latest = max(latest, updated)
        }
        return changed.isEmpty ? nil : (changed, String(latest))
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
