import PaysheetPayments
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import PaysheetModel
import PaysheetToken
import Prometheus
import Tracing

/// Routes added to the merchant server's router, after its middlewares and before its own
/// routes; `trustedProxies` are those whose `X-Forwarded-For` names the client.
package typealias ExtraRoutes =
    @Sendable (_ router: Router<APIRequestContext>, _ trustedProxies: [String]) throws -> Void

/// The merchant server's HTTP API (`/v1/…`), `/health` and `/metrics`. `docs/openapi.yaml`
/// describes it; CI checks the two against each other. Every route names its owner (see
/// `AccessPolicy`); the credential is checked before the body is read or anything is written.
public struct APIRouter: Sendable {
    let orders: OrderService
    let payments: PaymentService
    let validator: MerchantValidator
    let store: PaymentStore
    let registry: PrometheusCollectorRegistry?
    let sandboxMerchantCertificate: String?
    let idempotency: Idempotency
    /// The browser's tools (`paysheet.js`, its bridge, the demo store), when served.
    let browser: ExtraRoutes?
    let access: AccessPolicy
    let mode: ServerMode
    /// Raised while the server drains (shutting down).
    let draining: Flag
    /// The daily reconciliation, run on demand by `POST /v1/reconciliations`.
    let reconciliation: ReconciliationService?
    /// Anonymous orders and coupon attempts per client.
    let limiter: RequestLimiter
    /// When a write last found the disk full.
    let storageFull = StorageAlarm()
    /// Proxies whose `X-Forwarded-For` names the client.
    let trustedProxies: [String]
    /// Merchant-token life-cycle notifications (``addTokenNotificationRoutes(_:)``), when received.
    let tokenNotifications: MerchantTokenNotifications?
    /// Orders in Wallet (`nil`: none issued; `WalletOrderRoutes.swift`).
    let walletOrders: WalletOrderService?

    /// A router over the services; `registry` serves `/metrics`; `sandboxMerchantCertificate`
    /// (PEM) is published at `/v1/sandbox/merchant` for `paysheet pay`; `browser` (when given)
    /// adds `paysheet.js`, its bridge and the demo store at `/`; `apiKeysHint` is told with an
    /// unknown API key's 401 (where this server's keys are, how to make one).
    init(
        orders: OrderService,
        payments: PaymentService,
        validator: MerchantValidator,
        store: PaymentStore,
        registry: PrometheusCollectorRegistry?,
        sandboxMerchantCertificate: String?,
        browser: ExtraRoutes? = nil,
        mode: ServerMode = .sandbox,
        draining: Flag = Flag(),
        reconciliation: ReconciliationService? = nil,
        limits: ServerConfiguration.RequestLimits = .init(),
        tokenNotifications: MerchantTokenNotifications? = nil,
        walletOrders: WalletOrderService? = nil,
        apiKeysHint: String? = nil
    ) {
        self.tokenNotifications = tokenNotifications
        self.walletOrders = walletOrders
        self.limiter = RequestLimiter(limits)
        self.trustedProxies = limits.trustedProxies
        self.draining = draining
        self.reconciliation = reconciliation
        self.browser = browser
        self.orders = orders
        self.payments = payments
        self.validator = validator
        self.store = store
        self.registry = registry
        self.sandboxMerchantCertificate = sandboxMerchantCertificate
        self.idempotency = Idempotency(
            store: store,
            now: orders.now,
            sealingKey: payments.vault?.keyBytes ?? Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        )
        var access = AccessPolicy(keys: APIKeys(store: store, now: orders.now), store: store)
        if let apiKeysHint { access.unknownKeyHint = apiKeysHint }
        self.access = access
        self.mode = mode
    }

    static let maxBody = 256 * 1024
    typealias Context = APIRequestContext

    func orderId(_ context: Context) throws -> String {
        guard let id = context.parameters.get("id") else { throw APIError.notFound("order") }
        return id
    }

    func view(_ id: String, for audience: OrderView.Audience, withRequest: Bool = false) async throws -> OrderView {
        guard let order = try await store.order(id) else { throw APIError.notFound("order \(id)") }
        return try await OrderView.make(order, service: orders, store: store, withRequest: withRequest, for: audience)
    }

