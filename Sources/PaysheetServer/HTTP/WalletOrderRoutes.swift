import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PaysheetModel
import PaysheetPayments

/// Orders in Wallet over HTTP: the merchant's route that issues an order's details anew, and
/// Apple's order web service under `/wallet-orders` (the `webServiceURL` of the order details),
/// with Apple's paths, status codes and field names. Owners:
///
/// - `POST /v1/orders/{id}/wallet-order`: a merchant key (a new token; the earlier ones stop working);
/// - `GET /wallet-orders/v1/orders/{orderTypeIdentifier}/{orderIdentifier}`, `POST` and `DELETE
///   /wallet-orders/v1/devices/{deviceIdentifier}/registrations/{orderTypeIdentifier}/{orderIdentifier}`:
///   the order's token (`Authorization: AppleOrder …`), checked before the body is read;
/// - `GET /wallet-orders/v1/devices/{deviceIdentifier}/registrations/{orderTypeIdentifier}`: anyone
///   who knows the device's identifier (Wallet sends no token there);
/// - `POST /wallet-orders/v1/log`: anyone (at most ``logLimit`` bytes and 60 a minute per client;
///   logged, never stored).
extension APIRouter {
    /// Bytes of a registration's body at most.
    static let registrationLimit = 4 * 1024
    /// Bytes of a log message's body at most.
    static let logLimit = 16 * 1024

    func addWalletOrderRoutes(_ router: Router<APIRequestContext>) {
        addWalletOrderIssueRoute(router)
        guard let walletOrders else { return }
        let base = WalletOrderService.basePath + "/v1"
        addWalletOrderPackageRoute(router, base: base, walletOrders)
        addWalletOrderRegistrationRoutes(router, base: base, walletOrders)
        addWalletOrderDeviceRoutes(router, base: base, walletOrders)
    }

    /// A merchant key: a new token for a paid order (every earlier one of the order stops working).
    func addWalletOrderIssueRoute(_ router: Router<APIRequestContext>) {
        mutating(
            router,
            "/v1/orders/:id/wallet-order",
            authorize: { request, context in
                let id = try orderId(context)
                let key = try await access.merchant(request)
                return (id: id, scope: Self.scope(key))
            },
            scope: { $0.scope }
        ) { _, _, caller in
            guard let walletOrders else {
                throw ServiceError(
                    .notFound,
                    code: "wallet_orders_off",
                    message:
                        "this server issues no Wallet orders (walletOrders is off or has no Order Type ID certificate)"
                )
            }
            let details = try await walletOrders.issue(orderId: caller.id, replacing: true)
            return try APIAnswer(WalletOrderDetailsView(orderDetails: details), status: 201)
        }
    }

