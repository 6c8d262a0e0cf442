import Foundation
import PaysheetModel
import PaysheetPayments

/// `order.json` of a paid order, in the schema Wallet reads (version 1, an `ecommerce` order):
/// identifiers, dates, status, the merchant, the order management URL, the web service and its
/// token (so that the device can ask for updates), the goods as line items, and the payment's
/// total and summary lines. The order's status follows the payments: `open` while paid (the
/// goods are yet to be delivered), `cancelled` once refunded in full, voided or canceled.
struct WalletOrderJSON: Sendable {
    /// The order type identifier.
    var orderTypeIdentifier: String
    /// The web service's URL (the order service routes' base).
    var webServiceURL: String
    /// `orderManagementURL`, `{orderIdentifier}` standing for the order's id.
    var orderManagementURL: String
    /// The store's public URL (the merchant's `url`).
    var storeURL: String
    /// The merchant's name, identifier, and prices (the summary lines).
    var settings: MerchantSettings

    /// The merchant's logo in every package.
    static let logoFile = "logo.png"
    /// An 8×8 PNG in the simulated sheet's amber.
    static let logo = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR42mPYEsyJFTEMLQkAvQ5EAfqv23cAAAAASUVORK5CYII="
    )!

    /// Wallet's order status for the server's order status.
    static func status(_ status: OrderStatus) -> String {
        switch status {
        case .refunded, .voided, .canceled, .canceling: return "cancelled"
        case .created, .pending, .paid, .failed, .partiallyRefunded: return "open"
        }
    }

    /// The payment's status in the order (`paid` or `refunded`).
    static func paymentStatus(_ order: OrderRecord) -> String {
        status(order.status) == "cancelled" && order.refunded.isPositive ? "refunded" : "paid"
    }

    /// The `order.json` of `order`, last changed at `updatedAt`, carrying `token` (the token the
    /// device presented, or the one just issued).
    func json(_ order: OrderRecord, updatedAt: Date, token: String) -> JSONValue {
        let currency = order.amount.currency
        func amount(_ minor: Int) -> JSONValue {
            ["amount": .number(currency.format(minor)), "currency": .string(currency.code)]
        }
        func decimal(_ text: String?) -> Int? { text.flatMap { try? currency.minor($0, allowNegative: true) } }
        var members = JSONObject()
        members["schemaVersion"] = .number("1")
        members["orderTypeIdentifier"] = .string(orderTypeIdentifier)
        members["orderIdentifier"] = .string(order.id)
        members["orderType"] = "ecommerce"
        members["orderNumber"] = .string(order.id)
        members["createdAt"] = .string(Timestamp.text(order.createdAt))
        members["updatedAt"] = .string(Timestamp.text(max(updatedAt, order.createdAt)))
        members["status"] = .string(Self.status(order.status))
        members["merchant"] = [
            "merchantIdentifier": .string(settings.merchantIdentifier),
            "displayName": .string(settings.displayName),
            "url": .string(storeURL),
            "logo": .string(Self.logoFile),
        ]
        members["orderManagementURL"] = .string(
            orderManagementURL.replacingOccurrences(
                of: "{orderIdentifier}",
                with: order.id.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? order.id
            )
        )
        members["webServiceURL"] = .string(webServiceURL)
        members["authenticationToken"] = .string(token)
        let goods: [JSONValue] = order.lineItems.compactMap { item in
            guard let minor = decimal(item.amount), minor >= 0 else { return nil }
            return ["title": .string(item.label ?? ""), "quantity": .number("1"), "price": amount(minor)]
        }
        if !goods.isEmpty { members["lineItems"] = .array(goods) }
        var payment = JSONObject()
        payment["total"] = amount(order.amount.minorUnits)
        payment["status"] = .string(Self.paymentStatus(order))
        if let pricing = try? Pricing.price(order, settings: settings) {
            payment["summaryItems"] = .array(
                pricing.lineItems.compactMap { line in
                    decimal(line.amount).map { ["label": .string(line.label ?? ""), "value": amount($0)] }
                }
            )
        }
        members["payment"] = .object(payment)
        return .object(members)
    }
}
