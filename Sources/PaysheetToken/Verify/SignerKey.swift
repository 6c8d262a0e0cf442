@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import PaysheetTokenFormat
import SwiftASN1
import X509

/// The public key of a validated signing certificate, ready to check signatures.
enum SignerKey: @unchecked Sendable {
    // `@unchecked`: immutable, but swift-crypto (3.12) does not mark `P256.Signing.PublicKey` `Sendable`.
    case p256(P256.Signing.PublicKey)
    case rsa(_RSA.Signing.PublicKey)

    init?(_ key: Certificate.PublicKey) {
        if let publicKey = P256.Signing.PublicKey(key) {
            self = .p256(publicKey)
        } else if let publicKey = _RSA.Signing.PublicKey(key) {
            self = .rsa(publicKey)
        } else {
            return nil
        }
    }

    /// Whether `signature` by `algorithm` is this key's signature of `message`.
    func isValidSignature(
        _ signature: [UInt8],
        algorithm: ASN1ObjectIdentifier,
        message: [UInt8]
    ) throws(PaymentTokenError) -> Bool {
        let digest = SHA256.hash(data: message)
        switch self {
        case .p256(let key):
            guard algorithm == TokenOID.ecdsaWithSHA256 || algorithm == TokenOID.ecPublicKey else {
                throw PaymentTokenError(
                    .signature,
                    "the signer has an EC key but the signature algorithm is \(algorithm); expected ecdsa-with-SHA256"
                )
            }
            guard let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: digest)
        case .rsa(let key):
            guard algorithm == TokenOID.sha256WithRSAEncryption || algorithm == TokenOID.rsaEncryption else {
                throw PaymentTokenError(
                    .signature,
                    "the signer has an RSA key but the signature algorithm is \(algorithm); expected sha256WithRSAEncryption"
                )
            }
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature),
                for: digest,
                padding: .insecurePKCS1v1_5
            )
        }
    }
}
