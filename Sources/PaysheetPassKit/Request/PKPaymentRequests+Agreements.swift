import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// A subscription's request for a merchant token (`PKRecurringPaymentRequest`).
open class PKRecurringPaymentRequest: NSObject, @unchecked Sendable {
    open var paymentDescription: String
    open var regularBilling: PKRecurringPaymentSummaryItem
    open var trialBilling: PKRecurringPaymentSummaryItem?
    open var billingAgreement: String?
    open var managementURL: URL
    open var tokenNotificationURL: URL?

    public init(paymentDescription: String, regularBilling: PKRecurringPaymentSummaryItem, managementURL: URL) {
        self.paymentDescription = paymentDescription
        self.regularBilling = regularBilling
        self.managementURL = managementURL
        super.init()
    }
}

/// An automatic reload's request for a merchant token (`PKAutomaticReloadPaymentRequest`).
open class PKAutomaticReloadPaymentRequest: NSObject, @unchecked Sendable {
    open var paymentDescription: String
    open var automaticReloadBilling: PKAutomaticReloadPaymentSummaryItem
    open var billingAgreement: String?
    open var managementURL: URL
    open var tokenNotificationURL: URL?

    public init(
        paymentDescription: String,
        automaticReloadBilling: PKAutomaticReloadPaymentSummaryItem,
        managementURL: URL
    ) {
        self.paymentDescription = paymentDescription
        self.automaticReloadBilling = automaticReloadBilling
        self.managementURL = managementURL
        super.init()
    }
}

/// A deferred payment's request for a merchant token (`PKDeferredPaymentRequest`).
open class PKDeferredPaymentRequest: NSObject, @unchecked Sendable {
    open var paymentDescription: String
    open var deferredBilling: PKDeferredPaymentSummaryItem
    open var billingAgreement: String?
    open var managementURL: URL
    open var tokenNotificationURL: URL?
    open var freeCancellationDate: Date?
    open var freeCancellationDateTimeZone: TimeZone?

    public init(paymentDescription: String, deferredBilling: PKDeferredPaymentSummaryItem, managementURL: URL) {
        self.paymentDescription = paymentDescription
        self.deferredBilling = deferredBilling
        self.managementURL = managementURL
        super.init()
    }
}

/// One merchant's part of a multi-merchant payment (`PKPaymentTokenContext`).
open class PKPaymentTokenContext: NSObject, @unchecked Sendable {
    open var merchantIdentifier: String
    open var externalIdentifier: String
    open var merchantName: String
    open var merchantDomain: String?
    open var amount: NSDecimalNumber

    public init(
        merchantIdentifier: String,
        externalIdentifier: String,
        merchantName: String,
        merchantDomain: String?,
        amount: NSDecimalNumber
    ) {
        self.merchantIdentifier = merchantIdentifier
        self.externalIdentifier = externalIdentifier
        self.merchantName = merchantName
        self.merchantDomain = merchantDomain
        self.amount = amount
        super.init()
    }
}
