@preconcurrency import Crypto
import Foundation
import PaysheetTokenFormat
import SwiftASN1
import X509

extension SandboxPKI {
    /// Issues an Order Type ID certificate for `publicKey` naming `orderTypeIdentifier`, as
    /// Apple's developer portal does (subject UID and CN name the type; for digital signatures):
    /// issued by the sandbox's merchant CA, so that it chains to ``root``.
    public func issueOrderTypeCertificate(
        publicKey: Certificate.PublicKey,
        orderTypeIdentifier: String,
        now: Date = Date()
    ) throws -> Certificate {
        guard !orderTypeIdentifier.isEmpty, orderTypeIdentifier.count <= 128,
            orderTypeIdentifier.allSatisfy({ $0.isASCII && !$0.isWhitespace })
        else {
            throw OrderPackageError(
                .identity,
                "the order type identifier must be 1–128 printable ASCII characters without spaces (for example order.com.example)"
            )
        }
        let subject = DistinguishedName([
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(type: OrderPackageSigner.userID, utf8String: orderTypeIdentifier)
            ),
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(
                    type: .RDNAttributeType.commonName,
                    utf8String: "Order Type ID: \(orderTypeIdentifier)"
                )
            ),
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(
                    type: .RDNAttributeType.organizationName,
                    utf8String: Self.organization
                )
            ),
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(type: .RDNAttributeType.countryName, utf8String: "US")
            ),
        ])
        let year: TimeInterval = 365.25 * 86_400
        return try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-86_400),
            notValidAfter: now + 2 * year,
            issuer: merchantCA.subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                SubjectKeyIdentifier(hash: publicKey)
                AuthorityKeyIdentifier(keyIdentifier: try merchantCA.extensions.subjectKeyIdentifier?.keyIdentifier)
            },
            issuerPrivateKey: .init(merchantCAKey)
        )
    }

    /// A signer of order packages for `orderTypeIdentifier` with a new P-256 key and a
    /// certificate from ``issueOrderTypeCertificate(publicKey:orderTypeIdentifier:now:)``.
    public func orderPackageSigner(orderTypeIdentifier: String, now: Date = Date()) throws -> OrderPackageSigner {
        let key = P256.Signing.PrivateKey()
        let certificate = try issueOrderTypeCertificate(
            publicKey: .init(key.publicKey),
            orderTypeIdentifier: orderTypeIdentifier,
            now: now
        )
        return try OrderPackageSigner(certificate: certificate, key: key, intermediate: merchantCA)
    }

    /// The sandbox signer of order packages for `orderTypeIdentifier` kept in `folder`
    /// (`key.pem`, mode 0600, `certificate.pem`, `intermediate.pem`), made there on first use.
    /// Creation is atomic: several servers starting at once on one folder agree on one signer.
    public func orderPackageSigner(orderTypeIdentifier: String, folder: String) throws -> OrderPackageSigner {
        func load() throws -> OrderPackageSigner {
            try OrderPackageSigner(
                certificateFile: folder + "/certificate.pem",
                keyFile: folder + "/key.pem",
                intermediateFile: folder + "/intermediate.pem"
            )
        }
        if FileManager.default.fileExists(atPath: folder + "/certificate.pem") { return try load() }
        let key = P256.Signing.PrivateKey()
        let certificate = try issueOrderTypeCertificate(
            publicKey: .init(key.publicKey),
            orderTypeIdentifier: orderTypeIdentifier
        )
        let parent = (folder as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: parent,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let staging = folder + ".new-" + UUID().uuidString
        try TokenFiles.write(key.pemRepresentation, to: staging + "/key.pem", mode: 0o600)
        try TokenFiles.write(
            certificate.serializeAsPEM().pemString + "\n",
            to: staging + "/certificate.pem",
            mode: 0o644
        )
        try TokenFiles.write(
            merchantCA.serializeAsPEM().pemString + "\n",
            to: staging + "/intermediate.pem",
            mode: 0o644
        )
        if rename(staging, folder) != 0 { try? FileManager.default.removeItem(atPath: staging) }
        return try load()
    }
}
