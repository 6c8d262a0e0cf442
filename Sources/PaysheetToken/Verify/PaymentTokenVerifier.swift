@preconcurrency import Crypto
import PaysheetModel
import Foundation
import PaysheetTokenFormat
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies payment tokens as Apple prescribes: the detached CMS signature over
/// `ephemeralPublicKey`/`wrappedKey` ‖ `data` ‖ `transactionId` ‖ `applicationData`, the signing
/// certificate's and intermediate's marker extensions, the chain to the trusted root (Apple Root
/// CA - G3 unless told otherwise), and the signing time within a window of the verification time.
///
/// A verifier caches the chains it has validated (by their exact bytes), so that verifying many
/// tokens from the same signer costs one signature check each. It is safe to share.
public final class PaymentTokenVerifier: Sendable {
    /// The roots a signing chain may end at.
    public let trust: TrustAnchors
    /// How far the signing time may be from the verification time, in seconds (Apple: 5 minutes).
    public let signingTimeTolerance: TimeInterval
    private let cache = ChainCache()

    /// A verifier trusting `trust`, accepting signing times within `signingTimeTolerance` seconds.
    public init(trust: TrustAnchors = .apple, signingTimeTolerance: TimeInterval = 300) {
        self.trust = trust
        self.signingTimeTolerance = signingTimeTolerance
    }

    /// Verifies `token` at `time` (now by default; give the signing time to check a recorded token
    /// whose certificates have since expired).
    public func verify(
        _ token: PaymentTokenData,
        at time: Date = Date()
    ) async throws(PaymentTokenError) -> VerifiedPaymentToken {
        let signed = try AppleSignedData(berEncoded: token.signature)
        let signer = signed.signer
        guard signer.digestAlgorithm == TokenOID.sha256 else {
            throw PaymentTokenError(
                .signature,
                "the signature's digest algorithm is \(signer.digestAlgorithm); Apple signs with SHA-256"
            )
        }
        guard signer.contentType == TokenOID.data else {
            throw PaymentTokenError(.signature, "the signed contentType attribute is missing or not id-data")
        }
        guard let messageDigest = signer.messageDigest else {
            throw PaymentTokenError(.signature, "the signature has no messageDigest attribute")
        }
        let digest = Array(SHA256.hash(data: token.signedContent))
        guard constantTimeEqual(digest, messageDigest) else {
            throw PaymentTokenError(
                .signature,
                "the signature does not cover this token: its messageDigest differs from SHA-256 of \(token.version == .ecV1 ? "ephemeralPublicKey" : "wrappedKey") + data + transactionId + applicationData, so one of them was altered"
            )
        }

        let entry = try await signerEntry(signed, at: time)
        guard
            try entry.key.isValidSignature(
                signer.signature,
                algorithm: signer.signatureAlgorithm,
                message: signer.signedAttributes
            )
        else {
            throw PaymentTokenError(
                .signature,
                "the signature is not valid for the signing certificate (\(entry.signer))"
            )
        }

        guard let signingTime = signer.signingTime else {
            throw PaymentTokenError(.signingTime, "the signature has no signingTime attribute")
        }
        let skew = time.timeIntervalSince(signingTime)
        if skew > signingTimeTolerance {
            throw PaymentTokenError(
                .signingTime,
                "the token was signed at \(iso(signingTime)), \(Int(skew)) s before the verification time \(iso(time)); at most \(Int(signingTimeTolerance)) s are accepted (a replayed token, or verify a recorded token at its signing time)"
            )
        }
        if -skew > signingTimeTolerance {
            throw PaymentTokenError(
                .signingTime,
                "the token was signed at \(iso(signingTime)), \(Int(-skew)) s after the verification time \(iso(time)); at most \(Int(signingTimeTolerance)) s of clock difference are accepted"
            )
        }
        return VerifiedPaymentToken(token: token, signingTime: signingTime, signer: entry.signer)
    }

    /// The number of validated chains held; for tests and metrics.
    public var cachedChainCount: Int { cache.count }

    private func signerEntry(
        _ signed: AppleSignedData,
        at time: Date
    ) async throws(PaymentTokenError) -> ChainCache.Entry {
        var cacheKey: [UInt8] = []
        for certificate in signed.certificates {
            withUnsafeBytes(of: UInt32(certificate.count).bigEndian) { cacheKey += $0 }
            cacheKey += certificate
        }
        switch signed.signer.identifier {
        case .issuerAndSerialNumber(let issuer, let serial): cacheKey += [1] + issuer + serial
        case .subjectKeyIdentifier(let ski): cacheKey += [2] + ski
        }
        if let entry = cache.entry(for: cacheKey, at: time) { return entry }

        var certificates: [Certificate] = []
        for (i, der) in signed.certificates.enumerated() {
            do { certificates.append(try Certificate(derEncoded: der)) } catch {
                throw PaymentTokenError(
                    .malformed,
                    "signature: certificate \(i) is not a valid X.509 certificate (\(error))"
                )
            }
        }
        guard let leafIndex = certificates.firstIndex(where: { signed.signer.identifier.names($0) }) else {
            throw PaymentTokenError(
                .signature,
                "none of the \(certificates.count) certificates in the signature is the signer's"
            )
        }
        let leaf = certificates[leafIndex]
        guard leaf.extensions[oid: TokenOID.appleLeafMarker] != nil else {
            throw PaymentTokenError(
                .chain,
                "the signing certificate (\(leaf.subject)) lacks Apple's payment-token marker extension 1.2.840.113635.100.6.29"
            )
        }
        var intermediates = certificates
        intermediates.remove(at: leafIndex)
        guard intermediates.contains(where: { $0.extensions[oid: TokenOID.appleIntermediateMarker] != nil }) else {
            throw PaymentTokenError(
                .chain,
                "no certificate in the signature carries the intermediate marker extension 1.2.840.113635.100.6.2.14"
            )
        }

        var verifier = Verifier(rootCertificates: CertificateStore(trust.roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            ApplePaymentTokenPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates))
        switch result {
        case .validCertificate(let chain):
            guard let key = SignerKey(leaf.publicKey) else {
                throw PaymentTokenError(.signature, "the signing certificate's key is neither P-256 nor RSA")
            }
            let entry = ChainCache.Entry(
                key: key,
                notBefore: chain.map(\.notValidBefore).max() ?? time,
                notAfter: chain.map(\.notValidAfter).min() ?? time,
                signer: "\(leaf.subject)"
            )
            cache.store(entry, for: cacheKey)
            return entry
        case .couldNotValidate(let failures):
            if let expired = certificates.first(where: { time < $0.notValidBefore || time > $0.notValidAfter }) {
                throw PaymentTokenError(
                    .chain,
                    "the certificate \(expired.subject) is valid from \(iso(expired.notValidBefore)) to \(iso(expired.notValidAfter)), not at the verification time \(iso(time)); a recorded token verifies only at its signing time"
                )
            }
            let reasons = Set(failures.map { "\($0.policyFailureReason)" }).sorted()
            if reasons.isEmpty {
                throw PaymentTokenError(
                    .chain,
                    "the signing certificate (\(leaf.subject)) does not chain to the trusted root (\(trust.names))"
                )
            }
            throw PaymentTokenError(
                .chain,
                "the signing chain does not meet Apple's rules: " + reasons.joined(separator: "; ")
            )
        }
    }
}

/// ISO 8601 text of `date` in UTC, for messages.
func iso(_ date: Date) -> String {
    date.formatted(.iso8601)
}
