import PaysheetModel

/// What a token is made for: the card, the request, and a per-sheet sequence number.
public struct TokenContext: Sendable {
    /// The card the user authorized with.
    public var card: WalletCard
    /// The validated request (amount, currency, `applicationData`).
    public var request: ApplePayPaymentRequest
    /// The total shown when the user authorized.
    public var total: ApplePayLineItem
    /// 1 for the first authorization of this sheet, 2 for the next, …
    public var sequence: Int

    /// A context (to make a token outside a sheet, in tests).
    public init(card: WalletCard, request: ApplePayPaymentRequest, total: ApplePayLineItem, sequence: Int) {
        self.card = card
        self.request = request
        self.total = total
        self.sequence = sequence
    }
}

/// Makes the `token` of an authorized payment. The sheet engine stays pure: a factory must be
/// deterministic for equal inputs unless it is a real issuer.
public protocol PaymentTokenFactory: Sendable {
    /// The token for `context`.
    func makeToken(for context: TokenContext) -> ApplePayPaymentToken
}

/// A well-formed but unencrypted stand-in token, marked as such, used when no issuer is set.
/// Its `paymentData.version` is `"PAYSHEET_PLACEHOLDER"` so that no back end mistakes it for a
/// real token; use `SandboxTokenFactory` from `PaysheetSheetTokens` for real encrypted tokens.
public struct PlaceholderTokenFactory: PaymentTokenFactory {
    /// A factory.
    public init() {}

    public func makeToken(for context: TokenContext) -> ApplePayPaymentToken {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(context.card.displayName)|\(context.total.amount ?? "")|\(context.sequence)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        var hex = ""
        for index in 0..<4 {
            let part = String((hash &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15), radix: 16, uppercase: true)
            hex += String(repeating: "0", count: 16 - part.count) + part
        }
        let method = ApplePayPaymentMethod(
            displayName: context.card.displayName,
            network: context.card.pageNetworkName,
            type: context.card.type,
            paymentPass: context.card.paymentPass
        )
        let data: JSONValue = [
            "version": "PAYSHEET_PLACEHOLDER",
            "data": "",
            "signature": "",
            "header": ["transactionId": .string(hex.lowercased()), "publicKeyHash": "", "ephemeralPublicKey": ""],
        ]
        return ApplePayPaymentToken(paymentMethod: method, transactionIdentifier: hex, paymentData: data)
    }
}
