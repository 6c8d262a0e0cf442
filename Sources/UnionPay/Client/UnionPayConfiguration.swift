/// Where and as whom a merchant talks to UnionPay's gateway.
public struct UnionPayConfiguration: Sendable, Codable, Equatable {
    /// The gateway's base URL (`https://gateway.95516.com`, `https://gateway.test.95516.com`,
    /// or the sandbox's `http://127.0.0.1:PORT`).
    public var gatewayURL: String
    /// `merId`: the 15-digit merchant number.
    public var merchantId: String
    /// `backUrl`: where the gateway posts notifications.
    public var notificationURL: String
    /// `bizType` (product code of the merchant's contract; `000802` in public Apple Pay code).
    public var bizType: String
    /// `channelType`: `07` internet, `08` mobile.
    public var channelType: String
    /// `accessType`: `0` merchant direct.
    public var accessType: String
    /// The request field that carries the decrypted token's payment data. UnionPay's public
    /// documentation does not name it; `cardTransData` is the default, confirm the
    /// field with your acquirer.
    public var paymentDataField: String
    /// Seconds to wait for the gateway's synchronous answer.
    public var timeout: Double
    /// `trId`: the token requestor id UnionPay assigns for its token payment product (`bizType`
    /// `000902`), sent with merchant-initiated charges of stored merchant tokens; UnionPay's
    /// demos use `62000000001`.
    public var tokenRequestorId: String = "62000000001"
    /// Added to the reason of an answer whose signature does not verify (what to check: the
    /// gateway's root and middle certificates; for a sandbox, that the gateway and the merchant
    /// use the same data folder). Empty: nothing is added.
    public var untrustedAnswerHint: String = ""
    /// Where file transfers (the reconciliation file) go: UnionPay's file download host
    /// (`https://filedownload.95516.com/`, `https://filedownload.test.95516.com/`); by default
    /// the gateway's URL (the sandbox serves both).
    public var fileDownloadURL: String

    /// A configuration with UnionPay's usual values and the test merchant number.
    public init(
        gatewayURL: String,
        merchantId: String = "777290058110048",
        notificationURL: String,
        bizType: String = "000802",
        channelType: String = "07",
        accessType: String = "0",
        paymentDataField: String = "cardTransData",
        timeout: Double = 10,
        fileDownloadURL: String? = nil
    ) {
        self.fileDownloadURL = fileDownloadURL ?? gatewayURL
        self.gatewayURL = gatewayURL
        self.merchantId = merchantId
        self.notificationURL = notificationURL
        self.bizType = bizType
        self.channelType = channelType
        self.accessType = accessType
        self.paymentDataField = paymentDataField
        self.timeout = timeout
    }
}
