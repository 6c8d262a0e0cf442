import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// One line of the payment summary (`PKPaymentSummaryItem`); the last item of a request's
/// summary is its total, labelled with the merchant's name. Amounts are `NSDecimalNumber`s, a
/// discount negative.
open class PKPaymentSummaryItem: NSObject, @unchecked Sendable {
    /// What the line is for.
    open var label: String
    /// Its amount, in the request's currency.
    open var amount: NSDecimalNumber
    /// Whether the amount is final or still pending.
    open var type: PKPaymentSummaryItemType = .final

    public override init() {
        label = ""
        amount = .zero
        super.init()
    }

    /// A final item.
    public convenience init(label: String, amount: NSDecimalNumber) {
        self.init()
        self.label = label
        self.amount = amount
    }

    /// An item of `type`.
    public convenience init(label: String, amount: NSDecimalNumber, type: PKPaymentSummaryItemType) {
        self.init(label: label, amount: amount)
        self.type = type
    }

    open override var description: String { "<\(Swift.type(of: self)) label=\(label) amount=\(amount)>" }
}

/// A recurring payment's line (`PKRecurringPaymentSummaryItem`).
open class PKRecurringPaymentSummaryItem: PKPaymentSummaryItem, @unchecked Sendable {
    /// When the payments start.
    open var startDate: Date?
    /// The interval's unit (`.day`, `.month`, …).
    open var intervalUnit: NSCalendar.Unit = .month
    /// How many units between payments.
    open var intervalCount: Int = 1
    /// When the payments end.
    open var endDate: Date?
}

/// A payment made later (`PKDeferredPaymentSummaryItem`).
open class PKDeferredPaymentSummaryItem: PKPaymentSummaryItem, @unchecked Sendable {
    /// When it is charged.
    open var deferredDate = Date()
}

/// An automatic reload's line (`PKAutomaticReloadPaymentSummaryItem`).
open class PKAutomaticReloadPaymentSummaryItem: PKPaymentSummaryItem, @unchecked Sendable {
    /// The balance below which the account is reloaded.
    open var thresholdAmount: NSDecimalNumber = .zero
}

/// A range of dates for a delivery (`PKDateComponentsRange`).
open class PKDateComponentsRange: NSObject, @unchecked Sendable {
    /// The first day.
    public let startDateComponents: DateComponents
    /// The last day.
    public let endDateComponents: DateComponents

    /// A range; `nil` when it does not name a calendar day at each end or ends before it starts.
    public init?(start startDateComponents: DateComponents, end endDateComponents: DateComponents) {
        let calendar = Calendar(identifier: .gregorian)
        guard let start = calendar.date(from: startDateComponents), let end = calendar.date(from: endDateComponents),
            start <= end
        else { return nil }
        self.startDateComponents = startDateComponents
        self.endDateComponents = endDateComponents
        super.init()
    }
}

/// A shipping method (`PKShippingMethod`): a summary item with an identifier and a detail.
open class PKShippingMethod: PKPaymentSummaryItem, @unchecked Sendable {
    /// The method's identifier, given back when the shopper chooses it.
    open var identifier: String?
    /// A line under the label (`24小时`, "Arrives in 5 to 7 days").
    open var detail: String?
    /// When it arrives.
    open var dateComponentsRange: PKDateComponentsRange?
}
