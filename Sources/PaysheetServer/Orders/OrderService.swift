import PaysheetPayments
import Foundation
import PaysheetContact
import PaysheetModel
import PaysheetToken

/// The cart a client sends to `POST /v1/orders`. A shopper's page (no merchant key) may send
/// only catalog lines (`{sku, quantity}`) and a delivery choice: every amount then comes from the
/// merchant's settings. Free-form `{label, amount}` lines and `shippingMethods` need a merchant key.
public struct CreateOrderRequest: Sendable, Codable {
    /// One line of the cart: `{label, amount}` (merchant key), or `{sku, quantity}` priced from the catalog.
    public struct Item: Sendable, Codable {
        /// The label (with `amount`).
        public var label: String?
        /// The amount, decimal text (with `label`).
        public var amount: String?
        /// A catalog product instead.
        public var sku: String?
        /// How many of the product (default 1).
        public var quantity: Int?
    }
    /// ISO 4217 code.
    public var currencyCode: String?
    /// ISO 3166 code of the merchant's country.
    public var countryCode: String?
    /// The cart's lines.
    public var lineItems: [Item]?
    /// Shipping options (`[{label, detail, amount, identifier}]`), merchant key only; none for
    /// goods that are not shipped.
    public var shippingMethods: [ApplePayShippingMethod]?
    /// `ship` (the merchant's shipping methods for the order's currency, from the settings) or
    /// `none` (the default).
    public var delivery: String?
    /// A plan of the merchant's settings (`tea-monthly`) instead of line items: the order is its
    /// first payment, and the sheet asks for a merchant token to charge the next ones.
    public var plan: String?
}

/// Who creates an order: the merchant (a verified key) may write lines and shipping prices; a
/// shopper only names products and a delivery choice.
public enum OrderCreator: Sendable {
    /// A merchant key.
    case merchant
    /// A shopper's page.
    case shopper
}

/// Orders and the sheet's update endpoints: each answer is the exact update object the page
/// passes to its completion.
public struct OrderService: Sendable {
    let store: PaymentStore
    let settings: MerchantSettings
    let now: @Sendable () -> Date
    /// What an order may hold and how long one with no payment lives.
    let limits: ServerConfiguration.RequestLimits

