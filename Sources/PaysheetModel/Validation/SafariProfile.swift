/// Which Safari's rules the simulator follows. Rules changed over the years (WebKit's
/// history of `PaymentRequestValidator`); Paysheet pins the current one by default and keeps two historical ones
/// for merchants who support old devices and for WebKit's older test expectations.
public enum SafariProfile: String, Sendable, Codable, CaseIterable {
    /// Safari 18 (WebKit trunk 2024–2025): API versions 1–15, amounts with any number of fraction
    /// digits, zero totals allowed, no maximum total, empty contact-field lists allowed.
    case current = "safari-18"
    /// Safari 12.1 – 14.1 (WebCore 7606.2 – 7611): API versions 1–11, at most two fraction digits,
    /// zero total allowed, "Total amount is too big." above 100,000,000, no coupon error codes.
    case safari14 = "safari-14"
    /// Safari 11 – 12.0 (WebCore 7604 – 7606.1): API versions 1–3, zero total rejected, empty
    /// contact-field lists rejected.
    case safari12 = "safari-12.0"

    /// The newest API version this Safari supports (`PaymentAPIVersion::current()`).
    public var currentAPIVersion: Int {
        switch self {
        case .current: return 15
        case .safari14: return 11
        case .safari12: return 3
        }
    }

    /// Whether amounts may have more than two fraction digits.
    var allowsLongFractions: Bool { self == .current }
    /// Whether the constructor already checks the Apple Pay method's data (current WebKit's
    /// `PaymentHandler::validateData`); older Safaris check it at `show()` only.
    var validatesPaymentMethodDataAtConstruction: Bool { self == .current }
    /// Whether a request that asks for no shipping keeps no shipping options (current WebKit).
    public var dropsShippingOptionsWithoutShipping: Bool { self == .current }
    /// Whether a zero total is rejected.
    var rejectsZeroTotal: Bool { self == .safari12 }
    /// The largest total accepted, if any.
    var maximumTotal: Decimal? { self == .current ? nil : Decimal(100_000_000) }
    /// Whether an empty required-contact-field list is rejected.
    var rejectsEmptyContactFields: Bool { self == .safari12 }
    /// The error codes `new ApplePayError` accepts.
    public var errorCodes: [ApplePayErrorCode] {
        self == .current
            ? ApplePayErrorCode.allCases
            : [.unknown, .shippingContactInvalid, .billingContactInvalid, .addressUnserviceable]
    }
}

import Foundation
