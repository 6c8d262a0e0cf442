/// `ApplePayDisbursementRequest`: a request that pays money out to the shopper's card
/// (WebKit's `ApplePayDisbursementRequest.idl`).
public struct ApplePayDisbursementRequest: Codable, Sendable, Hashable {
    /// The recipient's contact fields the sheet asks for.
    public var requiredRecipientContactFields: [ApplePayContactField]?

    /// A disbursement request asking for `requiredRecipientContactFields`.
    public init(requiredRecipientContactFields: [ApplePayContactField]? = nil) {
        self.requiredRecipientContactFields = requiredRecipientContactFields
    }
}

/// `ApplePayDisbursementLineItemType`: what a line item of a disbursement is.
public enum ApplePayDisbursementLineItemType: String, Codable, Sendable, CaseIterable {
    /// The amount paid out.
    case disbursement
    /// The fee for instant funds out.
    case instantFundsOutFee
}
