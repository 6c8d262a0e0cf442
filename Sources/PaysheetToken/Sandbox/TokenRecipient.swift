@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import Foundation
import PaysheetTokenFormat
import X509

/// Whom a sandbox token is encrypted to: a merchant's public key, its `publicKeyHash` and
/// merchant identifier hash — all read from the payment processing certificate.
public struct TokenRecipient: @unchecked Sendable {
    // `@unchecked`: immutable, but swift-crypto (3.12) does not mark `P256.KeyAgreement.PublicKey` and
    // `_RSA.Encryption.PublicKey` `Sendable`.
    enum Key {
        case p256(P256.KeyAgreement.PublicKey)
        case rsa(_RSA.Encryption.PublicKey)
    }

    let key: Key
    /// SHA-256 of the certificate's SubjectPublicKeyInfo.
    public let publicKeyHash: [UInt8]
    /// SHA-256 of the merchant identifier.
    public let merchantIdentifierHash: [UInt8]

    /// The recipient named by a payment processing certificate.
    public init(certificate: Certificate) throws(PaymentTokenError) {
        if let signingKey = P256.Signing.PublicKey(certificate.publicKey) {
            key = .p256(try! P256.KeyAgreement.PublicKey(rawRepresentation: signingKey.rawRepresentation))
        } else if let signingKey = _RSA.Signing.PublicKey(certificate.publicKey),
            let encryptionKey = try? _RSA.Encryption.PublicKey(derRepresentation: signingKey.derRepresentation)
        {
            key = .rsa(encryptionKey)
        } else {
            throw PaymentTokenError(.invalidKey, "the certificate's key is neither P-256 nor RSA-2048")
        }
        guard let hash = MerchantKey.merchantIdentifierHash(of: certificate) else {
            throw PaymentTokenError(
                .invalidKey,
                "the certificate (\(certificate.subject)) names no merchant identifier; it is not a payment processing certificate"
            )
        }
        publicKeyHash = Array(SHA256.hash(data: MerchantKey.spki(certificate.publicKey)))
        merchantIdentifierHash = hash
    }

    /// The recipient of `key` (its public half).
    public init(_ key: MerchantKey) {
        switch key.privateKey {
        case .p256(let privateKey): self.key = .p256(privateKey.publicKey)
        case .rsa(let privateKey): self.key = .rsa(privateKey.publicKey)
        }
        publicKeyHash = key.publicKeyHash
        merchantIdentifierHash = key.merchantIdentifierHash
    }

    /// The token version this recipient receives.
    public var version: PaymentTokenVersion {
        if case .p256 = key { return .ecV1 }
        return .rsaV1
    }
}
