@preconcurrency import Crypto
import Foundation
import PaysheetModel
import PaysheetTokenFormat
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies the `signature` file of an order package as Wallet does: a detached CMS `SignedData`
/// over `manifest.json` whose messageDigest is SHA-256 of the manifest, whose signature verifies
/// with the signing certificate it carries, and whose certificate chains to a trusted root (Apple
/// Root CA - G3 in production; the sandbox's root in the sandbox) at the time of the check.
public struct OrderSignatureVerifier: Sendable {
    /// The roots a signing certificate may chain to.
    public let trust: TrustAnchors

    /// A verifier trusting `trust`.
    public init(trust: TrustAnchors) { self.trust = trust }

    /// The signing certificate of `signature`, once it is found to sign `manifest` and to chain
    /// to ``trust`` at `time`; otherwise an ``OrderPackageError`` saying which check failed.
    public func verify(
        _ signature: [UInt8],
        manifest: [UInt8],
        at time: Date
    ) async throws(OrderPackageError) -> Certificate {
        let signed: AppleSignedData
        do throws(PaymentTokenError) { signed = try AppleSignedData(berEncoded: signature) } catch {
            throw OrderPackageError(.malformed, "the signature is not a detached CMS SignedData: \(error.message)")
        }
        try Self.checkDigest(signed.signer, manifest: manifest)
        var certificates: [Certificate] = []
        for (index, der) in signed.certificates.enumerated() {
            do { certificates.append(try Certificate(derEncoded: der)) } catch {
                throw OrderPackageError(.malformed, "certificate \(index) in the signature is not X.509 (\(error))")
            }
        }
        guard let leafIndex = certificates.firstIndex(where: { signed.signer.identifier.names($0) }) else {
            throw OrderPackageError(.signature, "none of the signature's certificates is the signer's")
        }
        let leaf = certificates[leafIndex]
        try Self.checkSignature(signed.signer, by: leaf)
        var intermediates = certificates
        intermediates.remove(at: leafIndex)
        try await checkChain(leaf, intermediates: intermediates, at: time)
        return leaf
    }

    /// The signed messageDigest is SHA-256 of `manifest`.
    static func checkDigest(_ signer: CMSSignerInfo, manifest: [UInt8]) throws(OrderPackageError) {
        guard signer.digestAlgorithm == TokenOID.sha256 else {
            throw OrderPackageError(
                .signature,
                "the signature's digest algorithm is \(signer.digestAlgorithm), not SHA-256"
            )
        }
        guard let messageDigest = signer.messageDigest else {
            throw OrderPackageError(.signature, "the signature has no messageDigest attribute")
        }
        guard constantTimeEqual(Array(SHA256.hash(data: manifest)), messageDigest) else {
            throw OrderPackageError(
                .signature,
                "the signature was made over another manifest: its messageDigest is not SHA-256 of manifest.json"
            )
        }
    }

    /// The signature over the signed attributes verifies with `leaf`'s key.
    static func checkSignature(_ signer: CMSSignerInfo, by leaf: Certificate) throws(OrderPackageError) {
        guard let key = SignerKey(leaf.publicKey) else {
            throw OrderPackageError(.signature, "the signing certificate's key is neither P-256 nor RSA")
        }
        let valid: Bool
        do throws(PaymentTokenError) {
            valid = try key.isValidSignature(
                signer.signature,
                algorithm: signer.signatureAlgorithm,
                message: signer.signedAttributes
            )
        } catch {
            throw OrderPackageError(.signature, error.message)
        }
        guard valid else {
            throw OrderPackageError(
                .signature,
                "the signature does not verify with its signing certificate (\(leaf.subject)): it was forged or altered"
            )
        }
    }

    /// `leaf` chains to ``trust`` through `intermediates` at `time` (RFC 5280).
    func checkChain(_ leaf: Certificate, intermediates: [Certificate], at time: Date) async throws(OrderPackageError) {
        var verifier = Verifier(rootCertificates: CertificateStore(trust.roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
        }
        guard
            case .couldNotValidate = await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates))
        else { return }
        if let expired = ([leaf] + intermediates).first(where: { time < $0.notValidBefore || time > $0.notValidAfter })
        {
            throw OrderPackageError(
                .chain,
                "the certificate \(expired.subject) is valid from \(iso(expired.notValidBefore)) to \(iso(expired.notValidAfter)), not at \(iso(time))"
            )
        }
        throw OrderPackageError(
            .chain,
            "the signing certificate (\(leaf.subject)) does not chain to a trusted root (\(trust.names))"
        )
    }
}