    /// A service.
    public init(
        store: PaymentStore,
        settings: MerchantSettings,
        limits: ServerConfiguration.RequestLimits = .init(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.settings = settings
        self.limits = limits
        self.now = now
    }

    /// Whether `order` has outlived ``ServerConfiguration/RequestLimits/orderLifetime`` with no
    /// payment: it takes none (410 `order_expired`) and is deleted by ``purgeExpired()``.
    func isExpired(_ order: OrderRecord) -> Bool {
        order.status == .created && now().timeIntervalSince(order.createdAt) > limits.orderLifetime
    }

    /// Deletes the orders that expired with no payment; returns how many.
    @discardableResult
    public func purgeExpired() async throws -> Int {
        try await store.deleteOrdersWithoutPayments(createdBefore: now().addingTimeInterval(-limits.orderLifetime))
    }

    /// 410 `order_expired` for an expired order.
    static func expired(_ id: String) -> ServiceError {
        ServiceError(
            .gone,
            code: "order_expired",
            message: "order \(id) was not paid in time and has expired; create a new order"
        )
    }

    /// Most lines of an order made without a merchant key (each catalog line carries a quantity).
    static let maxShopperLines = 20
    /// Most shipping methods an order may offer.
    static let maxShippingMethods = 20
    /// Most bytes (UTF-8) of a label, a detail or an identifier.
    static let maxLabelBytes = 128

    /// Creates an order from `request` for `creator`; the server computes the total. Returns the
    /// order and its client secret (only its hash is stored).
    public func create(
        _ request: CreateOrderRequest,
        by creator: OrderCreator
    ) async throws -> (order: OrderRecord, clientSecret: String) {
        if creator == .shopper { try Self.checkShopperAsks(request) }
        if let plan = request.plan { return try await create(plan: plan, request) }
        let currency = try Self.currency(request)
        let country = try country(request, by: creator)
        guard let items = request.lineItems, !items.isEmpty else {
            throw ServiceError.invalid("lineItems", "lineItems must list at least one item")
        }
        guard items.count <= 100 else { throw ServiceError.invalid("lineItems", "at most 100 line items") }
        var lines: [ApplePayLineItem] = []
        for (index, item) in items.enumerated() {
            lines.append(try line(item, at: index, currency: currency))
        }
        let methods = try shippingMethods(request, currency: currency)
        try Self.check(methods, currency: currency)
        return try await insertNew(
            currency: currency,
            country: country,
            lines: lines,
            methods: methods,
            ifZero: ServiceError.invalid("lineItems", "the order's total must be greater than zero")
        )
    }

    /// What a shopper's page may not ask for: prices (shipping methods with amounts, lines with
    /// a label and an amount). A shopper names catalog items and a delivery choice.
    static func checkShopperAsks(_ request: CreateOrderRequest) throws {
        if let lines = request.lineItems, lines.count > maxShopperLines {
            throw ServiceError.invalid(
                "lineItems",
                "a shopper's order names at most \(maxShopperLines) lines (quantities make the rest)"
            )
        }
        if request.shippingMethods != nil {
            throw ServiceError.unauthorized(
                "shippingMethods with amounts need a merchant API key; a shopper's page sends \"delivery\": \"ship\""
            )
        }
        if let index = (request.lineItems ?? []).firstIndex(where: {
            $0.sku == nil || $0.label != nil || $0.amount != nil
        }) {
            throw ServiceError.unauthorized(
                "lineItems[\(index)]: lines with a label and an amount need a merchant API key; a shopper's page sends {\"sku\", \"quantity\"}"
            )
        }
    }

    /// The order's currency: an ISO 4217 alphabetic code this server knows.
    static func currency(_ request: CreateOrderRequest) throws -> Currency {
        guard let code = request.currencyCode else {
            throw ServiceError.invalid("currencyCode", "currencyCode is required (ISO 4217, such as CNY)")
        }
        guard let currency = Currency(code), currency.code == code.uppercased(), code.count == 3,
            !code.allSatisfy(\.isNumber)
        else {
            throw ServiceError.invalid("currencyCode", "\(code) is not an ISO 4217 alphabetic currency code")
        }
        return currency
    }

    /// The order's country: two letters, the merchant's own unless a merchant's key says otherwise.
    func country(_ request: CreateOrderRequest, by creator: OrderCreator) throws -> String {
        let country = request.countryCode ?? settings.countryCode
        guard country.count == 2, country.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw ServiceError.invalid("countryCode", "\(country) is not a two-letter ISO 3166 country code")
        }
        if creator == .shopper, country.uppercased() != settings.countryCode.uppercased() {
            throw ServiceError.invalid(
                "countryCode",
                "this merchant sells from \(settings.countryCode); countryCode may be omitted"
            )
        }
        return country
    }

    /// Line `index` of an order in `currency`: a catalog item priced by the catalog (times its
    /// quantity), or a merchant's own label and amount (which may be a discount).
    func line(_ item: CreateOrderRequest.Item, at index: Int, currency: Currency) throws -> ApplePayLineItem {
        if let sku = item.sku {
            guard let product = settings.catalog.first(where: { $0.sku == sku }) else {
                throw ServiceError.invalid("lineItems[\(index)].sku", "\(sku) is not in the catalog")
            }
            guard product.currencyCode == currency.code else {
                throw ServiceError.invalid(
                    "lineItems[\(index)].sku",
                    "\(sku) is priced in \(product.currencyCode), not \(currency.code)"
                )
            }
            let quantity = item.quantity ?? 1
            guard (1...99).contains(quantity) else {
                throw ServiceError.invalid("lineItems[\(index)].quantity", "quantity must be 1 to 99")
            }
            guard let unit = try? currency.minor(product.amount) else {
                throw ServiceError.invalid("lineItems[\(index)].sku", "\(sku) has no valid price")
            }
            let price: Int
            do throws(AmountError) { price = try MinorUnits.multiply(unit, quantity) } catch {
                throw ServiceError.invalid("lineItems[\(index)].quantity", error.message)
            }
            return ApplePayLineItem(
                label: quantity == 1 ? product.label : "\(product.label) × \(quantity)",
                amount: currency.format(price)
            )
        }
        guard let label = item.label, !label.trimmingCharacters(in: .whitespaces).isEmpty,
            label.utf8.count <= Self.maxLabelBytes
        else {
            throw ServiceError.invalid(
                "lineItems[\(index)].label",
                "each line item needs a label of 1 to \(Self.maxLabelBytes) bytes (UTF-8)"
            )
        }
        // A merchant's line may be a discount (a negative amount); the total must stay above zero.
        guard let amount = item.amount else {
            throw ServiceError.invalid(
                "lineItems[\(index)].amount",
                "each line item with a label needs an amount in \(currency.code)"
            )
        }
        let minor: Int
        do throws(AmountError) { minor = try currency.minor(amount, allowNegative: true) } catch {
            throw ServiceError.invalid(
                "lineItems[\(index)].amount",
                error.message + " (\(currency.code) has \(currency.minorUnits) decimals)"
            )
        }
        return ApplePayLineItem(label: label, amount: currency.format(minor))
    }