    /// The order's token: its latest signed package (304 when not modified since If-Modified-Since).
    func addWalletOrderPackageRoute(
        _ router: Router<APIRequestContext>,
        base: String,
        _ walletOrders: WalletOrderService
    ) {
        router.get(RouterPath(stringLiteral: base + "/orders/:type/:order")) { request, context -> Response in
            let (order, payments, token) = try await walletOrders.authenticate(
                type: context.parameters.get("type") ?? "",
                orderId: context.parameters.get("order") ?? "",
                authorization: request.headers[.authorization]
            )
            let modified = try await walletOrders.updatedAt(order, payments: payments)
            let lastModified = HTTPDate.text(modified)
            if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.date),
                modified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
            {
                return Response(status: .notModified, headers: [.lastModified: lastModified])
            }
            let (package, _) = try await walletOrders.package(order, payments: payments, token: token)
            return Response(
                status: .ok,
                headers: [
                    .contentType: WalletOrderPackage.contentType, .lastModified: lastModified,
                    .cacheControl: "no-cache",
                ],
                body: .init(byteBuffer: ByteBuffer(data: package))
            )
        }
    }

    /// The order's token: a device registers for the order's updates (201 new, 200 known), or no
    /// longer wants them.
    func addWalletOrderRegistrationRoutes(
        _ router: Router<APIRequestContext>,
        base: String,
        _ walletOrders: WalletOrderService
    ) {
        router.post(RouterPath(stringLiteral: base + "/devices/:device/registrations/:type/:order")) {
            request,
            context -> Response in
            let (order, _, _) = try await walletOrders.authenticate(
                type: context.parameters.get("type") ?? "",
                orderId: context.parameters.get("order") ?? "",
                authorization: request.headers[.authorization]
            )
            guard let body = try? await request.body.collect(upTo: Self.registrationLimit) else {
                throw ServiceError(
                    .tooLarge,
                    code: "body_too_large",
                    message: "a registration is at most \(Self.registrationLimit) bytes"
                )
            }
            let registration = try JSONBody.decode(WalletOrderRegistrationBody.self, from: body)
            let created = try await walletOrders.register(
                device: context.parameters.get("device") ?? "",
                orderId: order.id,
                pushToken: registration.pushToken
            )
            return Response(status: created ? .created : .ok)
        }
        router.delete(RouterPath(stringLiteral: base + "/devices/:device/registrations/:type/:order")) {
            request,
            context -> Response in
            let (order, _, _) = try await walletOrders.authenticate(
                type: context.parameters.get("type") ?? "",
                orderId: context.parameters.get("order") ?? "",
                authorization: request.headers[.authorization]
            )
            try await walletOrders.unregister(device: context.parameters.get("device") ?? "", orderId: order.id)
            return Response(status: .ok)
        }
    }

    /// Anyone: what changed for a device (its identifier is the key), and the device's log.
    func addWalletOrderDeviceRoutes(
        _ router: Router<APIRequestContext>,
        base: String,
        _ walletOrders: WalletOrderService
    ) {
        // Anyone with the device's identifier: which of its orders changed since ordersModifiedSince (204: none).
        router.get(RouterPath(stringLiteral: base + "/devices/:device/registrations/:type")) {
            request,
            context -> Response in
            let since = request.uri.queryParameters["ordersModifiedSince"].map(String.init)
            guard
                let (orders, lastModified) = try await walletOrders.changes(
                    device: context.parameters.get("device") ?? "",
                    type: context.parameters.get("type") ?? "",
                    since: since
                )
            else {
                return Response(status: .noContent)
            }
            return try JSONBody.response(
                WalletOrderIdentifiersView(orderIdentifiers: orders, lastModified: lastModified)
            )
        }
        // Anyone: the device's error messages, logged (never stored), at most logLimit bytes.
        router.post(RouterPath(stringLiteral: base + "/log")) { request, context -> Response in
            try take(.walletOrderLog, request, context)
            guard let body = try? await request.body.collect(upTo: Self.logLimit) else {
                throw ServiceError(
                    .tooLarge,
                    code: "body_too_large",
                    message: "a log message is at most \(Self.logLimit) bytes"
                )
            }
            let log = try JSONBody.decode(WalletOrderLogBody.self, from: body)
            guard log.logs.count <= 100 else { throw ServiceError.invalid("logs", "at most 100 messages at once") }
            for message in log.logs {
                let printable = String(
                    message.unicodeScalars.prefix(1_000).map { $0.value < 0x20 ? " " : Character($0) }
                )
                context.logger.info("wallet order web service: a device reports: \(printable)")
            }
            return Response(status: .ok)
        }
    }
}

/// `{"orderDetails": …}`: what `POST /v1/orders/{id}/wallet-order` answers.
struct WalletOrderDetailsView: Encodable {
    var orderDetails: ApplePayPaymentOrderDetails
}

/// Apple's `OrderIdentifiers`: the orders that changed, and the time to ask from next.
struct WalletOrderIdentifiersView: Encodable {
    var orderIdentifiers: [String]
    var lastModified: String
}

/// Apple's `PushToken`: a registration's body.
struct WalletOrderRegistrationBody: Decodable {
    var pushToken: String
}

/// Apple's `LogEntries`: a log message's body.
struct WalletOrderLogBody: Decodable {
    var logs: [String]
}

/// HTTP dates (`Sun, 06 Nov 1994 08:49:37 GMT`), for `Last-Modified` and `If-Modified-Since`.
enum HTTPDate {
    static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    /// `date` as an HTTP date (to the second, rounded down).
    static func text(_ date: Date) -> String {
        formatter().string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }

    /// The date of an HTTP date (IMF-fixdate); `nil` for anything else (ignored, as RFC 9110 says).
    static func date(_ text: String) -> Date? { formatter().date(from: text) }
}

extension APIRouter {
    /// The authorization's result for `completePayment`, with the order's details for Wallet
    /// when the payment succeeded and the server issues Wallet orders (a token issued now). A
    /// token that cannot be stored leaves the result without them: the payment stands.
    /// The authorization's result with its Wallet order details when the order is paid, and the
    /// token's record that must be stored before the answer leaves (`APIAnswer.walletOrderToken`).
    func walletOrderResult(
        _ outcome: AuthorizationOutcome
    ) -> (result: ApplePayPaymentAuthorizationResult, token: WalletOrderToken?) {
        var result = outcome.result
        guard let walletOrders, result.status == ApplePayStatus.success.rawValue, outcome.order.status == .paid,
            let (details, token) = try? walletOrders.prepare(for: outcome.order)
        else {
            return (result, nil)
        }
        result.orderDetails = details
        return (result, token)
    }
}
