import Foundation
import PaysheetModel
import PaysheetTokenFormat

/// A token that was verified and decrypted.
public struct DecryptedPaymentToken: Sendable {
    /// The verified token (header, signing time, signer).
    public let verified: VerifiedPaymentToken
    /// The decrypted payment data.
    public let paymentData: DecryptedPaymentData
}

/// Verifies, decrypts and checks a payment token for replay: the one call a back end makes.
///
/// ```swift
/// let decryptor = PaymentTokenDecryptor(keys: MerchantKeyring([try MerchantKey(
///     certificateFile: "apple_pay.pem", privateKeyFile: "apple_pay.key", permissions: .refuse)]))
/// let result = try await decryptor.decrypt(json: tokenBytes)
/// ```
public struct PaymentTokenDecryptor: Sendable {
    /// The verifier (trust anchors, signing-time window, chain cache).
    public let verifier: PaymentTokenVerifier
    /// The merchant keys.
    public var keys: MerchantKeyring
    /// Where accepted transaction ids are recorded; `nil` disables replay detection.
    public let replayGuard: (any ReplayGuard)?

    /// A decryptor with `keys`, verifying with `verifier` and rejecting replays with `replayGuard`.
    public init(
        keys: MerchantKeyring,
        verifier: PaymentTokenVerifier = PaymentTokenVerifier(),
        replayGuard: (any ReplayGuard)? = InMemoryReplayGuard()
    ) {
        self.keys = keys
        self.verifier = verifier
        self.replayGuard = replayGuard
    }

    /// Verifies and decrypts `token` at `time`.
    public func decrypt(
        _ token: PaymentTokenData,
        at time: Date = Date()
    ) async throws(PaymentTokenError) -> DecryptedPaymentToken {
        try decrypt(verified: try await verifier.verify(token, at: time), at: time)
    }

    /// Decrypts a token that ``verifier`` verified at `time` and checks it for replay: the second
    /// half of ``decrypt(_:at:)``, for a caller that times verification and decryption apart.
    public func decrypt(
        verified: VerifiedPaymentToken,
        at time: Date = Date()
    ) throws(PaymentTokenError) -> DecryptedPaymentToken {
        let data = try keys.decrypt(verified)
        let transactionId = verified.token.header.transactionId
        if let replayGuard,
            !replayGuard.recordFirstUse(of: transactionId, signedAt: verified.signingTime, now: time)
        {
            throw PaymentTokenError(
                .replayed,
                "transactionId \(transactionId) was already accepted; a token is good for one payment"
            )
        }
        return DecryptedPaymentToken(verified: verified, paymentData: data)
    }

    /// Parses, verifies and decrypts token JSON (see `PaymentTokenData/init(json:)`).
    public func decrypt(json: [UInt8], at time: Date = Date()) async throws(PaymentTokenError) -> DecryptedPaymentToken
    {
        try await decrypt(PaymentTokenData(json: json), at: time)
    }
}
