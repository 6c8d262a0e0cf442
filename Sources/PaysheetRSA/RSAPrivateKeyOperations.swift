import Crypto
import Foundation
import _CryptoExtras

/// An RSA private key's operations on the chosen backend (``RSABackend``): PKCS #1 v1.5
/// signatures with SHA-256 (UnionPay's `signMethod=01`), RSA-OAEP-SHA256 decryption (RSA_v1
/// tokens' wrapped keys) and PKCS #1 v1.5 decryption (UnionPay's card data, at the gateway).
///
/// With OpenSSL chosen, the key is decoded by OpenSSL too and checked once against BoringSSL: a
/// signature of a fixed message from each must be the same bytes, or the key stays on BoringSSL
/// (``backend`` says which it uses).
package struct RSAPrivateKeyOperations: Sendable {
    /// The backend this key's operations run on.
    package let backend: RSABackend
    /// swift-crypto's key (for what the operations here do not cover).
    package let key: _RSA.Signing.PrivateKey
    private let encryption: SharedRSAKey<_RSA.Encryption.PrivateKey>?
    private let openSSL: OpenSSLKey?

    /// The operations of swift-crypto's `key`, on `backend` when it can be used.
    package init(_ key: _RSA.Signing.PrivateKey, backend: RSABackend = .selected) {
        let der = [UInt8](key.derRepresentation)
        self.init(
            signing: key,
            encryption: try? _RSA.Encryption.PrivateKey(derRepresentation: der),
            der: der,
            backend: backend
        )
    }

    /// The operations of swift-crypto's `key`, on `backend` when it can be used.
    package init(_ key: _RSA.Encryption.PrivateKey, backend: RSABackend = .selected) throws {
        let der = [UInt8](key.derRepresentation)
        self.init(
            signing: try _RSA.Signing.PrivateKey(derRepresentation: der),
            encryption: key,
            der: der,
            backend: backend
        )
    }

    private init(
        signing: _RSA.Signing.PrivateKey,
        encryption: _RSA.Encryption.PrivateKey?,
        der: [UInt8],
        backend: RSABackend
    ) {
        self.key = signing
        self.encryption = encryption.map(SharedRSAKey.init)
        var openSSL: OpenSSLKey?
        if backend == .openSSL, let library = try? RSABackendChoice.system.get(),
            let key = OpenSSLKey(privateKeyDER: der, library: library),
            Self.agree(key, signing)
        {
            openSSL = key
        }
        self.openSSL = openSSL
        self.backend = openSSL == nil ? .boringSSL : .openSSL
    }

    /// Whether OpenSSL's and BoringSSL's PKCS #1 v1.5 signatures of one message are the same.
    private static func agree(_ key: OpenSSLKey, _ signing: _RSA.Signing.PrivateKey) -> Bool {
        let digest = SHA256.hash(data: Array("Paysheet: OpenSSL and BoringSSL agree on this key".utf8))
        guard let theirs = try? signing.signature(for: digest, padding: .insecurePKCS1v1_5) else { return false }
        return key.signPKCS1(sha256: Array(digest)) == Array(theirs.rawRepresentation)
    }

    /// The public key.
    package var publicKey: _RSA.Signing.PublicKey { key.publicKey }

    /// A PKCS #1 v1.5 signature of SHA-256(`message`) (`SHA256withRSA`).
    package func signSHA256(_ message: some DataProtocol) -> [UInt8] {
        let digest = SHA256.hash(data: message)
        if let openSSL, let signature = openSSL.signPKCS1(sha256: Array(digest)) { return signature }
        // RSA PKCS #1 v1.5 signing of a digest with a valid key does not fail.
        return Array(try! key.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation)
    }

    /// The plaintext of RSA-OAEP-SHA256 (MGF1-SHA256) `ciphertext`, or nil.
    package func decryptOAEPSHA256(_ ciphertext: some DataProtocol) -> [UInt8]? {
        if let openSSL { return openSSL.decryptOAEPSHA256(Array(ciphertext)) }
        return (try? encryption?.key.decrypt(ciphertext, padding: .PKCS1_OAEP_SHA256)).map { Array($0) }
    }

    /// The plaintext of PKCS #1 v1.5 `ciphertext`, or nil.
    package func decryptPKCS1(_ ciphertext: some DataProtocol) -> [UInt8]? {
        if let openSSL { return openSSL.decryptPKCS1(Array(ciphertext)) }
        return (try? encryption?.key.decrypt(ciphertext, padding: ._WEAK_AND_INSECURE_PKCS_V1_5)).map { Array($0) }
    }
}
