import SwiftASN1
import X509

/// Whether a gateway certificate may sign messages: its key usage, basic constraints and
/// extended key usage, read before its key is trusted for a signature.
///
/// The gateway holds certificates of two kinds under the same middle certificate, with the same
/// owner field: the signing certificate (`signPubKeyCert`) and the encryption certificate
/// (`encryptPubKeyCert`, which card data is encrypted to). Only the first may settle a payment.
/// A certificate qualifies when
/// - its key usage, when the extension is present, has `digitalSignature` or `nonRepudiation`;
/// - it is not a CA (`basicConstraints` absent or `cA` false): a CA signs certificates;
/// - its extended key usage, when present, allows a signature of messages: `anyExtendedKeyUsage`,
///   `clientAuth` or `emailProtection` (what CFCA writes in UnionPay's certificates, test and
///   production alike), or `documentSigning` (RFC 9336).
///
/// UnionPay's real certificates (CFCA's profile: key usage digitalSignature, nonRepudiation,
/// keyEncipherment, keyAgreement; extended key usage clientAuth, emailProtection; no basic
/// constraints) pass. CFCA gives the encryption certificate the same profile, so with UnionPay's
/// own certificates the rule does not tell the two apart (UnionPay holds both keys); it refuses
/// what the profile of a certificate says cannot sign.
enum ACPSigningUsage {
    /// RFC 9336's document signing purpose.
    static let documentSigning = ExtendedKeyUsage.Usage(oid: [1, 3, 6, 1, 5, 5, 7, 3, 36])
    /// Extended key usages under which a certificate may sign ACP messages.
    static let signingPurposes: Set<ExtendedKeyUsage.Usage> = [.any, .clientAuth, .emailProtection, documentSigning]

    /// Why `certificate` may not sign messages, or nil when it may.
    static func problem(_ certificate: Certificate) -> String? {
        let name = CertificateNameText.describe(certificate.subject)
        let basicConstraints: BasicConstraints?
        do { basicConstraints = try certificate.extensions.basicConstraints } catch {
            return "the certificate (\(name)) has basic constraints that cannot be read"
        }
        if case .isCertificateAuthority = basicConstraints {
            return
                "the certificate (\(name)) is a CA certificate (basicConstraints cA true): a CA signs certificates, not the gateway's messages"
        }
        let keyUsage: KeyUsage?
        do { keyUsage = try certificate.extensions.keyUsage } catch {
            return "the certificate (\(name)) has a key usage that cannot be read"
        }
        if let keyUsage, !keyUsage.digitalSignature, !keyUsage.nonRepudiation {
            return
                "the certificate (\(name)) has key usage \(describe(keyUsage)), without digitalSignature or nonRepudiation: it is not a signing certificate (the gateway's encryption certificate is not its signing certificate)"
        }
        let extendedKeyUsage: ExtendedKeyUsage?
        do { extendedKeyUsage = try certificate.extensions.extendedKeyUsage } catch {
            return "the certificate (\(name)) has an extended key usage that cannot be read"
        }
        if let extendedKeyUsage, !extendedKeyUsage.contains(where: { signingPurposes.contains($0) }) {
            return
                "the certificate (\(name)) has extended key usage \(extendedKeyUsage.map { "\($0)" }.joined(separator: ", ")), none of anyExtendedKeyUsage, clientAuth, emailProtection, documentSigning: it may not sign the gateway's messages"
        }
        return nil
    }

    /// `keyUsage`'s bits by their names (`keyEncipherment, dataEncipherment`).
    static func describe(_ keyUsage: KeyUsage) -> String {
        let bits: [(Bool, String)] = [
            (keyUsage.digitalSignature, "digitalSignature"), (keyUsage.nonRepudiation, "nonRepudiation"),
            (keyUsage.keyEncipherment, "keyEncipherment"), (keyUsage.dataEncipherment, "dataEncipherment"),
            (keyUsage.keyAgreement, "keyAgreement"), (keyUsage.keyCertSign, "keyCertSign"),
            (keyUsage.cRLSign, "cRLSign"), (keyUsage.encipherOnly, "encipherOnly"),
            (keyUsage.decipherOnly, "decipherOnly"),
        ]
        let names = bits.filter(\.0).map(\.1)
        return names.isEmpty ? "(none)" : names.joined(separator: ", ")
    }
}
