import Crypto
import _CryptoExtras
import Foundation
import X509
import SwiftASN1

/// Verifies signed ACP messages.
///
/// Gateway messages (5.1.0) carry their signing certificate in `signPubKeyCert`: it must be
/// issued by one of the trusted roots, valid now, and then verify the signature. Merchant
/// messages carry only `certId`, looked up among the known merchant certificates.
public final class ACPVerifier: @unchecked Sendable {
    private let roots: [Certificate]
    private let known: [String: _RSA.Signing.PublicKey]
    private let lock = NSLock()
    private var accepted: [String: (key: _RSA.Signing.PublicKey, notAfter: Date)] = [:]

    /// A verifier trusting certificates issued by `roots`, and the `certId`s of `certificates`.
    public init(roots: [Certificate], certificates: [Certificate] = []) {
        self.roots = roots
        var known: [String: _RSA.Signing.PublicKey] = [:]
        for c in certificates {
            if let key = _RSA.Signing.PublicKey(c.publicKey) { known[ACPSigner.decimal(c.serialNumber.bytes)] = key }
        }
        self.known = known
    }

    /// Checks the signature of `message` at `now`.
    public func verify(_ message: ACPMessage, now: Date = Date()) throws(ACPError) {
        guard message["signMethod"] == "01" else {
            throw ACPError(.signature, "signMethod is \(message["signMethod"] ?? "missing"); only 01 (SHA256withRSA) is accepted")
        }
        guard let signatureText = message["signature"], let raw = Data(base64Encoded: signatureText) else {
            throw ACPError(.signature, "the message has no Base64 signature")
        }
        let key: _RSA.Signing.PublicKey
        if let pem = message["signPubKeyCert"] {
            key = try certificateKey(pem, now: now)
        } else if let certId = message["certId"], let k = known[certId] {
            key = k
        } else {
            throw ACPError(.signature, "certId \(message["certId"] ?? "(missing)") names no known certificate and there is no signPubKeyCert")
        }
        let digest = ACPSigner.hexDigest(message.signingString)
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: raw), for: Data(digest.utf8), padding: .insecurePKCS1v1_5) else {
            throw ACPError(.signature, "the signature does not verify over the message's fields")
        }
    }

    private func certificateKey(_ pem: String, now: Date) throws(ACPError) -> _RSA.Signing.PublicKey {
        lock.lock()
        if let hit = accepted[pem], hit.notAfter > now { lock.unlock(); return hit.key }
        lock.unlock()
        let certificate: Certificate
        do { certificate = try Certificate(pemEncoded: pem) } catch {
            throw ACPError(.signature, "signPubKeyCert is not a PEM certificate")
        }
        guard certificate.notValidBefore <= now, now <= certificate.notValidAfter else {
            throw ACPError(.signature, "signPubKeyCert is not valid at \(now) (valid \(certificate.notValidBefore) to \(certificate.notValidAfter))")
        }
        guard roots.contains(where: { $0.subject == certificate.issuer && $0.publicKey.isValidSignature(certificate.signature, for: certificate) }) else {
            throw ACPError(.signature, "signPubKeyCert (\(certificate.subject)) is not issued by a trusted UnionPay root")
        }
        guard let key = _RSA.Signing.PublicKey(certificate.publicKey) else {
            throw ACPError(.signature, "signPubKeyCert does not hold an RSA key")
        }
        lock.lock()
        if accepted.count > 64 { accepted.removeAll() }
        accepted[pem] = (key, certificate.notValidAfter)
        lock.unlock()
        return key
    }
}
