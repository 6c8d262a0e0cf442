import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// The kind of card (`PKPaymentMethodType`).
public enum PKPaymentMethodType: UInt, Sendable {
    case unknown = 0
    case debit = 1
    case credit = 2
    case prepaid = 3
    case store = 4
    case eMoney = 5

    init(pageName: String?) {
        switch pageName {
        case "debit": self = .debit
        case "credit": self = .credit
        case "prepaid": self = .prepaid
        case "store": self = .store
        case "eMoney": self = .eMoney
        default: self = .unknown
        }
    }
}

/// The card the shopper chose (`PKPaymentMethod`): before authorization, without its billing
/// contact.
open class PKPaymentMethod: NSObject, @unchecked Sendable {
    /// The card's name for people (`Visa 1234`, `银联 8000`).
    open internal(set) var displayName: String?
    /// Its network.
    open internal(set) var network: PKPaymentNetwork?
    /// Credit, debit, …
    open internal(set) var type: PKPaymentMethodType = .unknown

    public override init() { super.init() }

    open override var description: String {
        "<PKPaymentMethod displayName=\(displayName ?? "") network=\(network?.rawValue ?? "") type=\(type)>"
    }
}

/// The payment token (`PKPaymentToken`): `paymentData` is the encrypted token (JSON), what the
/// merchant's server decrypts. Paysheet's are real sandbox tokens.
open class PKPaymentToken: NSObject, @unchecked Sendable {
    /// The card.
    open internal(set) var paymentMethod: PKPaymentMethod
    /// The transaction's identifier.
    open internal(set) var transactionIdentifier: String
    /// The token (`{"version":"EC_v1","data":…,"signature":…,"header":…}`).
    open internal(set) var paymentData: Data

    init(paymentMethod: PKPaymentMethod, transactionIdentifier: String, paymentData: Data) {
        self.paymentMethod = paymentMethod
        self.transactionIdentifier = transactionIdentifier
        self.paymentData = paymentData
        super.init()
    }
}

/// An authorized payment (`PKPayment`).
open class PKPayment: NSObject, @unchecked Sendable {
    /// The token.
    open internal(set) var token: PKPaymentToken
    /// The billing contact, as asked for.
    open internal(set) var billingContact: PKContact?
    /// The shipping contact, as asked for (no longer redacted).
    open internal(set) var shippingContact: PKContact?
    /// The shipping method chosen.
    open internal(set) var shippingMethod: PKShippingMethod?

    init(
        token: PKPaymentToken,
        billingContact: PKContact?,
        shippingContact: PKContact?,
        shippingMethod: PKShippingMethod?
    ) {
        self.token = token
        self.billingContact = billingContact
        self.shippingContact = shippingContact
        self.shippingMethod = shippingMethod
        super.init()
    }
}
