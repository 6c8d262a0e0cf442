import Crypto
import _CryptoExtras
import Foundation
import PaysheetModel
import PaysheetRSA
import X509
import SwiftASN1

/// Something that signs ACP messages: ``ACPSigner`` (`signMethod=01`, RSA) or
/// ``ACPSecureKeySigner`` (`signMethod=11`, SHA-256 with the secure key shared with UnionPay).
public protocol ACPMessageSigning: Sendable {
    /// Signs `message` in place.
    func sign(_ message: inout ACPMessage)
}

/// Signs ACP 5.1.0 messages (`signMethod=01`): SHA256withRSA over the lowercase hexadecimal
/// SHA-256 of the ``ACPMessage/signingString``, Base64 in `signature`, the certificate's serial
/// number (decimal) in `certId`.
public struct ACPSigner: ACPMessageSigning {
    /// The signing key's operations (on OpenSSL's libcrypto when present: `RSABackendChoice`).
    let privateKey: RSAPrivateKeyOperations
    /// The signing certificate.
    public let certificate: Certificate
    /// `certId`: the certificate's serial number in decimal.
    public let certId: String
    /// The certificate as PEM (sent as `signPubKeyCert` by the gateway).
    public let certificatePEM: String
    /// Whether to put `signPubKeyCert` in signed messages (the gateway does; merchants send `certId` only).
    public let includesCertificate: Bool

    /// A signer with `privateKey` and its `certificate`.
    public init(
        privateKey: _RSA.Signing.PrivateKey,
        certificate: Certificate,
        includesCertificate: Bool = false
    ) throws(ACPError) {
        guard let publicKey = _RSA.Signing.PublicKey(certificate.publicKey),
            publicKey.derRepresentation == privateKey.publicKey.derRepresentation
        else {
            throw ACPError(.credentials, "the signing certificate does not hold the signing key's public key")
        }
        self.privateKey = RSAPrivateKeyOperations(privateKey)
        self.certificate = certificate
        self.certId = ACPSigner.decimal(certificate.serialNumber.bytes)
        // Lines end with CR LF, as in the signPubKeyCert of UnionPay's gateway.
        self.certificatePEM = ((try? certificate.serializeAsPEM().pemString) ?? "").replacingOccurrences(
            of: "\n",
            with: "\r\n"
        )
        self.includesCertificate = includesCertificate
    }

    /// Signs `message` in place (sets `certId`, `signMethod`, maybe `signPubKeyCert`, then `signature`).
    public func sign(_ message: inout ACPMessage) {
        message["certId"] = certId
        message["signMethod"] = "01"
        if includesCertificate { message["signPubKeyCert"] = certificatePEM }
        let digest = ACPSigner.hexDigest(message.signingString)
        message["signature"] = Data(privateKey.signSHA256(Array(digest.utf8))).base64EncodedString()
    }

    /// Lowercase hexadecimal SHA-256 of `text`.
    static func hexDigest(_ text: String) -> String { Hex.encode(SHA256.hash(data: Data(text.utf8))) }

    /// Big-endian unsigned bytes as a decimal string.
    static func decimal(_ bytes: ArraySlice<UInt8>) -> String {
        var digits: [UInt8] = [0]  // little-endian base-10
        for byte in bytes {
            var carry = Int(byte)
            for index in digits.indices {
                let value = Int(digits[index]) * 256 + carry
                digits[index] = UInt8(value % 10)
                carry = value / 10
            }
            while carry > 0 {
                digits.append(UInt8(carry % 10))
                carry /= 10
            }
        }
        while digits.count > 1, digits.last == 0 { digits.removeLast() }
        return String(digits.reversed().map { Character(String($0)) })
    }
}

/// Signs ACP 5.1.0 messages with `signMethod=11`, as UnionPay's SDKs do: `signature` is the
/// lowercase hexadecimal SHA-256 of the ``ACPMessage/signingString``, `&`, and the lowercase
/// hexadecimal SHA-256 of the secure key. No RSA, no certificate.
public struct ACPSecureKeySigner: ACPMessageSigning {
    let keyDigest: String

    /// A signer with the secure key shared with UnionPay (or the sandbox).
    public init(secureKey: String) throws(ACPError) {
        guard !secureKey.isEmpty else { throw ACPError(.credentials, "the secure key is empty") }
        keyDigest = ACPSigner.hexDigest(secureKey)
    }

    public func sign(_ message: inout ACPMessage) {
        message["certId"] = nil
        message["signPubKeyCert"] = nil
        message["signMethod"] = "11"
        message["signature"] = signature(of: message)
    }

    /// The signature `message` should carry.
    func signature(of message: ACPMessage) -> String {
        ACPSigner.hexDigest(message.signingString + "&" + keyDigest)
    }

    /// Whether `message` carries the signature this key makes (compared in constant time).
    package func verifies(_ message: ACPMessage) -> Bool {
        guard let given = message["signature"] else { return false }
        return constantTimeEqual(Array(given.lowercased().utf8), Array(signature(of: message).utf8))
    }
}
