import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import PaysheetModel
import PaysheetToken
import Prometheus

/// The merchant server's HTTP API (`/v1/…`), `/health` and `/metrics`. `docs/openapi.yaml`
/// describes it; CI checks the two against each other.
public struct APIRouter: Sendable {
    let orders: OrderService
    let payments: PaymentService
    let validator: MerchantValidator
    let store: PaymentStore
    let registry: PrometheusCollectorRegistry?
    let sandboxMerchantCertificate: String?
    let idempotency: Idempotency
    let sheets: SheetHub?

    /// A router over the services; `registry` serves `/metrics`; `sandboxMerchantCertificate`
    /// (PEM) is published at `/v1/sandbox/merchant` for `paysheet pay`; `sheets` (when given)
    /// serves `paysheet.js`, its bridge and the demo store at `/`.
    public init(orders: OrderService, payments: PaymentService, validator: MerchantValidator, store: PaymentStore,
                registry: PrometheusCollectorRegistry?, sandboxMerchantCertificate: String?, sheets: SheetHub? = nil) {
        self.sheets = sheets
        self.orders = orders
        self.payments = payments
        self.validator = validator
        self.store = store
        self.registry = registry
        self.sandboxMerchantCertificate = sandboxMerchantCertificate
        self.idempotency = Idempotency(store: store, now: orders.now)
    }

    static let maxBody = 256 * 1024

    func order(_ context: BasicRequestContext) throws -> String {
        guard let id = context.parameters.get("id") else { throw APIError.notFound("order") }
        return id
    }

    func view(_ id: String, withRequest: Bool = false) async throws -> OrderView {
        guard let order = try await store.order(id) else { throw APIError.notFound("order \(id)") }
        return try await OrderView.make(order, service: orders, store: store, withRequest: withRequest)
    }

    /// A mutating route: body read, idempotency applied, errors rendered.
    func mutating(_ router: Router<BasicRequestContext>, _ path: RouterPath,
                  _ handler: @escaping @Sendable (ByteBuffer, BasicRequestContext) async throws -> APIAnswer) {
        router.post(path) { request, context -> Response in
            let body: ByteBuffer
            do { body = try await request.body.collect(upTo: Self.maxBody) } catch {
                return JSONBody.error(APIError(status: 413, code: "body_too_large", message: "the request body is larger than \(Self.maxBody) bytes"))
            }
            return try await idempotency.run(request, body: body) { try await handler(body, context) }
        }
    }

    /// The routes.
    public func router() throws -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(ErrorMiddleware())
        if let sheets { try BrowserRoutes.add(to: router, hub: sheets) }
        router.get("/health") { _, _ -> Response in
            let open = try await store.openPaymentCount()
            return try JSONBody.response(["status": "ok", "database": store.database.dialect, "openPayments": String(open)])
        }
        router.get("/metrics") { _, _ -> Response in
            let text = registry?.emitToString() ?? ""
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        mutating(router, "/v1/orders") { body, _ in
            let request = try JSONBody.decode(CreateOrderRequest.self, from: body)
            let order = try await orders.create(request)
            return try APIAnswer(try await OrderView.make(order, service: orders, store: store, withRequest: true, new: true), status: 201)
        }
        router.get("/v1/orders/:id") { _, context -> Response in
            try JSONBody.response(try await view(order(context), withRequest: true))
        }
        mutating(router, "/v1/orders/:id/merchant-session") { body, context in
            let request = try JSONBody.decode(MerchantSessionBody.self, from: body)
            let id = try order(context)
            guard try await store.order(id) != nil else { throw APIError.notFound("order \(id)") }
            return APIAnswer(status: 200, body: Data(try await validator.session(validationURL: request.validationURL).compactText.utf8))
        }
        mutating(router, "/v1/orders/:id/shipping-contact") { body, context in
            let request = try JSONBody.decode(ShippingContactBody.self, from: body)
            return try APIAnswer(try await orders.shippingContactSelected(order(context), contact: request.shippingContact))
        }
        mutating(router, "/v1/orders/:id/shipping-method") { body, context in
            let request = try JSONBody.decode(ShippingMethodBody.self, from: body)
            return try APIAnswer(try await orders.shippingMethodSelected(order(context), identifier: request.shippingMethod.identifier))
        }
        mutating(router, "/v1/orders/:id/payment-method") { body, context in
            let request = try JSONBody.decode(PaymentMethodBody.self, from: body)
            return try APIAnswer(try await orders.paymentMethodSelected(order(context), type: request.paymentMethod.type))
        }
        mutating(router, "/v1/orders/:id/coupon-code") { body, context in
            let request = try JSONBody.decode(CouponCodeBody.self, from: body)
            return try APIAnswer(try await orders.couponCodeChanged(order(context), code: request.couponCode))
        }
        mutating(router, "/v1/orders/:id/authorize") { body, context in
            let request = try JSONBody.decode(AuthorizeBody.self, from: body)
            let outcome = try await payments.authorize(orderId: order(context), payment: request.payment)
            return try APIAnswer(AuthorizeView(result: outcome.result,
                                               order: try await OrderView.make(outcome.order, service: orders, store: store, withRequest: false)))
        }
        mutating(router, "/v1/orders/:id/refunds") { body, context in
            let id = try order(context)
            let request = body.readableBytes == 0 ? RefundBody(amount: nil) : try JSONBody.decode(RefundBody.self, from: body)
            var minor: Int?
            if let text = request.amount {
                guard let o = try await store.order(id) else { throw APIError.notFound("order \(id)") }
                guard let currency = Currency(o.currencyCode), let m = try? currency.minor(text) else {
                    throw APIError.invalid("amount", "\"\(text)\" is not an amount in \(o.currencyCode)")
                }
                minor = m
            }
            _ = try await payments.refund(orderId: id, amount: minor)
            return try APIAnswer(try await view(id), status: 201)
        }
        mutating(router, "/v1/orders/:id/void") { _, context in
            let id = try order(context)
            _ = try await payments.void(orderId: id)
            return try APIAnswer(try await view(id))
        }
        router.post("/v1/notifications/unionpay") { request, _ -> Response in
            let body = try await request.body.collect(upTo: Self.maxBody)
            do {
                try await payments.receiveNotification(String(buffer: body))
                return Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok")))
            } catch let e as APIError {
                return JSONBody.error(e)
            }
        }
        router.get("/v1/catalog") { _, _ -> Response in
            try JSONBody.response(["products": orders.settings.catalog])
        }
        router.get("/v1/sandbox/merchant") { _, _ -> Response in
            guard let pem = sandboxMerchantCertificate else { return JSONBody.error(APIError.notFound("a sandbox merchant (the server is not in sandbox mode)")) }
            return try JSONBody.response(["merchantIdentifier": orders.settings.merchantIdentifier, "paymentProcessingCertificate": pem])
        }
        return router
    }
}

/// Renders `APIError`s and unexpected errors as JSON; never a stack trace.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let e as APIError {
            return JSONBody.error(e)
        } catch let e as HTTPError {
            return JSONBody.error(APIError(status: Int(e.status.code), code: e.status.code == 404 ? "not_found" : "http_error",
                                           message: e.body ?? "\(request.method.rawValue) \(request.uri.path): \(e.status.reasonPhrase)"))
        } catch {
            context.logger.error("\(request.method.rawValue) \(request.uri.path) failed: \(error)")
            return JSONBody.error(APIError(status: 500, code: "internal_error", message: "the server could not complete the request; it was logged"))
        }
    }
}
