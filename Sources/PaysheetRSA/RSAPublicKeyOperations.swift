import Crypto
import Foundation
import _CryptoExtras

/// An RSA public key's operations: verifying PKCS #1 v1.5 signatures with SHA-256 and PKCS #1 v1.5
/// encryption (UnionPay's card data).
///
/// On BoringSSL unless asked otherwise, whatever ``RSABackend/selected`` is: a public operation is
/// short (e = 65537), and OpenSSL 3's per-operation context costs more than its faster arithmetic
/// saves (`paysheet-bench tokens`: about 63,000 verifications/s through OpenSSL against 82,000 on
/// BoringSSL on this machine). OpenSSL's path is kept for the tests that check each backend against
/// the other.
package struct RSAPublicKeyOperations: Sendable {
    /// The backend this key's operations run on.
    package let backend: RSABackend
    /// swift-crypto's key.
    package let key: _RSA.Signing.PublicKey
    private let encryption: SharedRSAKey<_RSA.Encryption.PublicKey>?
    private let openSSL: OpenSSLKey?

    /// The operations of swift-crypto's `key`, on `backend` when it can be used.
    package init(_ key: _RSA.Signing.PublicKey, backend: RSABackend = .boringSSL) {
        let der = [UInt8](key.derRepresentation)
        self.key = key
        self.encryption = (try? _RSA.Encryption.PublicKey(derRepresentation: der)).map(SharedRSAKey.init)
        var openSSL: OpenSSLKey?
        if backend == .openSSL, let library = try? RSABackendChoice.system.get() {
            openSSL = OpenSSLKey(publicKeyDER: der, library: library)
        }
        self.openSSL = openSSL
        self.backend = openSSL == nil ? .boringSSL : .openSSL
    }

    /// The size of the modulus in bits.
    package var keySizeInBits: Int { key.keySizeInBits }

    /// Whether `signature` is a PKCS #1 v1.5 signature of SHA-256(`message`).
    package func verifySHA256(signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        let digest = SHA256.hash(data: message)
        if let openSSL { return openSSL.verifyPKCS1(signature: Array(signature), sha256: Array(digest)) }
        return key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature),
            for: digest,
            padding: .insecurePKCS1v1_5
        )
    }

    /// The most bytes one PKCS #1 v1.5 block carries (the modulus's bytes − 11), or nil if the key
    /// cannot encrypt (under 2048 bits, or not a whole number of bytes).
    package var maximumPKCS1MessageSize: Int? {
        encryption?.key.maximumEncryptSize(with: ._WEAK_AND_INSECURE_PKCS_V1_5)
    }

    /// `message` encrypted with PKCS #1 v1.5 padding, or nil if it is longer than one block or the
    /// key cannot encrypt.
    package func encryptPKCS1(_ message: [UInt8]) -> [UInt8]? {
        guard let limit = maximumPKCS1MessageSize, message.count <= limit else { return nil }
        if let openSSL { return openSSL.encryptPKCS1(message) }
        return (try? encryption?.key.encrypt(message, padding: ._WEAK_AND_INSECURE_PKCS_V1_5)).map { Array($0) }
    }
}