    /// A mutating route: the caller checked by `authorize` first, then the body read and
    /// idempotency applied (keys are scoped by the caller: the merchant's key, the order, or
    /// `anonymous`), then `handler`.
    func mutating<Caller: Sendable>(
        _ router: Router<Context>,
        _ path: RouterPath,
        authorize: @escaping @Sendable (Request, Context) async throws -> Caller,
        scope: @escaping @Sendable (Caller) -> String,
        _ handler: @escaping @Sendable (ByteBuffer, Context, Caller) async throws -> APIAnswer
    ) {
        router.post(path) { request, context -> Response in
            let caller = try await authorize(request, context)
            guard let body = await body(of: request) else { return Self.bodyTooLarge }
            return try await idempotency.run(request, body: body, scope: scope(caller)) {
                try await handler(body, context, caller)
            }
        }
    }

    /// `request`'s body, or `nil` when it is larger than ``maxBody`` (answered ``bodyTooLarge``).
    func body(of request: Request) async -> ByteBuffer? {
        try? await request.body.collect(upTo: Self.maxBody)
    }

    static var bodyTooLarge: Response {
        JSONBody.error(
            APIError(status: 413, code: "body_too_large", message: "the request body is larger than \(maxBody) bytes")
        )
    }

    /// A sheet route of one order: the order's client secret or a merchant key.
    func orderRoute(
        _ router: Router<Context>,
        _ path: RouterPath,
        limitedAs limit: RequestLimiter.Kind? = nil,
        _ handler: @escaping @Sendable (ByteBuffer, String, AccessPolicy.OrderCaller) async throws -> APIAnswer
    ) {
        orderRoute(router, path, limitedAs: limit) { body, id, caller, _ in try await handler(body, id, caller) }
    }

    /// A sheet route handed the order and its payments as read to check the caller.
    ///
    /// A shopper's `Idempotency-Key` is claimed by the statement that reads the order and checks
    /// its client secret (on PostgreSQL; see ``AccessPolicy/orderAndPayments(_:_:claiming:)``), so
    /// a shopper's body is read before the check: the key's fingerprint is made from it.
    func orderRoute(
        _ router: Router<Context>,
        _ path: RouterPath,
        limitedAs limit: RequestLimiter.Kind? = nil,
        _ handler:
            @escaping @Sendable (ByteBuffer, String, AccessPolicy.OrderCaller, (OrderRecord, [PaymentRecord]))
            async throws -> APIAnswer
    ) {
        router.post(path) { request, context -> Response in
            let id = try orderId(context)
            // The shopper's page is limited per client; the merchant's back end (its key) is not.
            if let limit, !Credential(request).isMerchantKey { try take(limit, request, context) }
            var early: (body: ByteBuffer, key: Idempotency.Key)?
            if case .clientSecret = Credential(request) {
                guard let body = await body(of: request) else { return Self.bodyTooLarge }
                early = (body, idempotency.key(request, body: body, scope: Self.scope(.shopper, order: id)))
            }
            let (order, payments, caller, claimed) = try await access.orderAndPayments(
                id,
                request,
                claiming: early?.key.request
            )
            let body: ByteBuffer
            let key: Idempotency.Key
            if let early {
                (body, key) = early
            } else {
                guard let read = await self.body(of: request) else { return Self.bodyTooLarge }
                (body, key) = (read, idempotency.key(request, body: read, scope: Self.scope(caller, order: id)))
            }
            return try await idempotency.run(key, claimed: claimed) {
                try await handler(body, id, caller, (order, payments))
            }
        }
    }

    /// The idempotency scope of `caller` acting on the order `order`: the merchant's key, or the
    /// order (whose client secret the shopper holds).
    /// One `kind` of request from the request's client (429 over its rate).
    func take(_ kind: RequestLimiter.Kind, _ request: Request, _ context: Context) throws {
        try limiter.take(kind, client: context.client(of: request, trustedProxies: trustedProxies), now: orders.now())
    }

    static func scope(_ caller: AccessPolicy.OrderCaller, order: String) -> String {
        switch caller {
        case .merchant(let key): return scope(key)
        case .shopper: return "order:" + order
        }
    }

