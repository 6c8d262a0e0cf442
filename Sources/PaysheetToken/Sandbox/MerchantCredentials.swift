@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import Foundation
import PaysheetTokenFormat
import SwiftASN1
import X509

/// A merchant's payment processing key, its certificate signing request and the sandbox
/// certificate issued for it: what `paysheet keys create` makes.
public struct MerchantCredentials: Sendable {
    /// The key type of a new payment processing key.
    public enum KeyType: String, Sendable, CaseIterable {
        /// P-256, for EC_v1 tokens (everywhere but where regulation requires RSA).
        case ec
        /// RSA-2048, for RSA_v1 tokens.
        case rsa
    }

    /// The merchant identifier (`merchant.com.example`).
    public let merchantIdentifier: String
    /// The private key.
    public let privateKey: MerchantPrivateKey
    /// The certificate signing request.
    public let csr: CertificateSigningRequest
    /// The payment processing certificate issued by the sandbox PKI.
    public let certificate: Certificate

    /// New credentials: a new key of `keyType` (or `existingKey`), its CSR, and a certificate
    /// from `pki` naming `merchantIdentifier`.
    public static func create(
        merchantIdentifier: String,
        keyType: KeyType = .ec,
        existingKey: MerchantPrivateKey? = nil,
        pki: SandboxPKI,
        now: Date = Date()
    ) throws -> MerchantCredentials {
        guard !merchantIdentifier.isEmpty, merchantIdentifier.count <= 128,
            merchantIdentifier.allSatisfy({ $0.isASCII && !$0.isWhitespace })
        else {
            throw PaymentTokenError(
                .invalidKey,
                "the merchant identifier must be 1–128 printable ASCII characters without spaces (for example merchant.com.example)"
            )
        }
        let privateKey: MerchantPrivateKey
        if let existingKey {
            privateKey = existingKey
        } else {
            switch keyType {
            case .ec: privateKey = .p256(P256.KeyAgreement.PrivateKey())
            case .rsa: privateKey = .rsa(try _RSA.Encryption.PrivateKey(keySize: .bits2048))
            }
        }
        let signingKey: Certificate.PrivateKey
        let algorithm: Certificate.SignatureAlgorithm
        switch privateKey {
        case .p256(let privateKey):
            signingKey = .init(try P256.Signing.PrivateKey(rawRepresentation: privateKey.rawRepresentation))
            algorithm = .ecdsaWithSHA256
        case .rsa(let privateKey):
            signingKey = .init(try _RSA.Signing.PrivateKey(derRepresentation: privateKey.derRepresentation))
            algorithm = .sha256WithRSAEncryption
        }
        let subject = try DistinguishedName {
            CountryName("US")
            OrganizationName("Paysheet sandbox merchant")
            CommonName(merchantIdentifier)
        }
        let csr = try CertificateSigningRequest(
            version: .v1,
            subject: subject,
            privateKey: signingKey,
            attributes: .init(),
            signatureAlgorithm: algorithm
        )
        let certificate = try pki.issueMerchantCertificate(for: csr, merchantIdentifier: merchantIdentifier, now: now)
        return MerchantCredentials(
            merchantIdentifier: merchantIdentifier,
            privateKey: privateKey,
            csr: csr,
            certificate: certificate
        )
    }

    /// The key with its certificate, for decrypting.
    public var merchantKey: MerchantKey {
        try! MerchantKey(certificate: certificate, privateKey: privateKey)
    }

    /// Writes `key.pem` (0600), `csr.pem` and `certificate.pem` into `folder`; returns their paths.
    @discardableResult
    public func save(folder: String) throws -> (privateKey: String, csr: String, certificate: String) {
        let paths = (folder + "/key.pem", folder + "/csr.pem", folder + "/certificate.pem")
        try TokenFiles.write(privateKey.pkcs8PEM, to: paths.0, mode: 0o600)
        try TokenFiles.write(csr.serializeAsPEM().pemString + "\n", to: paths.1, mode: 0o644)
        try TokenFiles.write(certificate.serializeAsPEM().pemString + "\n", to: paths.2, mode: 0o644)
        return paths
    }
}
