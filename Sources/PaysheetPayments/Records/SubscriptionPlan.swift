import Foundation
import PaysheetModel

/// A plan the merchant sells as a payment that continues after today: a subscription
/// (`recurring`, with an optional trial) or an automatic reload (`automaticReload`: the merchant
/// tops up a stored balance when it falls below a threshold). An order naming a plan asks the
/// sheet for a merchant token; its first payment starts an agreement that the merchant charges
/// later with `POST /v1/agreements/{id}/charges`.
public struct SubscriptionPlan: Sendable, Codable, Equatable {
    /// What kind of plan (the settings' `kind`).
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A subscription: one charge per period, with an optional trial.
        case recurring
        /// An automatic reload: a charge whenever the merchant tops up.
        case automaticReload
    }

    /// The unit of a subscription's period (the settings' `intervalUnit`, Apple Pay's names).
    public enum IntervalUnit: String, Sendable, Codable, CaseIterable {
        /// Years.
        case year
        /// Months.
        case month
        /// Days.
        case day
        /// Hours.
        case hour
        /// Minutes.
        case minute
    }

    /// The plan's identifier (`tea-monthly`), unique among the merchant's plans.
    public var id: String
    /// A subscription or an automatic reload.
    public var kind: Kind
    /// What the payment is for (the sheet's `paymentDescription`).
    public var description: String
    /// The regular (or reload) billing line's label.
    public var label: String
    /// The regular (or reload) amount, decimal text in ``currencyCode``.
    public var amount: String
    /// ISO 4217 code.
    public var currencyCode: String
    /// The unit of the period between charges (recurring).
    public var intervalUnit: IntervalUnit = .month
    /// How many units between charges (recurring).
    public var intervalCount: Int = 1
    /// The trial's label (recurring; with ``trialAmount``).
    public var trialLabel: String?
    /// The first period's amount (recurring); without it the first payment is a regular one.
    public var trialAmount: String?
    /// The balance below which the merchant reloads (automatic reload).
    public var thresholdAmount: String?
    /// The agreement the sheet shows.
    public var billingAgreement: String

    /// A plan.
    public init(
        id: String,
        kind: Kind,
        description: String,
        label: String,
        amount: String,
        currencyCode: String,
        intervalUnit: IntervalUnit = .month,
        intervalCount: Int = 1,
        trialLabel: String? = nil,
        trialAmount: String? = nil,
        thresholdAmount: String? = nil,
        billingAgreement: String
    ) {
        self.id = id
        self.kind = kind
        self.description = description
        self.label = label
        self.amount = amount
        self.currencyCode = currencyCode
        self.intervalUnit = intervalUnit
        self.intervalCount = intervalCount
        self.trialLabel = trialLabel
        self.trialAmount = trialAmount
        self.thresholdAmount = thresholdAmount
        self.billingAgreement = billingAgreement
    }

    /// The first payment's line: the trial's, or a regular one when there is no trial.
    package var firstLine: (label: String, amount: String) {
        trialAmount.map { (trialLabel ?? label, $0) } ?? (label, amount)
    }

    /// Whether this is a subscription (a charge per period) rather than an automatic reload.
    public var isRecurring: Bool { kind == .recurring }

    /// The calendar step between two charges.
    package var interval: (component: Calendar.Component, count: Int)? {
        let c: Calendar.Component =
            switch intervalUnit {
            case .year: .year
            case .month: .month
            case .day: .day
            case .hour: .hour
            case .minute: .minute
            }
        return intervalCount >= 1 ? (c, intervalCount) : nil
    }

    /// The date `periods` intervals after `start` (UTC, Gregorian).
    public func date(after periods: Int, from start: Date) -> Date {
        guard let (component, count) = interval else { return start }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(byAdding: component, value: count * periods, to: start) ?? start
    }
}
