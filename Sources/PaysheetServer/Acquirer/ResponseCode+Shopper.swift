import UnionPay

extension ResponseCode {
    /// What the payment sheet tells the shopper when a payment failed with this code: the card's
    /// own refusals in a few words, anything else as a plain decline (the same texts as
    /// `PaymentService.sheetMessage(forDecline:)`, which a test holds them to).
    public var shopperMessage: String {
        switch self {
        case .cardStatusIncorrect: "Card is frozen or closed"
        case .insufficientFunds: "Insufficient funds"
        case .wrongCardDetails: "Card details were not accepted"
        case .pinTriesExceeded: "Too many PIN attempts"
        case .cardExpired: "Card has expired"
        case .issuerDeclined, .issuerRestricted: "Card was declined by the issuer"
        case .invalidCardNumber: "Card number is not valid"
        default: "Payment was declined"
        }
    }
}
