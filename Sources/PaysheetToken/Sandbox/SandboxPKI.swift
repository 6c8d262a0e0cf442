@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import PaysheetModel
import Foundation
import PaysheetTokenFormat
import SwiftASN1
import X509

/// A certificate authority shaped like Apple's payment-token PKI, for sandbox tokens: a P-384
/// root, an intermediate carrying Apple's intermediate marker (1.2.840.113635.100.6.2.14),
/// signing certificates carrying the leaf marker (1.2.840.113635.100.6.29) for EC_v1 (P-256)
/// and RSA_v1 (RSA-2048) tokens, and a CA for merchants' payment processing certificates.
///
/// Its root is not Apple's: a verifier accepts its tokens only when given ``trustAnchors``.
public struct SandboxPKI: @unchecked Sendable {
    // `@unchecked`: immutable, but swift-crypto (3.12) does not mark its P-256 and P-384 keys `Sendable`.
    /// The root certificate.
    public let root: Certificate
    let rootKey: P384.Signing.PrivateKey
    /// The intermediate that issues the signing certificates.
    public let intermediate: Certificate
    let intermediateKey: P256.Signing.PrivateKey
    /// The signing certificate of EC_v1 tokens.
    public let ecSigner: Certificate
    let ecSignerKey: P256.Signing.PrivateKey
    /// The signing certificate of RSA_v1 tokens.
    public let rsaSigner: Certificate
    let rsaSignerKey: _RSA.Signing.PrivateKey
    /// The CA that issues merchants' payment processing certificates.
    public let merchantCA: Certificate
    let merchantCAKey: P256.Signing.PrivateKey

    /// The anchors that make a verifier accept this PKI's tokens.
    public var trustAnchors: TrustAnchors { TrustAnchors([root]) }

    static let organization = "Paysheet Sandbox (not Apple)"

    /// A new PKI whose certificates are valid from a day before `now` for 10 years (signing
    /// certificates) to 25 years (root).
    public static func generate(now: Date = Date()) throws -> SandboxPKI {
        try generate(now: now, leafMarker: true, intermediateMarker: true)
    }

