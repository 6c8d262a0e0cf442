@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import Foundation
import PaysheetModel
import PaysheetTokenFormat

extension MerchantKeyring {
    /// Decrypts a verified token with the key its `publicKeyHash` names.
    public func decrypt(_ verified: VerifiedPaymentToken) throws(PaymentTokenError) -> DecryptedPaymentData {
        try decrypt(unverified: verified.token)
    }

    /// Decrypts a token whose signature was not checked: for measuring decryption alone
    /// (`paysheet-bench tokens`); a server decrypts only ``VerifiedPaymentToken``s.
    package func decrypt(unverified token: PaymentTokenData) throws(PaymentTokenError) -> DecryptedPaymentData {
        guard let key = key(forPublicKeyHash: token.header.publicKeyHash) else {
            let known =
                publicKeyHashes.isEmpty
                ? "no keys are configured" : "the configured keys have " + publicKeyHashes.joined(separator: ", ")
            throw PaymentTokenError(
                .keyMismatch,
                "the token is encrypted to the key with publicKeyHash \(Base64.encode(token.header.publicKeyHash)); \(known). Configure the private key of the payment processing certificate the page used"
            )
        }
        return try DecryptedPaymentData.read(try Self.open(token, with: key))
    }

    static func open(_ token: PaymentTokenData, with key: MerchantKey) throws(PaymentTokenError) -> [UInt8] {
        let symmetric: SymmetricKey
        switch (token.version, key.privateKey) {
        case (.ecV1, .p256(let privateKey)):
            guard let ephemeral = token.header.ephemeralPublicKey, let publicKey = Self.ephemeralKey(ephemeral) else {
                throw PaymentTokenError(.malformed, "header.ephemeralPublicKey is not a P-256 SubjectPublicKeyInfo")
            }
            guard let secret = try? privateKey.sharedSecretFromKeyAgreement(with: publicKey) else {
                throw PaymentTokenError(.decryption, "ECDH with the ephemeral public key failed")
            }
            symmetric = AppleKDF.symmetricKey(sharedSecret: secret, merchantIdentifierHash: key.merchantIdentifierHash)
        case (.rsaV1, .rsa(let privateKey)):
            let unwrapped = token.header.wrappedKey.flatMap { wrapped -> [UInt8]? in
                // The process's RSA backend (OpenSSL's libcrypto when present), else swift-crypto's.
                if let operations = key.rsaOperations { return operations.decryptOAEPSHA256(wrapped) }
                return (try? privateKey.decrypt(wrapped, padding: .PKCS1_OAEP_SHA256)).map { Array($0) }
            }
            guard let unwrapped else {
                throw PaymentTokenError(
                    .decryption,
                    "header.wrappedKey does not unwrap with RSA-OAEP-SHA256 under the merchant key"
                )
            }
            guard [16, 24, 32].contains(unwrapped.count) else {
                throw PaymentTokenError(.decryption, "the unwrapped key is \(unwrapped.count) bytes, not an AES key")
            }
            symmetric = SymmetricKey(data: unwrapped)
        case (let version, let privateKey):
            throw PaymentTokenError(
                .keyMismatch,
                "the token is \(version.rawValue) but the key with its publicKeyHash is a \(privateKey)"
            )
        }
        do {
            let box = try AES.GCM.SealedBox(
                nonce: zeroNonce,
                ciphertext: token.data.dropLast(16),
                tag: token.data.suffix(16)
            )
            return Array(try AES.GCM.open(box, using: symmetric))
        } catch {
            throw PaymentTokenError(
                .decryption,
                "AES-GCM authentication failed: the data was altered, or the merchant identifier (\(key.certificate == nil ? "given as text" : "from the certificate")) is not the one the token was encrypted for"
            )
        }
    }

    /// EC_v1's and RSA_v1's nonce: sixteen zero bytes (each key encrypts one message).
    package static let zeroNonce = try! AES.GCM.Nonce(data: [UInt8](repeating: 0, count: 16))

    /// The DER prefix of a P-256 SubjectPublicKeyInfo with an uncompressed point (id-ecPublicKey,
    /// prime256v1, a BIT STRING of 66 bytes), which every EC_v1 token's ephemeral key has.
    static let p256SPKIPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The ephemeral public key of an EC_v1 token: its point read directly when the SPKI has the
    /// one form tokens use (half the time of a general SPKI parse; the point is checked to be on
    /// the curve either way), else swift-crypto's SPKI parser.
    static func ephemeralKey(_ spki: [UInt8]) -> P256.KeyAgreement.PublicKey? {
        if spki.count == 91, spki.starts(with: p256SPKIPrefix) {
            return try? P256.KeyAgreement.PublicKey(x963Representation: spki[26...])
        }
        return try? P256.KeyAgreement.PublicKey(derRepresentation: spki)
    }
}
