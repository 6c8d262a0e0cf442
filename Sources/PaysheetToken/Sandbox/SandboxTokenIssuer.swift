@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import Foundation
import PaysheetModel
import PaysheetTokenFormat
import X509

/// Issues real encrypted, signed payment tokens from a ``SandboxPKI`` to a merchant's
/// certificate: EC_v1 to P-256 keys, RSA_v1 to RSA keys — the format Apple's devices produce,
/// accepted by any back end that trusts the sandbox root.
public struct SandboxTokenIssuer: Sendable {
    /// The PKI that signs.
    public let pki: SandboxPKI

    /// An issuer signing with `pki`.
    public init(pki: SandboxPKI) { self.pki = pki }

    /// A token carrying `payment`, encrypted to `recipient`.
    ///
    /// - Parameters:
    ///   - payment: the payment data the token carries.
    ///   - recipient: the merchant the token is encrypted to.
    ///   - applicationData: the request's `applicationData` bytes (the token carries their SHA-256).
    ///   - transactionId: 32 random bytes unless given.
    ///   - signingTime: the CMS signing time (now unless given).
    public func issue(
        _ payment: SandboxPayment,
        to recipient: TokenRecipient,
        applicationData: [UInt8]? = nil,
        transactionId: [UInt8]? = nil,
        signingTime: Date = Date()
    ) throws -> PaymentTokenData {
        try issue(
            plaintext: Array(payment.jsonValue.compactText.utf8),
            to: recipient,
            applicationDataHash: applicationData.map { Array(SHA256.hash(data: $0)) },
            transactionId: transactionId,
            signingTime: signingTime
        )
    }

    /// A token carrying exactly `plaintext` (for tests of unusual payloads).
    public func issue(
        plaintext: [UInt8],
        to recipient: TokenRecipient,
        applicationDataHash: [UInt8]? = nil,
        transactionId: [UInt8]? = nil,
        signingTime: Date = Date(),
        ephemeralKey: P256.KeyAgreement.PrivateKey? = nil
    ) throws -> PaymentTokenData {
        let id = transactionId ?? (0..<32).map { _ in UInt8.random(in: 0...255) }
        var header = PaymentTokenHeader(
            publicKeyHash: recipient.publicKeyHash,
            transactionId: Hex.encode(id),
            applicationData: applicationDataHash
        )
        let data: [UInt8]
        let signingKey: CMSWriter.SigningKey
        let signer: Certificate
        switch recipient.key {
        case .p256(let publicKey):
            let ephemeral = ephemeralKey ?? P256.KeyAgreement.PrivateKey()
            let secret = try ephemeral.sharedSecretFromKeyAgreement(with: publicKey)
            let key = AppleKDF.symmetricKey(
                sharedSecret: secret,
                merchantIdentifierHash: recipient.merchantIdentifierHash
            )
            data = try Self.seal(plaintext, key: key)
            header.ephemeralPublicKey = Array(ephemeral.publicKey.derRepresentation)
            signingKey = .p256(pki.ecSignerKey)
            signer = pki.ecSigner
        case .rsa(let publicKey):
            let key = SymmetricKey(size: .bits128)
            data = try Self.seal(plaintext, key: key)
            header.wrappedKey = Array(
                try key.withUnsafeBytes { try publicKey.encrypt(Data($0), padding: .PKCS1_OAEP_SHA256) }
            )
            signingKey = .rsa(pki.rsaSignerKey)
            signer = pki.rsaSigner
        }
        var token = PaymentTokenData(version: recipient.version, data: data, signature: [], header: header)
        token.signature = try CMSWriter.sign(
            token.signedContent,
            signer: signer,
            key: signingKey,
            intermediate: pki.intermediate,
            signingTime: signingTime
        )
        return token
    }

    private static func seal(_ plaintext: [UInt8], key: SymmetricKey) throws -> [UInt8] {
        let box = try AES.GCM.seal(plaintext, using: key, nonce: MerchantKeyring.zeroNonce)
        return Array(box.ciphertext) + Array(box.tag)
    }
}
