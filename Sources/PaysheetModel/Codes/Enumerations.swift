/// The merchant capabilities a request may declare (`ApplePayMerchantCapability`).
public enum ApplePayMerchantCapability: String, Codable, Sendable, CaseIterable {
    case supports3DS, supportsEMV, supportsCredit, supportsDebit, supportsInstantFundsOut
}

/// A contact field a request may require (`ApplePayContactField`).
public enum ApplePayContactField: String, Codable, Sendable, CaseIterable {
    case email, name, phone, phoneticName, postalAddress

    /// The field a name stands for: the request's (`email`, `phone`, …) or an error's
    /// `contactField` (`emailAddress`, `phoneNumber`, and the parts of an address, which stand for
    /// `postalAddress`).
    public init?(requestOrErrorName name: String) {
        if let field = Self(rawValue: name) {
            self = field
            return
        }
        switch name {
        case "emailAddress": self = .email
        case "phoneNumber": self = .phone
        case "addressLines", "subLocality", "locality", "postalCode", "subAdministrativeArea", "administrativeArea",
            "country", "countryCode":
            self = .postalAddress
        default: return nil
        }
    }
}

/// Whether a line item's amount is final or pending (`ApplePayLineItemType`).
public enum ApplePayLineItemType: String, Codable, Sendable, CaseIterable {
    case final, pending
}

/// When a line item is paid (`ApplePayPaymentTiming`).
public enum ApplePayPaymentTiming: String, Codable, Sendable, CaseIterable {
    case immediate, recurring, deferred, automaticReload
}

/// The unit of a recurring payment's interval (`ApplePayRecurringPaymentDateUnit`).
public enum ApplePayRecurringPaymentDateUnit: String, Codable, Sendable, CaseIterable {
    case year, month, day, hour, minute
}

/// How the goods reach the buyer (`ApplePayShippingType`).
public enum ApplePayShippingType: String, Codable, Sendable, CaseIterable {
    case shipping, delivery, storePickup, servicePickup
}

/// Whether the user may edit the shipping contact (`ApplePayShippingContactEditingMode`).
public enum ApplePayShippingContactEditingMode: String, Codable, Sendable, CaseIterable {
    case available, enabled, storePickup
}

/// Whether Apple's pay-later option is offered (`ApplePayLaterAvailability`).
public enum ApplePayLaterAvailability: String, Codable, Sendable, CaseIterable {
    case available, unavailableItemIneligible, unavailableRecurringTransaction
}

/// The kind of card (`ApplePayPaymentMethodType`).
public enum ApplePayPaymentMethodType: String, Codable, Sendable, CaseIterable {
    case debit, credit, prepaid, store
}

/// The activation state of a payment pass (`ApplePayPaymentPassActivationState`).
public enum ApplePayPaymentPassActivationState: String, Codable, Sendable, CaseIterable {
    case activated, requiresActivation, activating, suspended, deactivated
}

/// The error codes of `ApplePayError`.
public enum ApplePayErrorCode: String, Codable, Sendable, CaseIterable {
    case unknown, shippingContactInvalid, billingContactInvalid, addressUnserviceable
    case couponCodeInvalid, couponCodeExpired
}

/// The contact fields an `ApplePayError` may point at.
public enum ApplePayErrorContactField: String, Codable, Sendable, CaseIterable {
    case phoneNumber, emailAddress, name, phoneticName, postalAddress, addressLines, subLocality
    case locality, postalCode, subAdministrativeArea, administrativeArea, country, countryCode
}

/// The `STATUS_*` codes of `completePayment` and the legacy completions.
public enum ApplePayStatus: Int, Codable, Sendable, CaseIterable {
    case success = 0
    case failure = 1
    case invalidBillingPostalAddress = 2
    case invalidShippingPostalAddress = 3
    case invalidShippingContact = 4
    case pinRequired = 5
    case pinIncorrect = 6
    case pinLockout = 7

    /// The constant's name on `ApplePaySession`, e.g. `STATUS_SUCCESS`.
    public var constantName: String {
        switch self {
        case .success: return "STATUS_SUCCESS"
        case .failure: return "STATUS_FAILURE"
        case .invalidBillingPostalAddress: return "STATUS_INVALID_BILLING_POSTAL_ADDRESS"
        case .invalidShippingPostalAddress: return "STATUS_INVALID_SHIPPING_POSTAL_ADDRESS"
        case .invalidShippingContact: return "STATUS_INVALID_SHIPPING_CONTACT"
        case .pinRequired: return "STATUS_PIN_REQUIRED"
        case .pinIncorrect: return "STATUS_PIN_INCORRECT"
        case .pinLockout: return "STATUS_PIN_LOCKOUT"
        }
    }
}

/// `ApplePayFeature`: the features a request may name (current WebKit's enumeration, IDL order).
public enum ApplePayFeature: String, Codable, Sendable, CaseIterable {
    case applePayLater, applePayLaterAvailability, authorizationResultOrderDetails, lineItemPaymentTiming
    case paymentRequestAutomaticReload, paymentRequestCouponCode, paymentRequestMerchantCategoryCode
    case paymentRequestMultiTokenContexts, paymentRequestRecurring, paymentRequestShippingContactEditingMode
    case paymentTimingAutomaticReload, paymentRequestDeferred, paymentTimingDeferred, paymentTimingImmediate
    case paymentTimingRecurring, shippingContactEditingModeEnabled, shippingContactEditingModeStorePickup
    case shippingMethodDateComponentsRange, paymentRequestDisbursements, paymentRequestDelegation
}
