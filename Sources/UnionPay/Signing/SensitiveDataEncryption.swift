import Crypto
import _CryptoExtras
import Foundation
import NIOConcurrencyHelpers
import PaysheetRSA
import X509

/// UnionPay's encryption of sensitive fields (the card number `accNo`, and the `encryptedInfo`
/// of composite fields): RSA with PKCS #1 v1.5 padding under UnionPay's encryption certificate,
/// Base64, the certificate's serial in decimal sent as `encryptCertId` — what the SDKs'
/// `encryptData` (`openssl_public_encrypt`, `RSA/ECB/PKCS1Padding`) produce. The process's RSA backend
/// (`RSABackendChoice`: OpenSSL's libcrypto when present, else swift-crypto's BoringSSL, whose
/// name for this padding is `_WEAK_AND_INSECURE_PKCS_V1_5`) does the encryption: UnionPay's
/// protocol asks for this padding, and only the gateway, which holds the key, could be led to
/// reveal anything by its answers.
public struct SensitiveDataEncryptor: Sendable {
    /// `encryptCertId`: the encryption certificate's serial in decimal.
    public let certId: String
    let key: RSAPublicKeyOperations
    /// The most bytes one RSA block carries: the key's size in bytes − 11.
    let blockSize: Int

    /// An encryptor for the RSA key of `certificate` (UnionPay's `acp_prod_enc.cer`, or the sandbox's).
    public init(certificate: Certificate) throws(ACPError) {
        guard let signingKey = _RSA.Signing.PublicKey(certificate.publicKey) else {
            throw ACPError(.credentials, "the encryption certificate does not hold an RSA key")
        }
        let key = RSAPublicKeyOperations(signingKey)
        guard let blockSize = key.maximumPKCS1MessageSize else {
            throw ACPError(
                .credentials,
                "the encryption certificate's RSA key is unusable (\(signingKey.keySizeInBits) bits; 2048 or more, a whole number of bytes)"
            )
        }
        self.key = key
        self.blockSize = blockSize
        self.certId = ACPSigner.decimal(certificate.serialNumber.bytes[...])
    }

    /// `text` encrypted in blocks of at most `modulus bytes − 11` bytes, each Base64, joined by `.`.
    func encryptLong(_ text: String) -> String {
        let bytes = [UInt8](text.utf8)
        guard bytes.count > blockSize else { return encrypt(text) }
        return stride(from: 0, to: bytes.count, by: blockSize).map { start in
            encrypt(bytes: Array(bytes[start..<min(bytes.count, start + blockSize)]))
        }.joined(separator: ".")
    }

    /// `text` encrypted and Base64-encoded (at most one block: `modulus bytes − 11` bytes).
    public func encrypt(_ text: String) -> String { encrypt(bytes: [UInt8](text.utf8)) }

    func encrypt(bytes message: [UInt8]) -> String {
        precondition(message.count <= blockSize, "a sensitive field is longer than one RSA block")
        // Encryption fails only on a message longer than a block, refused above.
        return Data(key.encryptPKCS1(message)!).base64EncodedString()
    }
}

/// The gateway's side of ``SensitiveDataEncryptor``: its encryption key's private operation and
/// the PKCS #1 v1.5 unpadding, on the process's RSA backend.
public struct SensitiveDataDecryptor: Sendable {
    /// `encryptCertId` of the certificate whose key this is.
    public let certId: String
    let key: RSAPrivateKeyOperations

    /// A decryptor with the key of `credentials`.
    public init(credentials: ACPCredentials) throws(ACPError) {
        guard
            let key = try? _RSA.Encryption.PrivateKey(derRepresentation: credentials.privateKey.derRepresentation),
            let operations = try? RSAPrivateKeyOperations(key)
        else {
            throw ACPError(.credentials, "the encryption key is not usable for RSA decryption")
        }
        self.key = operations
        self.certId = ACPSigner.decimal(credentials.certificate.serialNumber.bytes[...])
    }

    /// The text of ``SensitiveDataEncryptor/encryptLong(_:)``'s pieces.
    func decryptLong(_ text: String) throws(ACPError) -> String {
        var bytes: [UInt8] = []
        for piece in text.split(separator: ".", omittingEmptySubsequences: false) {
            bytes += try decryptBytes(String(piece))
        }
        guard let out = String(bytes: bytes, encoding: .utf8) else {
            throw ACPError(.malformed, "an encrypted field is not UTF-8 text")
        }
        return out
    }

    /// The text of a Base64 ciphertext; one error for every way it can be wrong.
    public func decrypt(_ base64: String) throws(ACPError) -> String {
        guard let text = String(bytes: try decryptBytes(base64), encoding: .utf8) else {
            throw ACPError(.malformed, "an encrypted field is not UTF-8 text")
        }
        return text
    }

    func decryptBytes(_ base64: String) throws(ACPError) -> [UInt8] {
        guard let cipher = Data(base64Encoded: base64),
            let plain = key.decryptPKCS1(cipher)
        else {
            throw ACPError(
                .malformed,
                "an encrypted field does not decrypt with the encryption certificate \(certId)"
            )
        }
        return [UInt8](plain)
    }
}

/// The encryption certificate a client uses now; replaced when UnionPay rotates it (both are
/// valid for a month meanwhile).
public final class EncryptionCertificate: Sendable {
    private let encryptor: NIOLockedValueBox<SensitiveDataEncryptor?>

    init(_ encryptor: SensitiveDataEncryptor?) { self.encryptor = NIOLockedValueBox(encryptor) }

    /// The encryptor in use (`nil`: card data goes in clear).
    public var current: SensitiveDataEncryptor? { encryptor.withLockedValue { $0 } }

    func replace(with new: SensitiveDataEncryptor) { encryptor.withLockedValue { $0 = new } }
}
