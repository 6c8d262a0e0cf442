import UnionPay
import Crypto
import _CryptoExtras
import Foundation
import PaysheetModel
import SwiftASN1
import X509

/// The sandbox gateway's certificate authority, shaped as UnionPay's: a root, a middle
/// certificate that issues the gateway's signing certificate, and another that issues merchants'
/// signing certificates. Certificates have short serial numbers (every SDK reports them in
/// decimal as `certId`) and UnionPay's CN form, `041@Z12@OWNER@NNNNNNNN`: the gateway's owner field
/// is `00040000:SIGN`, as in UnionPay's test environment; a merchant's is its `merId`. A client
/// identifies the gateway by the chain through the gateway's middle certificate and by that
/// field, so a merchant's certificate, under the same root, can never pass for the gateway's.
public struct UnionPaySandboxPKI: Sendable {
    /// The root (trusted by merchants of the sandbox).
    public let root: Certificate
    let rootKey: _RSA.Signing.PrivateKey
    /// The middle certificate that issues the gateway's signing certificate.
    public let gatewayCA: Certificate
    let gatewayCAKey: _RSA.Signing.PrivateKey
    /// The middle certificate that issues merchants' signing certificates.
    public let merchantCA: Certificate
    let merchantCAKey: _RSA.Signing.PrivateKey
    /// The gateway's signing credentials.
    public let gateway: ACPCredentials

    /// The owner field of the gateway's CN (UnionPay's test environment writes the same:
    /// `ACPGatewayOwners.testEnvironment`).
    public static let gatewayOwner = ACPGatewayOwners.testEnvironment