    /// An order's shipping methods: at most ``maxShippingMethods``, identifiers present and
    /// unique, prices in `currency` and not negative, texts within ``maxLabelBytes``.
    static func check(_ methods: [ApplePayShippingMethod], currency: Currency) throws {
        guard methods.count <= maxShippingMethods else {
            throw ServiceError.invalid("shippingMethods", "at most \(maxShippingMethods) shipping methods")
        }
        var seen = Set<String>()
        for (index, method) in methods.enumerated() {
            guard !method.identifier.isEmpty, seen.insert(method.identifier).inserted else {
                throw ServiceError.invalid(
                    "shippingMethods[\(index)].identifier",
                    "shipping method identifiers must be present and unique"
                )
            }
            do throws(AmountError) { _ = try currency.minor(method.amount) } catch {
                throw ServiceError.invalid(
                    "shippingMethods[\(index)].amount",
                    error.message + " (a shipping price is 0 or more, \(currency.code))"
                )
            }
            guard method.label.utf8.count <= maxLabelBytes, method.detail.utf8.count <= maxLabelBytes,
                method.identifier.utf8.count <= maxLabelBytes
            else {
                throw ServiceError.invalid(
                    "shippingMethods[\(index)]",
                    "a shipping method's label, detail and identifier are at most \(maxLabelBytes) bytes each"
                )
            }
        }
    }

