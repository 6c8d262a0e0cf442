import Foundation
import PaysheetModel
import PaysheetToken

/// The order's total and summary lines, computed by the server from the cart and the shopper's
/// choices. Pure: the update endpoints and authorization all call it, so the sheet, the order
/// and the charge always agree.
public struct Pricing: Sendable, Equatable {
    /// The summary lines (goods, shipping, discount, tax, surcharge).
    public var lineItems: [ApplePayLineItem]
    /// The total line (merchant name, amount).
    public var total: ApplePayLineItem
    /// The total in minor units.
    public var amount: Int

    /// Prices `order` under `settings`; throws a message naming the bad line item.
    public static func price(_ order: OrderRecord, settings: MerchantSettings) throws -> Pricing {
        guard let currency = Currency(order.currencyCode) else { throw APIError.invalid("currencyCode", "\(order.currencyCode) is not an ISO 4217 currency code") }
        var goods = 0
        var lines: [ApplePayLineItem] = []
        for (i, item) in order.lineItems.enumerated() {
            guard let text = item.amount, let minor = try? currency.minor(text) else {
                throw APIError.invalid("lineItems[\(i)].amount", "\"\(item.amount ?? "")\" is not a non-negative amount in \(currency.code)")
            }
            goods += minor
            lines.append(ApplePayLineItem(label: item.label, amount: currency.format(minor)))
        }
        var total = goods
        if let id = order.shippingMethod ?? order.shippingMethods.first?.identifier,
           let method = order.shippingMethods.first(where: { $0.identifier == id }), let minor = try? currency.minor(method.amount) {
            lines.append(ApplePayLineItem(label: method.label.isEmpty ? "Shipping" : method.label, amount: currency.format(minor)))
            total += minor
        }
        var discount = 0
        if let code = order.couponCode, let percent = settings.coupons[code] {
            discount = Int((Double(goods) * percent / 100).rounded())
            lines.append(ApplePayLineItem(label: "Coupon \(code)", amount: currency.format(-discount)))
            total -= discount
        }
        if let region = order.taxRegion {
            let rate = settings.taxRates[region] ?? settings.taxRates[String(region.prefix(2))]
            if let rate, rate > 0 {
                let tax = Int((Double(goods - discount) * rate / 100).rounded())
                lines.append(ApplePayLineItem(label: "Tax", amount: currency.format(tax)))
                total += tax
            }
        }
        if let type = order.cardType, let percent = settings.surcharges[type], percent > 0 {
            let fee = Int((Double(total) * percent / 100).rounded())
            lines.append(ApplePayLineItem(label: "\(type.capitalized) card surcharge", amount: currency.format(fee)))
            total += fee
        }
        return Pricing(lineItems: lines, total: ApplePayLineItem(label: settings.displayName, amount: currency.format(total)), amount: total)
    }

    /// The update object for the sheet's completion.
    public func update(errors: [ApplePayError]? = nil, shippingMethods: [ApplePayShippingMethod]? = nil) -> ApplePayUpdate {
        ApplePayUpdate(newTotal: total, newLineItems: lineItems, newShippingMethods: shippingMethods, errors: errors)
    }
}