    /// A new PKI.
    public static func generate(now: Date = Date()) throws -> UnionPaySandboxPKI {
        let start = now.addingTimeInterval(-86_400)
        let rootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rootName = try name("Paysheet UnionPay Sandbox Root")
        let root = try Certificate(
            version: .v3,
            serialNumber: serial(),
            publicKey: .init(rootKey.publicKey),
            notValidBefore: start,
            notValidAfter: start + 20 * 365 * 86_400,
            issuer: rootName,
            subject: rootName,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 1))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(rootKey)
        )
        func middle(_ cn: String) throws -> (Certificate, _RSA.Signing.PrivateKey) {
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let certificate = try Certificate(
                version: .v3,
                serialNumber: serial(),
                publicKey: .init(key.publicKey),
                notValidBefore: start,
                notValidAfter: start + 10 * 365 * 86_400,
                issuer: rootName,
                subject: try name(cn),
                signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: .init(rootKey)
            )
            return (certificate, key)
        }
        let (gatewayCA, gatewayCAKey) = try middle("Paysheet UnionPay Sandbox Gateway CA")
        let (merchantCA, merchantCAKey) = try middle("Paysheet UnionPay Sandbox Merchant CA")
        let gateway = try issue(
            commonName: "041@Z12@\(gatewayOwner)@00000062",
            by: gatewayCA,
            key: gatewayCAKey,
            now: now
        )
        return UnionPaySandboxPKI(
            root: root,
            rootKey: rootKey,
            gatewayCA: gatewayCA,
            gatewayCAKey: gatewayCAKey,
            merchantCA: merchantCA,
            merchantCAKey: merchantCAKey,
            gateway: gateway
        )
    }

    /// New merchant signing credentials for `merchantId` (CN `041@Z12@MERID:SIGN@00000001`), issued
    /// by the merchants' middle certificate.
    public func issueMerchant(merchantId: String, now: Date = Date()) throws -> ACPCredentials {
        try Self.issue(commonName: "041@Z12@\(merchantId):SIGN@00000001", by: merchantCA, key: merchantCAKey, now: now)
    }

    /// Credentials named `commonName` issued by the gateway's middle certificate (tests: a
    /// certificate that chains right but whose owner field is not the gateway's).
    func issueUnderGatewayCA(commonName: String, now: Date = Date()) throws -> ACPCredentials {
        try Self.issue(commonName: commonName, by: gatewayCA, key: gatewayCAKey, now: now)
    }

    static func issue(
        commonName: String,
        by issuer: Certificate,
        key issuerKey: _RSA.Signing.PrivateKey,
        now: Date
    ) throws -> ACPCredentials {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let start = now.addingTimeInterval(-86_400)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: serial(),
            publicKey: .init(key.publicKey),
            notValidBefore: start,
            notValidAfter: start + 5 * 365 * 86_400,
            issuer: issuer.subject,
            subject: try name(commonName),
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
            },
            issuerPrivateKey: .init(issuerKey)
        )
        return ACPCredentials(privateKey: key, certificate: certificate)
    }

    /// A serial number of 11 decimal digits, as UnionPay's certificates have (`69042905377`).
    static func serial() -> Certificate.SerialNumber {
        let value = UInt64.random(in: 10_000_000_000...99_999_999_999)
        return Certificate.SerialNumber(
            bytes: withUnsafeBytes(of: value.bigEndian) { Array($0.drop(while: { $0 == 0 })) }
        )
    }

    static func name(_ cn: String) throws -> DistinguishedName {
        try DistinguishedName {
            CountryName("CN")
            OrganizationName("Paysheet Sandbox (not China UnionPay)")
            CommonName(cn)
        }
    }

    /// Loads the PKI from `folder`, or creates and saves it there (keys 0600). A folder of an
    /// earlier layout (no middle certificates) is made anew.
    public static func loadOrCreate(folder: String) throws -> UnionPaySandboxPKI {
        let fm = FileManager.default
        if fm.fileExists(atPath: folder + "/root.pem") && fm.fileExists(atPath: folder + "/merchant-ca.pem") {
            func key(_ file: String) throws -> _RSA.Signing.PrivateKey {
                try _RSA.Signing.PrivateKey(
                    pemRepresentation: KeyFile.readPrivateKeyText(folder + "/" + file, policy: .refuse)
                )
            }
            func certificate(_ file: String) throws -> Certificate {
                try Certificate(pemEncoded: KeyFile.readText(folder + "/" + file, what: "certificate"))
            }
            let gateway = try ACPCredentials(
                keyFile: folder + "/gateway/key.pem",
                certificateFile: folder + "/gateway/certificate.pem"
            )
            return UnionPaySandboxPKI(
                root: try certificate("root.pem"),
                rootKey: try key("root-key.pem"),
                gatewayCA: try certificate("gateway-ca.pem"),
                gatewayCAKey: try key("gateway-ca-key.pem"),
                merchantCA: try certificate("merchant-ca.pem"),
                merchantCAKey: try key("merchant-ca-key.pem"),
                gateway: gateway
            )
        }
        // Made in a folder of its own, then moved into place in one rename: a process that looks
        // meanwhile sees no PKI or a whole one; of two that make one at once, one wins.
        let staging = folder + ".new-" + UUID().uuidString
        let pki = try generate()
        try pki.gateway.save(folder: staging + "/gateway")
        try KeyFile.write(pki.rootKey.pemRepresentation, to: staging + "/root-key.pem", mode: 0o600)
        try KeyFile.write(pki.gatewayCAKey.pemRepresentation, to: staging + "/gateway-ca-key.pem", mode: 0o600)
        try KeyFile.write(pki.merchantCAKey.pemRepresentation, to: staging + "/merchant-ca-key.pem", mode: 0o600)
        try KeyFile.write(try pki.gatewayCA.serializeAsPEM().pemString, to: staging + "/gateway-ca.pem", mode: 0o644)
        try KeyFile.write(try pki.root.serializeAsPEM().pemString, to: staging + "/root.pem", mode: 0o644)
        try KeyFile.write(try pki.merchantCA.serializeAsPEM().pemString, to: staging + "/merchant-ca.pem", mode: 0o644)
        if fm.fileExists(atPath: folder + "/root.pem") && !fm.fileExists(atPath: folder + "/merchant-ca.pem") {
            // An earlier layout (a root only): set aside, not reused.
            try? fm.moveItem(atPath: folder, toPath: folder + ".old-" + UUID().uuidString)
        }
        do {
            if fm.fileExists(atPath: folder) && !fm.fileExists(atPath: folder + "/root.pem") {
                // The folder holds something else already (a merchant's secure key): the PKI's files
                // move in one by one, the marker last.
                let items =
                    try fm.contentsOfDirectory(atPath: staging).filter { $0 != "merchant-ca.pem" } + ["merchant-ca.pem"]
                for item in items {
                    try fm.moveItem(atPath: staging + "/" + item, toPath: folder + "/" + item)
                }
                try? fm.removeItem(atPath: staging)
            } else {
                try fm.moveItem(atPath: staging, toPath: folder)
            }
        } catch {
            try? fm.removeItem(atPath: staging)
            guard fm.fileExists(atPath: folder + "/merchant-ca.pem") else { throw error }
            return try loadOrCreate(folder: folder)
        }
        return pki
    }

    /// The merchant's secure key for `signMethod=11` in `folder` (`secure-key`, 0600), made on
    /// first use (64 hexadecimal digits); the sandbox gateway and the merchant server read the
    /// same file. Of two processes that make it at once, one wins (`link` refuses to overwrite).
    public static func secureKey(folder: String) throws -> String {
        let text = try KeyFile.privateKeyTextCreatingOnce(folder + "/secure-key") {
            (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() + "\n"
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The gateway's encryption credentials (UnionPay's `acp_…_enc.cer` and its key) in
    /// `folder` (`encryption/`, key 0600), issued by the gateway's middle certificate on first use:
    /// merchants encrypt sensitive fields to its key (`SensitiveDataEncryptor`). The CN carries
    /// the gateway's owner field, as UnionPay's test encryption certificate does.
    public func encryptionCredentials(folder: String, now: Date = Date()) throws -> ACPCredentials {
        let path = folder + "/encryption"
        if FileManager.default.fileExists(atPath: path + "/certificate.pem") {
            return try ACPCredentials(keyFile: path + "/key.pem", certificateFile: path + "/certificate.pem")
        }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let start = now.addingTimeInterval(-86_400)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Self.serial(),
            publicKey: .init(key.publicKey),
            notValidBefore: start,
            notValidAfter: start + 5 * 365 * 86_400,
            issuer: gatewayCA.subject,
            subject: try Self.name("041@Z12@\(Self.gatewayOwner)@00000063"),
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(keyEncipherment: true, dataEncipherment: true))
            },
            issuerPrivateKey: .init(gatewayCAKey)
        )
        let credentials = ACPCredentials(privateKey: key, certificate: certificate)
        // Written aside and moved into place: of two processes that make it at once, one wins.
        let staging = path + ".new-" + UUID().uuidString
        try credentials.save(folder: staging)
        do { try FileManager.default.moveItem(atPath: staging, toPath: path) } catch {
            try? FileManager.default.removeItem(atPath: staging)
        }
        return try ACPCredentials(keyFile: path + "/key.pem", certificateFile: path + "/certificate.pem")
    }

    /// The merchant's signing credentials in `folder`, issued by this PKI on first use.
    public func merchantCredentials(folder: String, merchantId: String) throws -> ACPCredentials {
        if FileManager.default.fileExists(atPath: folder + "/certificate.pem") {
            return try ACPCredentials(keyFile: folder + "/key.pem", certificateFile: folder + "/certificate.pem")
        }
        let credentials = try issueMerchant(merchantId: merchantId)
        try credentials.save(folder: folder)
        return credentials
    }
}
