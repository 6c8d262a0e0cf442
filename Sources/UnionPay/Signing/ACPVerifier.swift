import Crypto
import _CryptoExtras
import Foundation
import NIOConcurrencyHelpers
import PaysheetRSA
import X509
import SwiftASN1

/// Verifies signed ACP messages.
///
/// Gateway messages (5.1.0) carry their signing certificate in `signPubKeyCert`, identified as
/// UnionPay's SDKs identify it: valid now, issued by one of the configured middle certificates,
/// itself issued by one of the trusted roots, and with the owner field of its CN (the third
/// `@`-separated part) one of `owners` (``ACPGatewayOwners``: `中国银联股份有限公司` for UnionPay's
/// production gateway; that or `00040000:SIGN` in its test environment — whose current gateway
/// certificate names `中国银联股份有限公司` — and Paysheet's sandbox). A certificate under
/// the same root that is not the gateway's — a merchant's own — never passes, nor does a
/// certificate of the gateway's that may not sign (its encryption certificate, a CA:
/// `ACPSigningUsage`). Merchant messages
/// carry only `certId`, looked up among the known merchant certificates.
public final class ACPVerifier: Sendable {
    private let roots: [Certificate]
    private let intermediates: [Certificate]
    private let owners: Set<String>
    private let known: [String: RSAPublicKeyOperations]
    private let secureKey: ACPSecureKeySigner?
    /// Gateway certificates already checked, by their PEM: the key and when it stops being valid.
    private let accepted = NIOLockedValueBox<[String: (key: RSAPublicKeyOperations, notAfter: Date)]>([:])

    /// The owner field of UnionPay's production signing certificates (``ACPGatewayOwners/unionPay``).
    public static let unionPayOwner = ACPGatewayOwners.unionPay

    /// A verifier trusting gateway certificates issued through `intermediates` (UnionPay's
    /// "middle" certificates) under `roots` whose CN's owner field is one of `owners`, and the
    /// `certId`s of `certificates` (merchants').
    /// `secureKey`, when set, also accepts messages signed with it (`signMethod=11`).
    public init(
        roots: [Certificate],
        intermediates: [Certificate] = [],
        owners: Set<String> = [ACPVerifier.unionPayOwner],
        certificates: [Certificate] = [],
        secureKey: String? = nil
    ) {
        self.secureKey = secureKey.flatMap { try? ACPSecureKeySigner(secureKey: $0) }
        self.roots = roots
        self.owners = owners
        // Only middle certificates that a trusted root issued are kept.
        self.intermediates = intermediates.filter { middle in
            roots.contains {
                $0.subject == middle.issuer && $0.publicKey.isValidSignature(middle.signature, for: middle)
            }
        }
        var known: [String: RSAPublicKeyOperations] = [:]
        for certificate in certificates {
            if let key = _RSA.Signing.PublicKey(certificate.publicKey) {
                known[ACPSigner.decimal(certificate.serialNumber.bytes)] = RSAPublicKeyOperations(key)
            }
        }
        self.known = known
    }

    /// Checks the signature of `message` at `now`.
    public func verify(_ message: ACPMessage, now: Date = Date()) throws(ACPError) {
        if message["signMethod"] == "11" {
            guard let secureKey else { throw ACPError(.signature, "signMethod is 11 but no secure key is configured") }
            guard secureKey.verifies(message) else {
                throw ACPError(
                    .signature,
                    "the signature (signMethod 11) does not match the message and the secure key"
                )
            }
            return
        }
        guard message["version"] != "5.0.0" else {
            throw ACPError(.version, "version 5.0.0 (SHA-1) is not accepted; send version 5.1.0 (SHA-256)")
        }
        guard message["signMethod"] == "01" else {
            throw ACPError(
                .signature,
                "signMethod is \(message["signMethod"] ?? "missing"); 01 (SHA256withRSA) or 11 (secure key) is accepted"
            )
        }
        guard let signatureText = message["signature"], let raw = Data(base64Encoded: signatureText) else {
            throw ACPError(.signature, "the message has no Base64 signature")
        }
        let key: RSAPublicKeyOperations
        if let pem = message["signPubKeyCert"] {
            key = try certificateKey(pem, now: now)
        } else if let certId = message["certId"], let knownCertificate = known[certId] {
            key = knownCertificate
        } else {
            throw ACPError(
                .signature,
                "certId \(message["certId"] ?? "(missing)") names no known certificate and there is no signPubKeyCert"
            )
        }
        let digest = ACPSigner.hexDigest(message.signingString)
        guard key.verifySHA256(signature: raw, for: Array(digest.utf8)) else {
            throw ACPError(.signature, "the signature does not verify over the message's fields")
        }
    }