    /// The idempotency scope of a merchant's key.
    static func scope(_ key: APIKeyRecord) -> String { "merchant:" + key.id }

    static func audience(_ caller: AccessPolicy.OrderCaller) -> OrderView.Audience {
        switch caller {
        case .merchant: return .merchant
        case .shopper: return .shopper
        }
    }

    /// The routes.
    public func router() throws -> Router<APIRequestContext> {
        let router = Router(context: APIRequestContext.self)
        // First: a server span per request, continuing the caller's W3C trace context
        // (`traceparent`); no header is recorded (the Authorization header carries secrets).
        // Only while the process has an instrument (a tracer, or a propagator alone).
        router.middlewares.add(TracingWhenInstrumented())
        router.middlewares.add(ModeMiddleware(mode: mode))
        router.middlewares.add(ErrorMiddleware(storageFull: storageFull))
        if let browser { try browser(router, trustedProxies) }
        addOperationRoutes(router)
        addOrderRoutes(router)
        addSheetRoutes(router)
        addMoneyRoutes(router)
        addAgreementRoutes(router)
        addTokenNotificationRoutes(router)
        addReconciliationRoutes(router)
        addWalletOrderRoutes(router)
        addPublicRoutes(router)
        try addConsoleRoutes(router)
        return router
    }

