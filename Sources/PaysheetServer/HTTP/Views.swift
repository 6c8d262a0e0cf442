import PaysheetPayments
import Foundation
import PaysheetModel
import PaysheetToken

/// A payment as the API shows it: to the merchant with its id, the acquirer's identifiers, its
/// time and its history; to the shopper only its kind, state, amount and masked card. Nothing the
/// shopper sees tells the acquirer's identity of the transaction: its `orderId` is random, and its
/// `txnTime` is the payment's creation to the second, which the payment id (a time prefix in
/// milliseconds) and `createdAt` would tell, so the shopper is shown neither.
struct PaymentView: Encodable {
    var id: String?
    var kind: String
    var state: String
    var amount: String
    var card: CardSummary?
    var acquirerOrderId: String?
    var acquirerTxnTime: String?
    var acquirerReference: String?
    var resultCode: String?
    var reason: String?
    var originalPaymentId: String?
    var createdAt: Date?
    var history: [PaymentEvent]?

    /// The merchant's view of `p`.
    init(_ p: PaymentRecord, currency: Currency?, history: [PaymentEvent]) {
        self.init(shopper: p, currency: currency)
        id = p.id
        createdAt = p.createdAt
        acquirerOrderId = p.identity.orderId
        acquirerTxnTime = p.identity.txnTime
        acquirerReference = p.lifecycle.reference
        resultCode = p.lifecycle.resultCode
        reason = p.lifecycle.reason
        originalPaymentId = p.originalPaymentId
        self.history = history
    }

    /// The shopper's view of `p`.
    init(shopper p: PaymentRecord, currency: Currency?) {
        kind = p.kind.rawValue
        state = p.lifecycle.state.rawValue
        amount = currency?.format(p.amount.minorUnits) ?? String(p.amount.minorUnits)
        card = p.card
    }
}

/// An order as the API shows it.
struct OrderView: Encodable {
    var id: String
    var status: String
    var amount: String
    var currencyCode: String
    var countryCode: String
    var total: ApplePayLineItem
    var lineItems: [ApplePayLineItem]
    var paid: String
    var refunded: String
    var createdAt: Date
    var payments: [PaymentView]
    var paymentRequest: ApplePayPaymentRequest?
    /// The plan the order buys: its first payment starts the agreement `agreementId`.
    var plan: String?
    /// The agreement the order starts (a plan's first payment) or charges (a merchant-initiated charge).
    var agreementId: String?
    /// The order's client secret: in the answer that created the order, and nowhere else.
    var clientSecret: String?

    /// Whom a view is for.
    enum Audience {
        /// Everything: acquirer identifiers, result codes, histories.
        case merchant
        /// Status, items, amounts and masked cards.
        case shopper
    }

    /// The view of `order`; `new`: it was created by this request, so it has no payments to read.
    /// `records`, when given, are the order's payments as the caller has them (not read again).
    static func make(
        _ order: OrderRecord,
        service: OrderService,
        store: PaymentStore,
        withRequest: Bool,
        new: Bool = false,
        records given: [PaymentRecord]? = nil,
        for audience: Audience
    ) async throws -> OrderView {
        let currency = Currency(order.currencyCode)
        let pricing = try Pricing.price(order, settings: service.settings)
        var records: [PaymentRecord] = given ?? []
        if !new && given == nil { records = try await store.payments(order: order.id) }
        let payments: [PaymentView]
        switch audience {
        case .merchant:
            let histories = try await store.events(payments: records.map(\.id))
            payments = records.map { PaymentView($0, currency: currency, history: histories[$0.id] ?? []) }
        case .shopper:
            payments = records.map { PaymentView(shopper: $0, currency: currency) }
        }
        return OrderView(
            id: order.id,
            status: order.status.rawValue,
            amount: order.amount.currency.format(order.amount.minorUnits),
            currencyCode: order.currencyCode,
            countryCode: order.countryCode,
            total: pricing.total,
            lineItems: pricing.lineItems,
            paid: order.paid.currency.format(order.paid.minorUnits),
            refunded: order.refunded.currency.format(order.refunded.minorUnits),
            createdAt: order.createdAt,
            payments: payments,
            paymentRequest: withRequest ? service.paymentRequest(order, pricing: pricing) : nil,
            plan: order.planId,
            agreementId: order.agreementId ?? order.planId.map { _ in AgreementRecord.id(forOrder: order.id) }
        )
    }
}

/// `POST /v1/orders/{id}/authorize` answer.
struct AuthorizeView: Encodable {
    var result: ApplePayPaymentAuthorizationResult
    var order: OrderView
    /// Why the token was refused (for its sender; the sheet shows `result`), when it was.
    var refusal: TokenRefusal?
}

/// Bodies of the update endpoints.
struct MerchantSessionBody: Decodable { var validationURL: String }
struct ShippingContactBody: Decodable { var shippingContact: ApplePayPaymentContact }
struct ShippingMethodBody: Decodable {
    struct Method: Decodable { var identifier: String }
    var shippingMethod: Method
}
struct PaymentMethodBody: Decodable {
    struct Method: Decodable {
        var type: String?
        var network: String?
        var displayName: String?
    }
    var paymentMethod: Method
}
struct CouponCodeBody: Decodable { var couponCode: String }
struct AuthorizeBody: Decodable { var payment: ApplePayPayment }
struct RefundBody: Decodable { var amount: String? }

/// `POST /v1/reconciliations` body: the clearing day, `YYYYMMDD`.
struct ReconcileBody: Decodable { var day: String }

/// `GET /v1/catalog` answer: products for a cart, plans for an order of their own.
struct CatalogView: Encodable {
    var products: [Product]
    var plans: [SubscriptionPlan]
}

/// `GET /v1/orders` answer.
struct OrderListView: Encodable {
    var orders: [OrderView]
    /// Pass as `before` for the next page; absent on the last.
    var next: String?
}
