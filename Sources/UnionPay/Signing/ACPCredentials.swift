import Crypto
import _CryptoExtras
import Foundation
import PaysheetToken
import PaysheetTokenFormat
import SwiftASN1
import X509

/// A signing key and certificate on disk (`key.pem`, mode 0600, and `certificate.pem`).
public struct ACPCredentials: Sendable {
    /// The RSA key.
    public let privateKey: _RSA.Signing.PrivateKey
    /// The certificate.
    public let certificate: Certificate

    /// Credentials from their parts.
    public init(privateKey: _RSA.Signing.PrivateKey, certificate: Certificate) {
        self.privateKey = privateKey
        self.certificate = certificate
    }

    /// Reads `keyFile` (PKCS#8 or PKCS#1 PEM; refused when others can read it) and `certificateFile`.
    public init(keyFile: String, certificateFile: String) throws {
        let keyText = try KeyFile.readPrivateKeyText(keyFile, policy: .refuse)
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: keyText)
        } catch {
            throw ACPError(.credentials, "\(keyFile) is not an RSA private key in PEM")
        }
        do {
            certificate = try Certificate(pemEncoded: KeyFile.readText(certificateFile, what: "certificate"))
        } catch let e as PaymentTokenError {
            throw ACPError(.credentials, e.message)
        } catch {
            throw ACPError(.credentials, "\(certificateFile) is not a PEM certificate")
        }
    }

    /// Writes `key.pem` (0600) and `certificate.pem` into `folder`.
    public func save(folder: String) throws {
        try KeyFile.write(privateKey.pemRepresentation, to: folder + "/key.pem", mode: 0o600)
        try KeyFile.write(try certificate.serializeAsPEM().pemString, to: folder + "/certificate.pem", mode: 0o644)
    }

    /// A signer for these credentials.
    public func signer(includesCertificate: Bool = false) throws -> ACPSigner {
        try ACPSigner(privateKey: privateKey, certificate: certificate, includesCertificate: includesCertificate)
    }
}

/// The sandbox gateway's certificate authority: a root, the gateway's signing certificate, and
/// merchant signing certificates it issues (as UnionPay issues them to merchants).
public struct UnionPaySandboxPKI: Sendable {
    /// The root (trusted by merchants of the sandbox).
    public let root: Certificate
    let rootKey: _RSA.Signing.PrivateKey
    /// The gateway's signing credentials.
    public let gateway: ACPCredentials

    /// A new PKI.
    public static func generate(now: Date = Date()) throws -> UnionPaySandboxPKI {
        let rootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rootName = try name("Paysheet UnionPay Sandbox Root")
        let start = now.addingTimeInterval(-86_400)
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: start, notValidAfter: start + 20 * 365 * 86_400, issuer: rootName, subject: rootName,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(rootKey))
        let pki0 = UnionPaySandboxPKI(root: root, rootKey: rootKey, gateway: ACPCredentials(privateKey: rootKey, certificate: root))
        let gateway = try pki0.issue(commonName: "Paysheet UnionPay Sandbox Gateway Signing", now: now)
        return UnionPaySandboxPKI(root: root, rootKey: rootKey, gateway: gateway)
    }

    /// New signing credentials named `commonName`, issued by the root.
    public func issue(commonName: String, now: Date = Date()) throws -> ACPCredentials {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let start = now.addingTimeInterval(-86_400)
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: start, notValidAfter: start + 5 * 365 * 86_400, issuer: root.subject,
            subject: try UnionPaySandboxPKI.name(commonName), signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
            },
            issuerPrivateKey: .init(rootKey))
        return ACPCredentials(privateKey: key, certificate: certificate)
    }

    static func name(_ cn: String) throws -> DistinguishedName {
        try DistinguishedName {
            CountryName("CN")
            OrganizationName("Paysheet Sandbox (not China UnionPay)")
            CommonName(cn)
        }
    }

    /// Loads the PKI from `folder`, or creates and saves it there (keys 0600).
    public static func loadOrCreate(folder: String) throws -> UnionPaySandboxPKI {
        let fm = FileManager.default
        if fm.fileExists(atPath: folder + "/root.pem") {
            let rootKey = try _RSA.Signing.PrivateKey(pemRepresentation: KeyFile.readPrivateKeyText(folder + "/root-key.pem", policy: .refuse))
            let root = try Certificate(pemEncoded: KeyFile.readText(folder + "/root.pem", what: "certificate"))
            let gateway = try ACPCredentials(keyFile: folder + "/gateway/key.pem", certificateFile: folder + "/gateway/certificate.pem")
            return UnionPaySandboxPKI(root: root, rootKey: rootKey, gateway: gateway)
        }
        let pki = try generate()
        try pki.gateway.save(folder: folder + "/gateway")
        try KeyFile.write(pki.rootKey.pemRepresentation, to: folder + "/root-key.pem", mode: 0o600)
        // The root certificate last: its presence means the folder is complete.
        try KeyFile.write(try pki.root.serializeAsPEM().pemString, to: folder + "/root.pem", mode: 0o644)
        return pki
    }

    /// The merchant's signing credentials in `folder`, issued by this PKI on first use.
    public func merchantCredentials(folder: String, merchantId: String) throws -> ACPCredentials {
        if FileManager.default.fileExists(atPath: folder + "/certificate.pem") {
            return try ACPCredentials(keyFile: folder + "/key.pem", certificateFile: folder + "/certificate.pem")
        }
        let credentials = try issue(commonName: "Merchant \(merchantId) signing")
        try credentials.save(folder: folder)
        return credentials
    }
}
