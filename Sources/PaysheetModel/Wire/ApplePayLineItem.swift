/// A line of the payment summary, or its total (`ApplePayLineItem`).
///
/// Amounts are decimal strings exactly as the page wrote them; use `Amount` to compute with them.
public struct ApplePayLineItem: Codable, Sendable, Hashable {
    /// `final` (default) or `pending`.
    public var type: ApplePayLineItemType?
    /// The text shown for the line.
    public var label: String?
    /// The amount, a decimal string such as `"10.00"`. Pending items may omit it.
    public var amount: String?
    /// `immediate` (default), `recurring`, `deferred` or `automaticReload`.
    public var paymentTiming: ApplePayPaymentTiming?
    /// First payment of a recurring item (a date string as the page's `Date` serialises).
    public var recurringPaymentStartDate: String?
    /// Interval unit of a recurring item.
    public var recurringPaymentIntervalUnit: ApplePayRecurringPaymentDateUnit?
    /// Interval count of a recurring item.
    public var recurringPaymentIntervalCount: Int?
    /// Last payment of a recurring item.
    public var recurringPaymentEndDate: String?
    /// When a deferred item is paid.
    public var deferredPaymentDate: String?
    /// The balance below which an automatic reload happens.
    public var automaticReloadPaymentThresholdAmount: String?
    /// What this line of a disbursement is.
    public var disbursementLineItemType: ApplePayDisbursementLineItemType?

    /// A line item.
    public init(
        label: String?,
        amount: String?,
        type: ApplePayLineItemType? = nil,
        paymentTiming: ApplePayPaymentTiming? = nil
    ) {
        self.label = label
        self.amount = amount
        self.type = type
        self.paymentTiming = paymentTiming
    }

    /// Whether the item is pending (its amount is not shown).
    public var isPending: Bool { type == .pending }
}