    private func certificateKey(_ pem: String, now: Date) throws(ACPError) -> RSAPublicKeyOperations {
        let hit = accepted.withLockedValue { $0[pem] }
        if let hit, hit.notAfter > now { return hit.key }
        let certificate = try gatewayCertificate(pem, now: now)
        // The gateway's certificate that signs: not its encryption certificate, not a CA.
        if let problem = ACPSigningUsage.problem(certificate) {
            throw ACPError(.signature, problem)
        }
        guard let publicKey = _RSA.Signing.PublicKey(certificate.publicKey) else {
            throw ACPError(.signature, "signPubKeyCert does not hold an RSA key")
        }
        let key = RSAPublicKeyOperations(publicKey)
        accepted.withLockedValue { accepted in
            if accepted.count > 64 { accepted.removeAll() }
            accepted[pem] = (key, certificate.notValidAfter)
        }
        return key
    }
}

extension ACPVerifier {
    /// `pem` if it is a certificate of the gateway's, checked as UnionPay's SDKs check the
    /// certificates in `signPubKeyCert` and `encryptPubKeyCert`: valid at `now`, issued by a
    /// trusted middle certificate, owner field one of the configured owners.
    public func gatewayCertificate(_ pem: String, now: Date = Date()) throws(ACPError) -> Certificate {
        let certificate: Certificate
        do { certificate = try Certificate(pemEncoded: pem) } catch {
            throw ACPError(.signature, "the certificate is not a PEM certificate")
        }
        guard certificate.notValidBefore <= now, now <= certificate.notValidAfter else {
            throw ACPError(
                .signature,
                "the certificate is not valid at \(now) (valid \(certificate.notValidBefore) to \(certificate.notValidAfter))"
            )
        }
        guard
            let middle = intermediates.first(where: {
                $0.subject == certificate.issuer
                    && $0.publicKey.isValidSignature(certificate.signature, for: certificate)
            }),
            middle.notValidBefore <= now, now <= middle.notValidAfter
        else {
            throw ACPError(
                .signature,
                "the certificate (\(CertificateNameText.describe(certificate.subject))) is not issued by a trusted UnionPay middle certificate under a trusted root"
            )
        }
        let owner = Self.owner(of: certificate)
        guard owners.contains(owner) else {
            let readable = Self.owner(of: certificate, reading: CertificateNameText.readableText)
            guard readable == owner else {
                throw ACPError(
                    .signature,
                    "the certificate's owner is written in UTF-8 (\(readable)) in a T61String, which UnionPay's SDKs read byte by byte as ISO 8859-1: not the gateway's (cer owner is not CUP)"
                )
            }
            throw ACPError(
                .signature,
                "the certificate's owner is \(owner.isEmpty ? "(none)" : owner), not the gateway's (cer owner is not CUP)"
            )
        }
        return certificate
    }

    /// The owner field of `certificate`'s CN: its third `@`-separated part, as UnionPay's SDKs
    /// read it (`041@Z12@00040000:SIGN@00000062` → `00040000:SIGN`; a T61String byte by byte, as
    /// ISO 8859-1); empty when there is none.
    public static func owner(of certificate: Certificate) -> String {
        owner(of: certificate, reading: CertificateNameText.sdkText)
    }

    static func owner(
        of certificate: Certificate,
        reading text: (RelativeDistinguishedName.Attribute.Value) -> String?
    ) -> String {
        let commonName = certificate.subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.commonName }
        guard let commonName, let name = text(commonName.value) else { return "" }
        let parts = name.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count > 2 ? String(parts[2]) : ""
    }
}
