import PaysheetModel

/// The `header` of a payment token, decoded to bytes.
public struct PaymentTokenHeader: Sendable, Equatable {
    /// `ephemeralPublicKey` (EC_v1): the DER SubjectPublicKeyInfo of the sender's P-256 key.
    public var ephemeralPublicKey: [UInt8]?
    /// `wrappedKey` (RSA_v1): the symmetric key encrypted with RSA-OAEP-SHA256.
    public var wrappedKey: [UInt8]?
    /// `publicKeyHash`: SHA-256 of the merchant certificate's SubjectPublicKeyInfo.
    public var publicKeyHash: [UInt8]
    /// `transactionId` as written (hexadecimal).
    public var transactionId: String
    /// `transactionId` decoded.
    public var transactionIdBytes: [UInt8]
    /// `applicationData`: SHA-256 of the request's `applicationData`, decoded from hexadecimal.
    public var applicationData: [UInt8]?

    /// A header from its parts.
    public init(
        ephemeralPublicKey: [UInt8]? = nil,
        wrappedKey: [UInt8]? = nil,
        publicKeyHash: [UInt8],
        transactionId: String,
        applicationData: [UInt8]? = nil
    ) {
        self.ephemeralPublicKey = ephemeralPublicKey
        self.wrappedKey = wrappedKey
        self.publicKeyHash = publicKeyHash
        self.transactionId = transactionId
        self.transactionIdBytes = Hex.decode(transactionId) ?? []
        self.applicationData = applicationData
    }
}