    /// Anyone: `/health` (the load balancer's probe); a merchant key: `/metrics`.
    private func addOperationRoutes(_ router: Router<APIRequestContext>) {
        // Anyone: the load balancer's probe. 503 while draining or when the database does not answer.
        router.get("/health") { _, context -> Response in
            if storageFull.isRaised(at: Date(), within: 30) {
                return try JSONBody.response(
                    ["status": "storage_full", "database": store.database.dialect],
                    status: .serviceUnavailable
                )
            }
            if draining.value {
                return try JSONBody.response(
                    ["status": "draining", "database": store.database.dialect],
                    status: .serviceUnavailable
                )
            }
            do {
                // A database that does not answer within 2 s is as good as none to a load balancer.
                // (The count may go on in the background: a pool waiting for a connection does not
                // stop when asked to, so the probe does not wait for it.)
                guard let open = try await FirstOf.value(within: 2, { try await store.openPaymentCount() }) else {
                    throw StorageError("no answer in 2 s")
                }
                var body = ["status": "ok", "database": store.database.dialect, "openPayments": String(open)]
                // How this server learns of payments other servers settle: announced (LISTEN) or read.
                if store.database.dialect == "postgresql" {
                    body["otherServers"] = payments.changesAnnounced.value ? "listening" : "polling"
                }
                return try JSONBody.response(body)
            } catch {
                context.logger.warning("health: the database does not answer: \(error)")
                return try JSONBody.response(
                    ["status": "database_unavailable", "database": store.database.dialect],
                    status: .serviceUnavailable
                )
            }
        }
        // A merchant key.
        router.get("/metrics") { request, _ -> Response in
            _ = try await access.merchant(request)
            let text = registry?.emitToString() ?? ""
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
    }

    /// Orders: creating, listing and reading them.
    private func addOrderRoutes(_ router: Router<APIRequestContext>) {
        // Anyone (catalog lines and a delivery choice); a merchant key for lines and shipping prices of its own.
        mutating(
            router,
            "/v1/orders",
            authorize: { request, context in
                let key = try await access.optionalMerchant(request)
                if key == nil { try take(.anonymousOrder, request, context) }
                return key
            },
            scope: { $0.map(Self.scope) ?? "anonymous" }
        ) { body, _, key in
            let request = try JSONBody.decode(CreateOrderRequest.self, from: body)
            let (order, secret) = try await orders.create(request, by: key == nil ? .shopper : .merchant)
            var view = try await OrderView.make(
                order,
                service: orders,
                store: store,
                withRequest: true,
                new: true,
                for: key == nil ? .shopper : .merchant
            )
            view.clientSecret = secret
            return try APIAnswer(view, status: 201)
        }
        // A merchant key: listing orders, newest first, filtered (APIRouter+Console.swift).
        router.get("/v1/orders") { request, _ -> Response in try await listOrders(request) }
        // The order's client secret (the shopper's view) or a merchant key (the full view).
        router.get("/v1/orders/:id") { request, context -> Response in
            let id = try orderId(context)
            let (order, caller) = try await access.order(id, request)
            return try JSONBody.response(
                try await OrderView.make(
                    order,
                    service: orders,
                    store: store,
                    withRequest: true,
                    for: Self.audience(caller)
                )
            )
        }
    }

    /// What the sheet calls for an order (its client secret, or a merchant key): merchant
    /// validation, the update endpoints, authorization and the sheet's cancel.
    private func addSheetRoutes(_ router: Router<APIRequestContext>) {
        orderRoute(router, "/v1/orders/:id/merchant-session") { body, id, _ in
            let request = try JSONBody.decode(MerchantSessionBody.self, from: body)
            return APIAnswer(
                status: 200,
                body: Data(try await validator.session(validationURL: request.validationURL).compactText.utf8)
            )
        }
        orderRoute(router, "/v1/orders/:id/shipping-contact") { body, id, _ in
            let request = try JSONBody.decode(ShippingContactBody.self, from: body)
            return try APIAnswer(try await orders.shippingContactSelected(id, contact: request.shippingContact))
        }
        orderRoute(router, "/v1/orders/:id/shipping-method") { body, id, _ in
            let request = try JSONBody.decode(ShippingMethodBody.self, from: body)
            return try APIAnswer(
                try await orders.shippingMethodSelected(id, identifier: request.shippingMethod.identifier)
            )
        }
        orderRoute(router, "/v1/orders/:id/payment-method") { body, id, _ in
            let request = try JSONBody.decode(PaymentMethodBody.self, from: body)
            return try APIAnswer(try await orders.paymentMethodSelected(id, type: request.paymentMethod.type))
        }
        orderRoute(router, "/v1/orders/:id/coupon-code", limitedAs: .couponAttempt) { body, id, _ in
            let request = try JSONBody.decode(CouponCodeBody.self, from: body)
            return try APIAnswer(try await orders.couponCodeChanged(id, code: request.couponCode))
        }
        orderRoute(router, "/v1/orders/:id/authorize") { body, id, caller, snapshot in
            if orders.isExpired(snapshot.0) { throw OrderService.expired(id) }
            let request = try JSONBody.decode(AuthorizeBody.self, from: body)
            let outcome = try await payments.authorize(orderId: id, payment: request.payment, preloaded: snapshot)
            let order = try await OrderView.make(
                outcome.order,
                service: orders,
                store: store,
                withRequest: false,
                records: outcome.payments,
                for: Self.audience(caller)
            )
            let (result, walletOrderToken) = walletOrderResult(outcome)
            var answer = try APIAnswer(AuthorizeView(result: result, order: order, refusal: outcome.refusal))
            answer.walletOrderToken = walletOrderToken
            return answer
        }
        // The sheet's cancel (the shopper dismissed it, or its deadline passed).
        orderRoute(router, "/v1/orders/:id/cancel") { _, id, caller in
            let isMerchant: Bool
            if case .merchant = caller { isMerchant = true } else { isMerchant = false }
            let order = try await payments.cancel(orderId: id, byMerchant: isMerchant)
            return try APIAnswer(
                try await OrderView.make(
                    order,
                    service: orders,
                    store: store,
                    withRequest: false,
                    for: Self.audience(caller)
                )
            )
        }
    }

    /// A merchant key: refunds and voids.
    private func addMoneyRoutes(_ router: Router<APIRequestContext>) {
        // A merchant key: money back.
        let merchantOrder: @Sendable (Request, Context) async throws -> (id: String, scope: String) = {
            request,
            context in
            let id = try orderId(context)
            let key = try await access.merchant(request)  // 401 for anything but a valid key, a client secret included
            guard try await store.order(id) != nil else { throw APIError.notFound("order \(id)") }
            return (id, Self.scope(key))
        }
        mutating(router, "/v1/orders/:id/refunds", authorize: merchantOrder, scope: { $0.scope }) {
            body,
            _,
            caller in
            let id = caller.id
            let request =
                body.readableBytes == 0 ? RefundBody(amount: nil) : try JSONBody.decode(RefundBody.self, from: body)
            var minor: Int?
            if let text = request.amount {
                guard let order = try await store.order(id) else { throw APIError.notFound("order \(id)") }
                guard let currency = Currency(order.currencyCode) else {
                    throw APIError.invalid("amount", "the order's currency is unknown")
                }
                do throws(AmountError) { minor = try currency.minor(text) } catch {
                    throw APIError.invalid("amount", error.message + " (\(order.currencyCode))")
                }
                guard minor ?? 0 > 0 else { throw APIError.invalid("amount", "a refund is more than zero") }
            }
            _ = try await payments.refund(orderId: id, amount: minor)
            return try APIAnswer(try await view(id, for: .merchant), status: 201)
        }
        mutating(router, "/v1/orders/:id/void", authorize: merchantOrder, scope: { $0.scope }) { _, _, caller in
            _ = try await payments.void(orderId: caller.id)
            return try APIAnswer(try await view(caller.id, for: .merchant))
        }
    }

    /// Agreements (recurring payments): reading, cancelling and charging them.
    private func addAgreementRoutes(_ router: Router<APIRequestContext>) {
        // The first order's client secret or a merchant key: an agreement, and its cancel (the
        // shopper's subscription page; the merchant's back office).
        router.get("/v1/agreements/:id") { request, context -> Response in
            let (agreement, caller) = try await access.agreement(context.parameters.get("id") ?? "", request)
            return try JSONBody.response(try await payments.agreementView(agreement, for: Self.audience(caller)))
        }
        mutating(
            router,
            "/v1/agreements/:id/cancel",
            authorize: { request, context in
                try await access.agreement(context.parameters.get("id") ?? "", request)
            },
            scope: { Self.scope($0.1, order: $0.0.orderId) }
        ) { _, _, caller in
            let canceled = try await payments.cancelAgreement(caller.0.id)
            return try APIAnswer(try await payments.agreementView(canceled, for: Self.audience(caller.1)))
        }
        // A merchant key: a merchant-initiated charge of the agreement's plan.
        mutating(
            router,
            "/v1/agreements/:id/charges",
            authorize: { request, context in
                let key = try await access.merchant(request)
                let id = context.parameters.get("id") ?? ""
                guard try await store.agreement(id) != nil else { throw APIError.notFound("agreement \(id)") }
                return (id: id, scope: Self.scope(key))
            },
            scope: { $0.scope }
        ) { _, _, caller in
            let id = caller.id
            let (agreement, outcome) = try await payments.chargeAgreement(id)
            let charge = try await OrderView.make(
                outcome.order,
                service: orders,
                store: store,
                withRequest: false,
                for: .merchant
            )
            return try APIAnswer(
                AgreementChargeView(agreement: try await payments.agreementView(agreement), charge: charge),
                status: 201
            )
        }
    }

    /// A merchant key: reconciling a clearing day and reading its report.
    private func addReconciliationRoutes(_ router: Router<APIRequestContext>) {
        // A merchant key: reconcile a clearing day against the acquirer's file, and read the report.
        mutating(
            router,
            "/v1/reconciliations",
            authorize: { request, _ in try await access.merchant(request) },
            scope: { Self.scope($0) }
        ) { body, _, _ in
            let request = try JSONBody.decode(ReconcileBody.self, from: body)
            guard ReconciliationService.isDay(request.day) else {
                throw APIError.invalid("day", "day is a clearing day YYYYMMDD")
            }
            guard let reconciliation else {
                throw APIError(status: 404, code: "not_found", message: "this server does not reconcile")
            }
            switch try await reconciliation.run(day: request.day) {
            case .report(let report): return try APIAnswer(report, status: 201)
            case .notReady:
                throw APIError(
                    status: 409,
                    code: "settlement_file_not_ready",
                    message: "the acquirer has no settlement file for \(request.day) yet"
                )
            case .failed(let why):
                throw APIError(
                    status: 502,
                    code: "acquirer_unavailable",
                    message: "the settlement file of \(request.day) could not be had: \(why)"
                )
            }
        }
        router.get("/v1/reconciliations/:day") { request, context -> Response in
            _ = try await access.merchant(request)
            let day = context.parameters.get("day") ?? ""
            guard let report = try await store.reconciliation(day: day) else {
                throw APIError.notFound("reconciliation \(day)")
            }
            return try JSONBody.response(report)
        }
    }

    /// The gateway's notifications, the catalog and the sandbox merchant's certificate.
    private func addPublicRoutes(_ router: Router<APIRequestContext>) {
        // Anyone may post; only a message the gateway signed changes anything.
        router.post("/v1/notifications/unionpay") { request, _ -> Response in
            let body: ByteBuffer
            do { body = try await request.body.collect(upTo: Self.maxBody) } catch {
                return JSONBody.error(
                    APIError(
                        status: 413,
                        code: "body_too_large",
                        message: "the request body is larger than \(Self.maxBody) bytes"
                    )
                )
            }
            return try await JSONBody.answering {
                try await payments.receiveNotification(String(buffer: body))
                return Response(
                    status: .ok,
                    headers: [.contentType: "text/plain"],
                    body: .init(byteBuffer: ByteBuffer(string: "ok"))
                )
            }
        }
        // Anyone.
        router.get("/v1/catalog") { _, _ -> Response in
            try JSONBody.response(CatalogView(products: orders.settings.catalog, plans: orders.settings.plans))
        }
        if let sandboxMerchantCertificate {
            router.get("/v1/sandbox/merchant") { _, _ -> Response in
                try JSONBody.response([
                    "merchantIdentifier": orders.settings.merchantIdentifier,
                    "paymentProcessingCertificate": sandboxMerchantCertificate,
                ])
            }
        }
    }
}

/// `Paysheet-Mode: sandbox|production` on every answer, errors included.
struct ModeMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let mode: ServerMode
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await JSONBody.answering { try await next(request, context) }
        response.headers[Self.header] = mode.rawValue
        return response
    }
    static let header = HTTPField.Name("Paysheet-Mode")!
}

