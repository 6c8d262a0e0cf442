import PaysheetPayments
import Foundation
import PaysheetModel

/// The order's total and summary lines, computed by the server from the cart and the shopper's
/// choices. Pure: the update endpoints and authorization all call it, so the sheet, the order
/// and the charge always agree.
///
/// Every amount is read by the one amount grammar (`MinorUnits`) and every sum is checked:
/// an order whose arithmetic would overflow, whose total is not above zero, or whose total is
/// above what the sheet accepts (100,000,000 in the currency's major unit: WebKit's "Total
/// amount is too big.") is refused with 400. Rates are exact (`Rate`): the coupon is a percent
/// of the goods, tax a percent of the goods after the coupon, a surcharge a percent of the total
/// before it; each rounded to the nearest minor unit, halves away from zero.
public struct Pricing: Sendable, Equatable {
    /// The summary lines (goods, shipping, discount, tax, surcharge).
    public var lineItems: [ApplePayLineItem]
    /// The total line (merchant name, amount).
    public var total: ApplePayLineItem
    /// The total in minor units.
    public var amount: Int

    /// The largest total the sheet accepts, in major units.
    static let maximumMajorUnits = 100_000_000

    /// Prices `order` under `settings`; throws a 400 naming what is wrong.
    public static func price(_ order: OrderRecord, settings: MerchantSettings) throws -> Pricing {
        guard let currency = Currency(order.currencyCode) else {
            throw ServiceError.invalid("currencyCode", "\(order.currencyCode) is not an ISO 4217 currency code")
        }
        do throws(AmountError) {
            return try price(order, settings: settings, currency: currency)
        } catch {
            throw ServiceError.invalid(error.code == .overflow ? "lineItems" : nil, error.message)
        }
    }

    static func price(
        _ order: OrderRecord,
        settings: MerchantSettings,
        currency: Currency
    ) throws(AmountError) -> Pricing {
        var goods = 0
        var lines: [ApplePayLineItem] = []
        for item in order.lineItems {
            // Negative lines are discounts the merchant wrote (a shopper cannot write lines at all).
            let minor = try currency.minor(item.amount ?? "", allowNegative: true)
            goods = try MinorUnits.add(goods, minor)
            lines.append(ApplePayLineItem(label: item.label, amount: currency.format(minor)))
        }
        var total = goods
        if let id = order.shippingMethod ?? order.shippingMethods.first?.identifier,
            let method = order.shippingMethods.first(where: { $0.identifier == id })
        {
            let minor = try currency.minor(method.amount)
            lines.append(
                ApplePayLineItem(
                    label: method.label.isEmpty ? "Shipping" : method.label,
                    amount: currency.format(minor)
                )
            )
            total = try MinorUnits.add(total, minor)
        }
        var discount = 0
        if let code = order.couponCode, let rate = settings.coupons[code] {
            discount = rate.apply(to: max(0, goods))
            lines.append(ApplePayLineItem(label: "Coupon \(code)", amount: currency.format(-discount)))
            total = try MinorUnits.subtract(total, discount)
        }
        if let region = order.taxRegion,
            let rate = settings.taxRates[region] ?? settings.taxRates[String(region.prefix(2))], !rate.isZero
        {
            let tax = rate.apply(to: max(0, try MinorUnits.subtract(goods, discount)))
            lines.append(ApplePayLineItem(label: "Tax", amount: currency.format(tax)))
            total = try MinorUnits.add(total, tax)
        }
        if let type = order.cardType, let rate = settings.surcharges[type], !rate.isZero {
            let fee = rate.apply(to: max(0, total))
            lines.append(ApplePayLineItem(label: "\(type.capitalized) card surcharge", amount: currency.format(fee)))
            total = try MinorUnits.add(total, fee)
        }
        var maximum = maximumMajorUnits
        for _ in 0..<currency.minorUnits { maximum = try MinorUnits.multiply(maximum, 10) }
        guard total <= maximum else {
            throw AmountError(
                .overflow,
                "Total amount is too big: \(currency.format(total)) \(currency.code) is above the sheet's 100000000"
            )
        }
        return Pricing(
            lineItems: lines,
            total: ApplePayLineItem(label: settings.displayName, amount: currency.format(total)),
            amount: total
        )
    }

    /// The update object for the sheet's completion.
    public func update(
        errors: [ApplePayError]? = nil,
        shippingMethods: [ApplePayShippingMethod]? = nil
    ) -> ApplePayUpdate {
        ApplePayUpdate(newTotal: total, newLineItems: lineItems, newShippingMethods: shippingMethods, errors: errors)
    }
}