    /// A PKI whose marker extensions can be left out (to test that verification requires them).
    static func generate(
        now: Date,
        leafMarker: Bool,
        intermediateMarker: Bool,
        intermediateIssuer: (Certificate, P384.Signing.PrivateKey)? = nil
    ) throws -> SandboxPKI {
        let start = now.addingTimeInterval(-86_400)
        let year: TimeInterval = 365.25 * 86_400
        let rootKey = P384.Signing.PrivateKey()
        let rootName = try name("Paysheet Sandbox Root CA - G3", unit: "Paysheet Sandbox Certification Authority")
        let root = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(rootKey.publicKey),
            notValidBefore: start,
            notValidAfter: start + 25 * year,
            issuer: rootName,
            subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA384,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(rootKey.publicKey))
            },
            issuerPrivateKey: .init(rootKey)
        )

        let (issuerCertificate, issuerKey) = intermediateIssuer ?? (root, rootKey)
        func ca(_ cn: String, marker: ASN1ObjectIdentifier?) throws -> (Certificate, P256.Signing.PrivateKey) {
            let key = P256.Signing.PrivateKey()
            let certificate = try Certificate(
                version: .v3,
                serialNumber: .init(),
                publicKey: .init(key.publicKey),
                notValidBefore: start,
                notValidAfter: start + 20 * year,
                issuer: issuerCertificate.subject,
                subject: try name(cn, unit: "Paysheet Sandbox Certification Authority"),
                signatureAlgorithm: .ecdsaWithSHA384,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: .init(key.publicKey))
                    AuthorityKeyIdentifier(
                        keyIdentifier: try issuerCertificate.extensions.subjectKeyIdentifier?.keyIdentifier
                    )
                    if let marker { Certificate.Extension(oid: marker, critical: false, value: [0x05, 0x00]) }
                },
                issuerPrivateKey: .init(issuerKey)
            )
            return (certificate, key)
        }
        let (intermediate, intermediateKey) = try ca(
            "Paysheet Sandbox Application Integration CA - G3",
            marker: intermediateMarker ? TokenOID.appleIntermediateMarker : nil
        )
        let (merchantCA, merchantCAKey) = try ca("Paysheet Sandbox Merchant CA", marker: nil)

        func signer(_ cn: String, _ key: Certificate.PublicKey) throws -> Certificate {
            try Certificate(
                version: .v3,
                serialNumber: .init(),
                publicKey: key,
                notValidBefore: start,
                notValidAfter: start + 10 * year,
                issuer: intermediate.subject,
                subject: try name(cn, unit: "Paysheet Sandbox Payment Token Signing"),
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    SubjectKeyIdentifier(hash: key)
                    AuthorityKeyIdentifier(
                        keyIdentifier: try intermediate.extensions.subjectKeyIdentifier?.keyIdentifier
                    )
                    if leafMarker {
                        Certificate.Extension(oid: TokenOID.appleLeafMarker, critical: false, value: [0x05, 0x00])
                    }
                },
                issuerPrivateKey: .init(intermediateKey)
            )
        }
        let ecSignerKey = P256.Signing.PrivateKey()
        let rsaSignerKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return SandboxPKI(
            root: root,
            rootKey: rootKey,
            intermediate: intermediate,
            intermediateKey: intermediateKey,
            ecSigner: try signer("ecc-paysheet-sandbox-sign", .init(ecSignerKey.publicKey)),
            ecSignerKey: ecSignerKey,
            rsaSigner: try signer("rsa-paysheet-sandbox-sign", .init(rsaSignerKey.publicKey)),
            rsaSignerKey: rsaSignerKey,
            merchantCA: merchantCA,
            merchantCAKey: merchantCAKey
        )
    }

    static func name(_ commonName: String, unit: String) throws -> DistinguishedName {
        try DistinguishedName {
            CountryName("US")
            OrganizationName(organization)
            OrganizationalUnitName(unit)
            CommonName(commonName)
        }
    }

    /// Issues a payment processing certificate for `csr` naming `merchantIdentifier`, as Apple's
    /// developer portal does: subject UID and CN name the merchant, extension
    /// 1.2.840.113635.100.6.32 holds SHA-256 of the identifier in hexadecimal.
    public func issueMerchantCertificate(
        for csr: CertificateSigningRequest,
        merchantIdentifier: String,
        now: Date = Date()
    ) throws -> Certificate {
        guard csr.publicKey.isValidSignature(csr.signature, for: csr) else {
            throw PaymentTokenError(.invalidKey, "the CSR's signature does not verify with its own public key")
        }
        let isEC = P256.Signing.PublicKey(csr.publicKey) != nil
        guard isEC || _RSA.Signing.PublicKey(csr.publicKey) != nil else {
            throw PaymentTokenError(.invalidKey, "payment processing keys are P-256 (EC_v1) or RSA-2048 (RSA_v1)")
        }
        let hash = Hex.encode(SHA256.hash(data: Data(merchantIdentifier.utf8))).uppercased()
        var value = DER.Serializer()
        try value.serialize(ASN1UTF8String(hash))
        let uid: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]
        let subject = DistinguishedName([
            RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: uid, utf8String: merchantIdentifier)),
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(
                    type: .RDNAttributeType.commonName,
                    utf8String: "Merchant ID: \(merchantIdentifier)"
                )
            ),
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(
                    type: .RDNAttributeType.organizationName,
                    utf8String: Self.organization
                )
            ),
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(
                    type: .RDNAttributeType.countryName,
                    utf8String: "US"
                )
            ),
        ])
        let year: TimeInterval = 365.25 * 86_400
        return try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: csr.publicKey,
            notValidBefore: now.addingTimeInterval(-86_400),
            notValidAfter: now + 2 * year,
            issuer: merchantCA.subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(isEC ? KeyUsage(keyAgreement: true) : KeyUsage(keyEncipherment: true))
                SubjectKeyIdentifier(hash: csr.publicKey)
                Certificate.Extension(
                    oid: TokenOID.merchantIdentifier,
                    critical: false,
                    value: value.serializedBytes[...]
                )
            },
            issuerPrivateKey: .init(merchantCAKey)
        )
    }
}