/// Renders `APIError`s, ``ServiceError``s (their kind mapped to a status) and unexpected errors as
/// JSON; never a stack trace.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    /// Raised when a write found the disk full (`/health` then answers 503 for a while).
    let storageFull: StorageAlarm

    /// 503 for a database out of reach or a full disk: the request may be retried (with the same
    /// `Idempotency-Key`); a write in flight when the database went away may or may not have
    /// been committed, which the retry's answer settles.
    static func answer(to error: StorageError) -> APIError {
        switch error.kind {
        case .full:
            return APIError(
                status: 503,
                code: "storage_full",
                message: "the server's storage is full: nothing more can be stored now; retry later",
                retryAfter: 30
            )
        case .unavailable, .failed:
            return APIError(
                status: 503,
                code: "database_unavailable",
                message:
                    "the database is out of reach; retry with the same Idempotency-Key (a write in flight may or may not have been stored)",
                retryAfter: 1
            )
        }
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return JSONBody.error(error)
        } catch let error as ServiceError {
            return JSONBody.error(APIError(error))
        } catch let error as StorageError where error.kind != .failed {
            context.logger.warning("\(request.method.rawValue) \(request.uri.path): \(error)")
            if error.kind == .full { storageFull.raise(at: Date()) }
            return JSONBody.error(Self.answer(to: error))
        } catch let error as HTTPError {
            return JSONBody.error(
                APIError(
                    status: Int(error.status.code),
                    code: error.status.code == 404 ? "not_found" : "http_error",
                    message: error.body
                        ?? "\(request.method.rawValue) \(request.uri.path): \(error.status.reasonPhrase)"
                )
            )
        } catch {
            context.logger.error("\(request.method.rawValue) \(request.uri.path) failed: \(error)")
            return JSONBody.error(
                APIError(
                    status: 500,
                    code: "internal_error",
                    message: "the server could not complete the request; it was logged"
                )
            )
        }
    }
}

/// When something last went wrong with the storage, for `/health`.
final class StorageAlarm: Sendable {
    private let raisedAt = NIOLockedValueBox<Date?>(nil)

    func raise(at date: Date) { raisedAt.withLockedValue { $0 = date } }

    /// Whether it was raised less than `seconds` before `date`.
    func isRaised(at date: Date, within seconds: Double) -> Bool {
        raisedAt.withLockedValue { $0.map { date.timeIntervalSince($0) < seconds } ?? false }
    }
}
