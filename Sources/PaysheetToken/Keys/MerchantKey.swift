@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import PaysheetModel
import PaysheetRSA
import Foundation
import PaysheetTokenFormat
import SwiftASN1
import X509

/// One merchant payment processing key: the private key, the merchant identifier hash the KDF
/// needs, and the `publicKeyHash` that tokens encrypted to it carry.
public struct MerchantKey: Sendable {
    /// The private key.
    public let privateKey: MerchantPrivateKey
    /// SHA-256 of the merchant identifier (the KDF's PartyV).
    public let merchantIdentifierHash: [UInt8]
    /// SHA-256 of the certificate's SubjectPublicKeyInfo, as in a token's `header.publicKeyHash`.
    public let publicKeyHash: [UInt8]
    /// The payment processing certificate, when the key was loaded with one.
    public let certificate: Certificate?
    /// An RSA_v1 key's private operation on the process's RSA backend (nil for EC_v1 keys).
    private(set) var rsaOperations: RSAPrivateKeyOperations?

    /// A key from its payment processing certificate, which names the merchant identifier.
    /// Fails when the certificate has no merchant identifier or belongs to another key.
    public init(certificate: Certificate, privateKey: MerchantPrivateKey) throws(PaymentTokenError) {
        let certificateSPKI = Self.spki(certificate.publicKey)
        guard certificateSPKI == Self.certificateSPKI(of: privateKey) else {
            throw PaymentTokenError(
                .invalidKey,
                "the certificate (\(certificate.subject)) is not the certificate of this private key; use the certificate issued for the CSR made from this key"
            )
        }
        guard let hash = Self.merchantIdentifierHash(of: certificate) else {
            throw PaymentTokenError(
                .invalidKey,
                "the certificate (\(certificate.subject)) names no merchant identifier (extension 1.2.840.113635.100.6.32 or subject UID); it is not a payment processing certificate"
            )
        }
        self.privateKey = privateKey
        self.merchantIdentifierHash = hash
        self.publicKeyHash = Array(SHA256.hash(data: certificateSPKI))
        self.certificate = certificate
        self.rsaOperations = Self.rsaOperations(of: privateKey)
    }

    /// A key without its certificate: the merchant identifier is given as text
    /// (`merchant.com.example`), and the public key hash is computed from the private key.
    public init(merchantIdentifier: String, privateKey: MerchantPrivateKey) {
        self.privateKey = privateKey
        self.merchantIdentifierHash = Array(SHA256.hash(data: Data(merchantIdentifier.utf8)))
        self.publicKeyHash = Array(SHA256.hash(data: Self.certificateSPKI(of: privateKey)))
        self.certificate = nil
        self.rsaOperations = Self.rsaOperations(of: privateKey)
    }

    private static func rsaOperations(
        of privateKey: MerchantPrivateKey,
        backend: RSABackend = .selected
    ) -> RSAPrivateKeyOperations? {
        guard case .rsa(let key) = privateKey else { return nil }
        return try? RSAPrivateKeyOperations(key, backend: backend)
    }

    /// This key with its RSA operation on `backend` (benchmarks and tests compare the two).
    package func using(_ backend: RSABackend) -> MerchantKey {
        var key = self
        key.rsaOperations = Self.rsaOperations(of: privateKey, backend: backend)
        return key
    }

    /// Loads a certificate PEM file and a private key PEM file.
    public init(
        certificateFile: String,
        privateKeyFile: String,
        permissions: KeyFile.PermissionPolicy
    ) throws(PaymentTokenError) {
        let certificate = try Self.certificate(file: certificateFile)
        try self.init(
            certificate: certificate,
            privateKey: MerchantPrivateKey(contentsOf: privateKeyFile, permissions: permissions)
        )
    }

    /// The first certificate in the PEM file at `path`.
    public static func certificate(
        file path: String,
        what: String = "certificate"
    ) throws(PaymentTokenError) -> Certificate {
        try certificate(pem: TokenFiles.readText(path, what: what))
    }

    /// The first certificate in PEM `text`.
    public static func certificate(pem text: String) throws(PaymentTokenError) -> Certificate {
        let documents = try TokenFiles.pemDocuments(text, what: "certificate")
        guard let document = documents.first(where: { $0.discriminator == "CERTIFICATE" }) else {
            throw PaymentTokenError(.invalidKey, "no CERTIFICATE PEM block found")
        }
        do {
            return try Certificate(derEncoded: document.derBytes)
        } catch {
            throw PaymentTokenError(.invalidKey, "the certificate is not a valid X.509 certificate (\(error))")
        }
    }

    /// The merchant identifier hash a certificate carries: the hexadecimal value of extension
    /// 1.2.840.113635.100.6.32, else SHA-256 of the subject's UID.
    public static func merchantIdentifierHash(of certificate: Certificate) -> [UInt8]? {
        if let ext = certificate.extensions[oid: TokenOID.merchantIdentifier] {
            var text: String?
            if let node = try? DER.parse(ext.value) {
                if let string = try? ASN1UTF8String(derEncoded: node) {
                    text = String(string)
                } else if let string = try? ASN1IA5String(derEncoded: node) {
                    text = String(string)
                } else if let string = try? ASN1PrintableString(derEncoded: node) {
                    text = String(string)
                } else if let octets = try? ASN1OctetString(derEncoded: node) {
                    text = String(decoding: octets.bytes, as: UTF8.self)
                }
            } else {
                text = String(decoding: ext.value, as: UTF8.self)
            }
            let cleaned = text.map { String($0.filter(\.isHexDigit)) }
            if let cleaned, let bytes = Hex.decode(cleaned), bytes.count == 32 { return bytes }
        }
        let uid: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == uid {
                let text = String(describing: attribute.value)
                if !text.isEmpty { return Array(SHA256.hash(data: Data(text.utf8))) }
            }
        }
        return nil
    }

    /// The SubjectPublicKeyInfo a certificate for `key` would carry.
    static func certificateSPKI(of key: MerchantPrivateKey) -> [UInt8] {
        spki(certificatePublicKey(of: key))
    }

    /// The DER SubjectPublicKeyInfo of `key`: the bytes `publicKeyHash` hashes.
    static func spki(_ key: Certificate.PublicKey) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(key)
        return serializer.serializedBytes
    }

    /// The public key of `key` as swift-certificates names it.
    static func certificatePublicKey(of key: MerchantPrivateKey) -> Certificate.PublicKey {
        switch key {
        case .p256(let key):
            return Certificate.PublicKey(
                try! P256.Signing.PublicKey(rawRepresentation: key.publicKey.rawRepresentation)
            )
        case .rsa(let key):
            return Certificate.PublicKey(
                try! _RSA.Signing.PublicKey(derRepresentation: key.publicKey.derRepresentation)
            )
        }
    }
}