    /// Stores a new order of `lines` (and shipping `methods`), priced by the settings, with a
    /// new client secret (only its hash is stored); `configure` sets what else it carries. A
    /// total of zero is refused with `ifZero`.
    func insertNew(
        currency: Currency,
        country: String,
        lines: [ApplePayLineItem],
        methods: [ApplePayShippingMethod] = [],
        ifZero: ServiceError,
        configure: (inout OrderRecord) -> Void = { _ in }
    ) async throws -> (order: OrderRecord, clientSecret: String) {
        let createdAt = now()
        let id = IDs.make("ord_", now: createdAt, randomDigits: 24)
        let secret = AccessPolicy.newClientSecret()
        var order = OrderRecord(
            id: id,
            status: .created,
            currency: currency,
            countryCode: country.uppercased(),
            lineItems: lines,
            shippingMethods: methods,
            shippingMethod: methods.first(where: { $0.selected == true })?.identifier ?? methods.first?.identifier,
            amount: 0,
            applicationData: Data(#"{"orderId":"\#(id)"}"#.utf8).base64EncodedString(),
            createdAt: createdAt,
            clientSecretHash: Secrets.hash(secret)
        )
        configure(&order)
        let pricing = try Pricing.price(order, settings: settings)
        guard pricing.amount > 0 else { throw ifZero }
        order.amount = Money(pricing.amount, currency)
        try await store.insert(order, maxBytes: limits.maxOrderBytes)
        return (order, secret)
    }

    /// An order for the first payment of `planId` (anyone may create one: every amount comes
    /// from the merchant's settings).
    func create(
        plan planId: String,
        _ request: CreateOrderRequest
    ) async throws -> (order: OrderRecord, clientSecret: String) {
        guard let plan = settings.plans.first(where: { $0.id == planId }) else {
            throw ServiceError.invalid("plan", "\(planId) is not one of this merchant's plans")
        }
        guard request.lineItems == nil, request.shippingMethods == nil,
            request.delivery == nil || request.delivery == "none"
        else {
            throw ServiceError.invalid(
                "plan",
                "an order for a plan has no line items or shipping: the plan sets its amounts"
            )
        }
        if let code = request.currencyCode, code.uppercased() != plan.currencyCode {
            throw ServiceError.invalid("currencyCode", "the plan \(planId) is priced in \(plan.currencyCode)")
        }
        let (label, amount) = plan.firstLine
        guard let currency = Currency(plan.currencyCode), let regular = try? currency.minor(plan.amount), regular > 0,
            let first = try? currency.minor(amount),
            plan.isRecurring ? plan.interval != nil : true
        else {
            throw ServiceError.invalid("plan", "the plan \(planId) is not well formed in the merchant's settings")
        }
        return try await insertNew(
            currency: currency,
            country: settings.countryCode,
            lines: [ApplePayLineItem(label: label, amount: currency.format(first))],
            ifZero: ServiceError.invalid("plan", "the plan's first payment must be more than zero")
        ) { $0.planId = plan.id }
    }

    /// The order's shipping methods: the merchant's own (`shippingMethods`) or the settings'
    /// for `delivery: "ship"`.
    func shippingMethods(_ request: CreateOrderRequest, currency: Currency) throws -> [ApplePayShippingMethod] {
        switch request.delivery {
        case nil, "none":
            return request.shippingMethods ?? []
        case "ship":
            guard request.shippingMethods == nil else {
                throw ServiceError.invalid("delivery", "give either delivery or shippingMethods, not both")
            }
            let offered = settings.shippingMethods.filter { $0.currencyCode == currency.code }
            guard !offered.isEmpty else {
                throw ServiceError.invalid("delivery", "this merchant ships no orders in \(currency.code)")
            }
            return offered.map {
                ApplePayShippingMethod(label: $0.label, detail: $0.detail, amount: $0.amount, identifier: $0.identifier)
            }
        case let other?:
            throw ServiceError.invalid("delivery", "\(other) is not a delivery choice (ship or none)")
        }
    }

    /// The shipping contact fields a payment request asks for when the order ships, and the ones
    /// the authorization checks (one list, with the orders: the payments depend on them).
    static let shippingFields: [ApplePayContactField] = [.postalAddress, .name, .phone, .email]

    /// The `ApplePayPaymentRequest` for `order`.
    public func paymentRequest(_ order: OrderRecord) throws -> ApplePayPaymentRequest {
        try paymentRequest(order, pricing: Pricing.price(order, settings: settings))
    }

    /// The request for `order` priced as `pricing`.
    func paymentRequest(_ order: OrderRecord, pricing: Pricing) -> ApplePayPaymentRequest {
        var request = ApplePayPaymentRequest(
            countryCode: order.countryCode,
            currencyCode: order.currencyCode,
            supportedNetworks: settings.supportedNetworks,
            merchantCapabilities: settings.merchantCapabilities.compactMap(ApplePayMerchantCapability.init(rawValue:)),
            total: pricing.total
        )
        request.lineItems = pricing.lineItems
        if !order.shippingMethods.isEmpty {
            request.shippingMethods = order.shippingMethods.map { offered in
                var method = offered
                method.selected = method.identifier == order.shippingMethod ? true : nil
                return method
            }
            request.requiredShippingContactFields = OrderService.shippingFields
        } else {
            request.requiredShippingContactFields = [.email]
        }
        request.applicationData = order.applicationData
        request.supportsCouponCode = settings.coupons.isEmpty ? nil : true
        request.couponCode = order.couponCode
        if let planId = order.planId, let plan = settings.plans.first(where: { $0.id == planId }) {
            request.supportsCouponCode = nil
            request.couponCode = nil
            addBilling(plan, to: &request, startingAt: order.createdAt)
        }
        return request
    }

    /// The plan's recurring or automatic-reload request: what the sheet shows and why its token
    /// carries a merchant token.
    func addBilling(_ plan: SubscriptionPlan, to r: inout ApplePayPaymentRequest, startingAt start: Date) {
        let management = settings.managementURL ?? "http://localhost/subscription.html"
        func day(_ d: Date) -> String { String(PaymentStore.timestamp(d).prefix(10)) }
        if plan.isRecurring {
            var regular = ApplePayLineItem(label: plan.label, amount: plan.amount)
            regular.paymentTiming = .recurring
            regular.recurringPaymentIntervalUnit = ApplePayRecurringPaymentDateUnit(
                rawValue: plan.intervalUnit.rawValue
            )
            regular.recurringPaymentIntervalCount = plan.intervalCount
            let firstRegular = plan.trialAmount != nil ? plan.date(after: 1, from: start) : start
            regular.recurringPaymentStartDate = day(firstRegular)
            var request = ApplePayRecurringPaymentRequest(
                paymentDescription: plan.description,
                regularBilling: regular,
                billingAgreement: plan.billingAgreement,
                managementURL: management,
                tokenNotificationURL: settings.tokenNotificationURL
            )
            if let trial = plan.trialAmount {
                var trialLine = ApplePayLineItem(label: plan.firstLine.label, amount: trial)
                trialLine.paymentTiming = .recurring
                trialLine.recurringPaymentIntervalUnit = regular.recurringPaymentIntervalUnit
                trialLine.recurringPaymentIntervalCount = plan.intervalCount
                trialLine.recurringPaymentStartDate = day(start)
                trialLine.recurringPaymentEndDate = day(firstRegular)
                request.trialBilling = trialLine
            }
            r.recurringPaymentRequest = request
        } else {
            var reload = ApplePayLineItem(label: plan.label, amount: plan.amount)
            reload.paymentTiming = .automaticReload
            reload.automaticReloadPaymentThresholdAmount = plan.thresholdAmount ?? plan.amount
            r.automaticReloadPaymentRequest = ApplePayAutomaticReloadPaymentRequest(
                paymentDescription: plan.description,
                automaticReloadBilling: reload,
                billingAgreement: plan.billingAgreement,
                managementURL: management,
                tokenNotificationURL: settings.tokenNotificationURL
            )
        }
    }

    /// Loads `id` for an update: it must exist and not be paid or in payment.
    func editable(_ id: String) async throws -> OrderRecord {
        guard let order = try await store.order(id) else { throw ServiceError.notFound("order \(id)") }
        if isExpired(order) { throw Self.expired(id) }
        guard order.status == .created || order.status == .failed else {
            throw ServiceError.conflict("order \(id) is \(order.status.rawValue); its summary can no longer change")
        }
        return order
    }

    /// Applies `change` to the order `id` and stores it (retrying on a concurrent change);
    /// returns the update for the sheet.
    func edit(
        _ id: String,
        errors: [ApplePayError]? = nil,
        withMethods: Bool = false,
        _ change: @Sendable (inout OrderRecord) throws -> Void
    ) async throws -> ApplePayUpdate {
        for _ in 0..<4 {
            var order = try await editable(id)
            try change(&order)
            var errors = errors
            var pricing = try Pricing.price(order, settings: settings)
            // The total stays above zero, so no charge of zero (or less) can follow: a coupon that
            // would take it there is not applied, with the sheet's coupon error; any other change
            // that would is refused.
            if pricing.amount <= 0, let code = order.couponCode {
                order.couponCode = nil
                let without = try Pricing.price(order, settings: settings)
                if without.amount > 0 {
                    errors =
                        (errors ?? []) + [couponMakesItFree(code, total: pricing, currencyCode: order.currencyCode)]
                }
                pricing = without
            }
            guard pricing.amount > 0 else {
                throw ServiceError(
                    .unprocessable,
                    code: "total_not_positive",
                    message:
                        "order \(id): the total would be \(pricing.total.amount ?? "0") \(order.currencyCode); an order's total stays above zero"
                )
            }
            order.amount = Money(pricing.amount, order.amount.currency)
            if try await store.update(order) != nil {
                let methods =
                    withMethods && !order.shippingMethods.isEmpty
                    ? paymentRequest(order, pricing: pricing).shippingMethods : nil
                return pricing.update(errors: errors, shippingMethods: methods)
            }
        }
        throw ServiceError.conflict("order \(id) kept changing; try again")
    }

    /// The sheet's coupon error for a coupon `code` that would take the total to `total`.
    func couponMakesItFree(_ code: String, total: Pricing, currencyCode: String) -> ApplePayError {
        ApplePayError(
            .couponCodeInvalid,
            message:
                "Coupon \(code) would bring the total to \(total.total.amount ?? "0") \(currencyCode); it cannot be used on this order"
        )
    }

    /// `onshippingcontactselected`: validates the redacted contact; sets the tax region.
    public func shippingContactSelected(
        _ id: String,
        contact: ApplePayPaymentContact
    ) async throws -> ApplePayShippingContactUpdate {
        let result = ContactValidator(policy: settings.shipping).validate(
            contact,
            requiredFields: [.postalAddress],
            phase: .redacted,
            role: .shipping
        )
        if !result.errors.isEmpty {
            // Keep the summary; show the errors on the sheet.
            return try await edit(id, errors: result.errors) { _ in }
        }
        let contact = result.contact
        let region = [contact.countryCode?.uppercased(), contact.administrativeArea?.uppercased()].compactMap { $0 }
            .joined(
                separator: "-"
            )
        return try await edit(id, withMethods: true) { $0.taxRegion = region.isEmpty ? nil : region }
    }

    /// `onshippingmethodselected`.
    public func shippingMethodSelected(_ id: String, identifier: String) async throws -> ApplePayShippingMethodUpdate {
        try await edit(id) { order in
            guard order.shippingMethods.contains(where: { $0.identifier == identifier }) else {
                throw ServiceError.invalid(
                    "shippingMethod.identifier",
                    "\(identifier) is not one of this order's shipping methods"
                )
            }
            order.shippingMethod = identifier
        }
    }

    /// `onpaymentmethodselected`: a surcharge by card type, when configured.
    public func paymentMethodSelected(_ id: String, type: String?) async throws -> ApplePayPaymentMethodUpdate {
        try await edit(id) { $0.cardType = type }
    }

    /// `oncouponcodechanged`: applies a known code, clears on an empty one, or answers `couponCodeInvalid`.
    /// Codes that are not valid count against the order (``ServerConfiguration/RequestLimits/couponAttemptsPerOrder``):
    /// past the limit the order takes no more codes (429 `coupon_attempts_exceeded`), so a code
    /// cannot be guessed through one order; the route also limits attempts per client address.
    public func couponCodeChanged(_ id: String, code: String) async throws -> ApplePayCouponCodeUpdate {
        let limit = limits.couponAttemptsPerOrder
        // Checked on the order the edit reads and writes (no read of its own).
        let admit: @Sendable (OrderRecord) throws -> Void = { order in
            // A plan's first payment is the plan's price: its sheet offers no coupon field.
            if order.planId != nil, !code.isEmpty {
                throw ServiceError(
                    .unprocessable,
                    code: "coupon_not_applicable",
                    field: "couponCode",
                    message: "order \(id) pays a plan; coupon codes do not apply to plans"
                )
            }
            let attempts = order.couponAttempts ?? 0
            guard attempts < limit else {
                throw ServiceError(
                    .tooManyRequests,
                    code: "coupon_attempts_exceeded",
                    message:
                        "order \(id) was sent \(attempts) coupon codes that are not valid; it takes no more (pay without one, or start a new order)"
                )
            }
        }
        let normalized = code.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.utf8.count <= 64, normalized.isEmpty || settings.coupons[normalized] != nil else {
            return try await edit(id, errors: [ApplePayError(.couponCodeInvalid, message: "Coupon code is not valid")])
            {
                try admit($0)
                $0.couponCode = nil
                $0.couponAttempts = ($0.couponAttempts ?? 0) + 1
            }
        }
        return try await edit(id) {
            try admit($0)
            $0.couponCode = normalized.isEmpty ? nil : normalized
        }
    }
}
