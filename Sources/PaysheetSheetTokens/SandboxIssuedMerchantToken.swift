import PaysheetToken

/// A merchant token the sandbox issued in a payment token (a recurring, automatic-reload or
/// deferred payment): what the sandbox needs to send its life-cycle notifications later, as Apple
/// Pay keeps a merchant token's `tokenNotificationURL`. Nothing in it charges anything: the MPAN
/// itself is not kept.
public struct SandboxIssuedMerchantToken: Sendable, Equatable {
    /// `merchantTokenIdentifier`.
    public var merchantTokenIdentifier: String
    /// The SHA-256 of the merchant identifier the token was issued for (the recipient's).
    public var merchantIdentifierHash: [UInt8]
    /// The request's `tokenNotificationURL`, if it named one (no notification is sent otherwise).
    public var tokenNotificationURL: String?
    /// `merchantTokenMetadata`, as the token carried it.
    public var metadata: MerchantTokenMetadata?

    /// A record of an issued merchant token.
    public init(
        merchantTokenIdentifier: String,
        merchantIdentifierHash: [UInt8],
        tokenNotificationURL: String?,
        metadata: MerchantTokenMetadata?
    ) {
        self.merchantTokenIdentifier = merchantTokenIdentifier
        self.merchantIdentifierHash = merchantIdentifierHash
        self.tokenNotificationURL = tokenNotificationURL
        self.metadata = metadata
    }
}
