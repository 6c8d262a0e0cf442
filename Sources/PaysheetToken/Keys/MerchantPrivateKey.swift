@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import Foundation
import PaysheetModel
import PaysheetTokenFormat
import SwiftASN1

/// A merchant's payment processing private key: P-256 for EC_v1 tokens, RSA-2048 for RSA_v1.
public enum MerchantPrivateKey: Sendable {
    /// An EC_v1 key.
    case p256(P256.KeyAgreement.PrivateKey)
    /// An RSA_v1 key.
    case rsa(_RSA.Encryption.PrivateKey)

    /// Reads a private key from PEM text in any form Apple Pay tooling produces: PKCS#8
    /// (`PRIVATE KEY`), SEC1 (`EC PRIVATE KEY`, with or without a preceding `EC PARAMETERS`
    /// block) or PKCS#1 (`RSA PRIVATE KEY`).
    public init(pem text: String) throws(PaymentTokenError) {
        let documents = try TokenFiles.pemDocuments(text, what: "private key")
        let keyTypes = ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"]
        guard let document = documents.first(where: { keyTypes.contains($0.discriminator) }) else {
            let found = documents.map(\.discriminator).joined(separator: ", ")
            if documents.contains(where: { $0.discriminator == "ENCRYPTED PRIVATE KEY" }) {
                throw PaymentTokenError(
                    .invalidKey,
                    "the private key is encrypted; decrypt it first (openssl pkey -in KEY -out PLAIN)"
                )
            }
            throw PaymentTokenError(.invalidKey, "no private key PEM block found (found: \(found))")
        }
        switch document.discriminator {
        case "EC PRIVATE KEY":
            if let key = try? P256.KeyAgreement.PrivateKey(derRepresentation: document.derBytes) {
                self = .p256(key)
                return
            }
            throw PaymentTokenError(
                .invalidKey,
                "the EC private key is not on P-256 (prime256v1), the curve of EC_v1 tokens"
            )
        case "RSA PRIVATE KEY":
            self = try Self.rsa(document.derBytes)
        default:
            if let key = try? P256.KeyAgreement.PrivateKey(derRepresentation: document.derBytes) {
                self = .p256(key)
            } else {
                self = try Self.rsa(document.derBytes)
            }
        }
    }

    private static func rsa(_ der: [UInt8]) throws(PaymentTokenError) -> MerchantPrivateKey {
        if let key = try? _RSA.Encryption.PrivateKey(derRepresentation: der) { return .rsa(key) }
        if let key = try? _RSA.Encryption.PrivateKey(unsafeDERRepresentation: der) {
            throw PaymentTokenError(.invalidKey, "the RSA key has \(key.keySizeInBits) bits; RSA_v1 keys are 2048 bits")
        }
        throw PaymentTokenError(.invalidKey, "the private key is neither a P-256 EC key nor an RSA key")
    }

    /// Reads the key file at `path` (see ``init(pem:)``), checking its permissions.
    public init(contentsOf path: String, permissions: KeyFile.PermissionPolicy) throws(PaymentTokenError) {
        try self.init(pem: TokenFiles.readPrivateKeyText(path, policy: permissions))
    }

    /// The DER SubjectPublicKeyInfo of the public key.
    public var publicKeySPKI: [UInt8] {
        switch self {
        case .p256(let key): return [UInt8](key.publicKey.derRepresentation)
        case .rsa(let key): return [UInt8](key.publicKey.derRepresentation)
        }
    }

    /// The token version this key decrypts.
    public var tokenVersion: PaymentTokenVersion {
        switch self {
        case .p256: return .ecV1
        case .rsa: return .rsaV1
        }
    }

    /// The key as PKCS#8 PEM, for writing to a file with mode 0600.
    public var pkcs8PEM: String {
        switch self {
        case .p256(let key): return key.pemRepresentation
        case .rsa(let key): return key.pkcs8PEMRepresentation
        }
    }
}

extension MerchantPrivateKey: CustomStringConvertible {
    /// Names the key type only; never the key material.
    public var description: String {
        switch self {
        case .p256: return "P-256 private key (EC_v1)"
        case .rsa(let key): return "RSA-\(key.keySizeInBits) private key (RSA_v1)"
        }
    }
}
