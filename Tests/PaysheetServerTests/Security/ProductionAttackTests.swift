import Crypto
import _CryptoExtras
import Foundation
import Logging
import PaysheetModel
import PaysheetSheetTokens
import PaysheetToken
import PaysheetTokenFormat
import Testing
import UnionPay
import UnionPaySandbox
import X509

@testable import PaysheetServer

/// Finding 14 of the audit: production checked that the key and certificate files were set, not
/// what they held. The sandbox's root copied to `/etc/paysheet/root.pem` and configured as
/// UnionPay's root started a production server that took any sandbox gateway's word for a
/// payment (the sandbox's keys sit in every sandbox data folder). Sandbox material is now
/// recognized by its content wherever it is named.
@Suite struct ProductionAttackTests {
    /// A sandbox data folder as `paysheet serve` leaves it after a first run, and its files.
    struct SandboxFiles {
        let data: String
        let merchantId = ServerConfiguration().acquirer.merchantId
        let merchantIdentifier = ServerConfiguration().merchant.merchantIdentifier
        var unionPay: String { data + "/unionpay-sandbox" }
        var acp: String { unionPay + "/merchant-" + merchantId }
        var tokens: String { data + "/sandbox-ca" }
        var payment: String { data + "/merchants/" + merchantIdentifier }

        init() throws {
            data = NSTemporaryDirectory() + "paysheet-sandbox-" + UUID().uuidString
            let pki = try UnionPaySandboxPKI.loadOrCreate(folder: data + "/unionpay-sandbox")
            _ = try pki.merchantCredentials(folder: acp, merchantId: merchantId)
            _ = try pki.encryptionCredentials(folder: unionPay)
            _ = try UnionPaySandboxPKI.secureKey(folder: acp)
            _ = try SandboxMerchant.loadOrCreate(dataFolder: data, merchantIdentifier: merchantIdentifier)
        }
    }

    /// `file` copied to `folder` as `name` (keys stay 0600), as an operator copies it to /etc.
    static func copy(_ file: String, to folder: String, as name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let isKey = text.contains("PRIVATE KEY") || name.contains("secure-key")
        try KeyFile.write(text, to: folder + "/" + name, mode: isKey ? 0o600 : 0o644)
        return folder + "/" + name
    }

    /// A production configuration with everything right (stand-ins for UnionPay's and Apple's
    /// certificates, made here), whose data folder holds no sandbox.
    static func production() throws -> ServerConfiguration {
        let f = ProductionModeTests.folder()
        return try ProductionModeTests.goodConfiguration(
            folder: f,
            gatewayURL: "https://gateway.example/gateway/api",
            acquirer: try StandIn.acquirer(folder: f)
        )
    }

    /// The attack: every sandbox certificate and key copied to /etc/paysheet-like paths and named
    /// in a production configuration whose data folder is elsewhere. Each is one problem naming
    /// the setting and the file.
    @Test func everySandboxCertificateAndKeyCopiedElsewhereIsRefusedByContent() async throws {
        let sandbox = try SandboxFiles()
        let etc = NSTemporaryDirectory() + "paysheet-etc-" + UUID().uuidString
        var c = try Self.production()
        #expect(ProductionCheck.problems(c) == [])
        c.acquirer.trustedRootFiles = [try Self.copy(sandbox.unionPay + "/root.pem", to: etc, as: "root.pem")]
        c.acquirer.intermediateFiles = [try Self.copy(sandbox.unionPay + "/gateway-ca.pem", to: etc, as: "middle.pem")]
        c.acquirer.signingCertificateFile = try Self.copy(sandbox.acp + "/certificate.pem", to: etc, as: "acp.pem")
        c.acquirer.signingKeyFile = try Self.copy(sandbox.acp + "/key.pem", to: etc, as: "acp-key.pem")
        c.acquirer.encryptionCertificateFile = try Self.copy(
            sandbox.unionPay + "/encryption/certificate.pem",
            to: etc,
            as: "acp_prod_enc.cer"
        )
        c.tokens.certificateFile = try Self.copy(sandbox.payment + "/certificate.pem", to: etc, as: "apple_pay.pem")
        c.tokens.keyFile = try Self.copy(sandbox.payment + "/key.pem", to: etc, as: "apple_pay.key")
        // The tokens' sandbox signing certificate and key as the merchant identity, and their
        // sandbox root as the database's CA.
        c.identityCertificateFile = try Self.copy(sandbox.tokens + "/signer-ec.pem", to: etc, as: "identity.pem")
        c.identityKeyFile = try Self.copy(sandbox.tokens + "/signer-ec.key.pem", to: etc, as: "identity.key")
        let tokenRoot = try Self.copy(sandbox.tokens + "/root.pem", to: etc, as: "db-ca.pem")
        c.databaseURL = "postgres://paysheet:secret@db.example/paysheet?sslmode=verify-full&sslrootcert=" + tokenRoot
        let problems = ProductionCheck.problems(c)
        let expected: [(setting: String, file: String)] = [
            ("acquirer.trustedRootFiles", "root.pem"),
            ("acquirer.intermediateFiles", "middle.pem"),
            ("acquirer.signingCertificateFile", "acp.pem"),
            ("acquirer.signingKeyFile", "acp-key.pem"),
            ("acquirer.encryptionCertificateFile", "acp_prod_enc.cer"),
            ("tokens.certificateFile", "apple_pay.pem"),
            ("tokens.keyFile", "apple_pay.key"),
            ("identityCertificateFile", "identity.pem"),
            ("identityKeyFile", "identity.key"),
            ("sslrootcert", "db-ca.pem"),
        ]
        for (setting, file) in expected {
            let line = problems.first { $0.contains(setting) && $0.contains(etc + "/" + file) }
            #expect(line?.contains("sandbox") == true, "no problem names \(setting) \(file): \(problems)")
        }
        #expect(problems.count == expected.count, "\(problems)")
        // paysheet serve --mode production refuses with them.
        let refusal = await #expect(throws: ProductionRefusal.self) {
            try await MerchantServer.run(c, logger: Logger(label: "test"))
        }
        #expect(refusal?.problems == problems)
    }

    /// Each sandbox file alone, beside otherwise right settings: one problem, naming the setting.
    @Test(arguments: [
        "acquirer.trustedRootFiles", "acquirer.intermediateFiles", "acquirer.signingCertificateFile",
        "acquirer.encryptionCertificateFile", "tokens.certificateFile",
    ])
    func eachSandboxCertificateAloneIsOneProblem(setting: String) throws {
        let sandbox = try SandboxFiles()
        let etc = NSTemporaryDirectory() + "paysheet-etc-" + UUID().uuidString
        var c = try Self.production()
        switch setting {
        case "acquirer.trustedRootFiles":
            // Beside UnionPay's own root, the sandbox's is still refused.
            c.acquirer.trustedRootFiles! += [try Self.copy(sandbox.unionPay + "/root.pem", to: etc, as: "root.pem")]
        case "acquirer.intermediateFiles":
            c.acquirer.intermediateFiles = [try Self.copy(sandbox.unionPay + "/gateway-ca.pem", to: etc, as: "m.pem")]
        case "acquirer.signingCertificateFile":
            // The sandbox's certificate with the merchant's own key: the certificate, and the key
            // that is not its.
            c.acquirer.signingCertificateFile = try Self.copy(sandbox.acp + "/certificate.pem", to: etc, as: "a.pem")
        case "acquirer.encryptionCertificateFile":
            c.acquirer.encryptionCertificateFile = try Self.copy(
                sandbox.unionPay + "/encryption/certificate.pem",
                to: etc,
                as: "e.pem"
            )
        case "tokens.certificateFile":
            c.tokens.certificateFile = try Self.copy(sandbox.payment + "/certificate.pem", to: etc, as: "t.pem")
        default: Issue.record("unknown setting \(setting)")
        }
        let problems = ProductionCheck.problems(c).filter { !$0.contains(" is not the key of ") }
        #expect(problems.count == 1, "\(setting): \(problems)")
        #expect(problems.first?.hasPrefix(setting) == true, "\(setting): \(problems)")
        #expect(problems.first?.contains("Paysheet's sandbox") == true, "\(setting): \(problems)")
    }

    /// A sandbox key copied beside the merchant's own certificate: with the sandbox's data folder
    /// it is recognized as the sandbox's; with the data folder elsewhere, it is not the
    /// certificate's key.
    @Test(arguments: ["acquirer.signingKeyFile", "tokens.keyFile"])
    func aSandboxKeyBesideTheRightCertificateIsRefused(setting: String) throws {
        let sandbox = try SandboxFiles()
        let etc = NSTemporaryDirectory() + "paysheet-etc-" + UUID().uuidString
        var c = try Self.production()
        if setting == "acquirer.signingKeyFile" {
            c.acquirer.signingKeyFile = try Self.copy(sandbox.acp + "/key.pem", to: etc, as: "key.pem")
        } else {
            c.tokens.keyFile = try Self.copy(sandbox.payment + "/key.pem", to: etc, as: "key.pem")
        }
        let elsewhere = ProductionCheck.problems(c)
        #expect(elsewhere.count == 1, "\(elsewhere)")
        #expect(elsewhere.first?.hasPrefix(setting + " " + etc + "/key.pem is not the key of") == true, "\(elsewhere)")
        c.dataFolder = sandbox.data
        let here = ProductionCheck.problems(c)
        #expect(here.count == 1, "\(here)")
        #expect(here.first?.contains("the private key of Paysheet's sandbox certificate") == true, "\(here)")
    }

    /// The secure key holds no mark: it is recognized against the data folder's sandbox keys.
    @Test func theSandboxSecureKeyIsRefusedAgainstTheDataFolder() throws {
        let sandbox = try SandboxFiles()
        let etc = NSTemporaryDirectory() + "paysheet-etc-" + UUID().uuidString
        var c = try Self.production()
        c.dataFolder = sandbox.data
        c.acquirer.signMethod = .secureKey
        c.acquirer.secureKeyFile = try Self.copy(sandbox.acp + "/secure-key", to: etc, as: "secure-key")
        let problems = ProductionCheck.problems(c)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.hasPrefix("acquirer.secureKeyFile") == true, "\(problems)")
        // A secure key of the merchant's own is not.
        try KeyFile.write(String(repeating: "ab", count: 32), to: etc + "/own-secure-key", mode: 0o600)
        c.acquirer.secureKeyFile = etc + "/own-secure-key"
        #expect(ProductionCheck.problems(c) == [])
    }

    /// The stand-ins (UnionPay's CFCA-like names, Apple's) pass: the check reads marks, not shapes.
    @Test func theStandInsAreNotSandboxMaterial() throws {
        let c = try Self.production()
        for file in [
            c.acquirer.signingCertificateFile, c.acquirer.encryptionCertificateFile, c.tokens.certificateFile,
        ] + (c.acquirer.trustedRootFiles ?? []) + (c.acquirer.intermediateFiles ?? []) {
            let certificates = SandboxMaterial.certificates(try #require(file))
            #expect(certificates.count == 1)
            #expect(!certificates.contains(where: SandboxMaterial.isSandbox))
        }
    }
}

/// Certificates standing in for UnionPay's and Apple's in tests of production mode: made here,
/// named as the real ones are, and not by the sandbox PKIs (whose certificates production refuses).
enum StandIn {
    static func name(_ commonName: String, organization: String) throws -> DistinguishedName {
        try DistinguishedName {
            CountryName("CN")
            OrganizationName(organization)
            OrganizationalUnitName("Enterprises")
            CommonName(commonName)
        }
    }

    static var serial: Certificate.SerialNumber {
        let value = UInt64.random(in: 10_000_000_000...99_999_999_999)
        return Certificate.SerialNumber(
            bytes: withUnsafeBytes(of: value.bigEndian) { Array($0.drop(while: { $0 == 0 })) }
        )
    }

    /// An RSA certificate for `subject` issued by `issuer` (nil: self-signed).
    static func rsa(
        _ subject: DistinguishedName,
        issuer: (Certificate, _RSA.Signing.PrivateKey)?,
        ca: Bool,
        keyUsage: KeyUsage = KeyUsage(digitalSignature: true, nonRepudiation: true)
    ) throws -> (Certificate, _RSA.Signing.PrivateKey) {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let start = Date().addingTimeInterval(-86_400)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: serial,
            publicKey: .init(key.publicKey),
            notValidBefore: start,
            notValidAfter: start + 5 * 365 * 86_400,
            issuer: issuer?.0.subject ?? subject,
            subject: subject,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions {
                if ca {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 1))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                } else {
                    keyUsage
                }
            },
            issuerPrivateKey: .init(issuer?.1 ?? key)
        )
        return (certificate, key)
    }

    /// A stand-in for UnionPay's PKI under `folder`: its root, middle certificates and gateway in
    /// UnionPaySandboxPKI's layout (`acquirer/`), the merchant's ACP credentials (`acp/`) and the
    /// gateway's encryption certificate (`acquirer-enc/encryption/`), which
    /// ``ProductionModeTests/goodConfiguration(folder:gatewayURL:acquirer:)`` then reads.
    static func acquirer(folder: String, merchantId: String = "898110248990001") throws -> UnionPaySandboxPKI {
        let o = "CFCA Stand-in (tests)"
        let root = try rsa(try name("Stand-in UnionPay Root", organization: o), issuer: nil, ca: true)
        let middle = try rsa(try name("Stand-in UnionPay Middle", organization: o), issuer: root, ca: true)
        let merchantMiddle = try rsa(try name("Stand-in Merchant Middle", organization: o), issuer: root, ca: true)
        let gateway = try rsa(
            try name("041@Z12@\(ACPGatewayOwners.unionPay)@00000062", organization: o),
            issuer: middle,
            ca: false
        )
        let encryption = try rsa(
            try name("041@Z12@\(ACPGatewayOwners.unionPay)@00000063", organization: o),
            issuer: middle,
            ca: false,
            keyUsage: KeyUsage(keyEncipherment: true, dataEncipherment: true)
        )
        let merchant = try rsa(
            try name("041@Z12@\(merchantId):SIGN@00000001", organization: o),
            issuer: merchantMiddle,
            ca: false
        )
        let acquirer = folder + "/acquirer"
        for (file, certificate, key) in [
            ("root", root.0, root.1), ("gateway-ca", middle.0, middle.1),
            ("merchant-ca", merchantMiddle.0, merchantMiddle.1),
        ] {
            try KeyFile.write(try certificate.serializeAsPEM().pemString, to: "\(acquirer)/\(file).pem", mode: 0o644)
            try KeyFile.write(key.pemRepresentation, to: "\(acquirer)/\(file)-key.pem", mode: 0o600)
        }
        try ACPCredentials(privateKey: gateway.1, certificate: gateway.0).save(folder: acquirer + "/gateway")
        try ACPCredentials(privateKey: merchant.1, certificate: merchant.0).save(folder: folder + "/acp")
        try ACPCredentials(privateKey: encryption.1, certificate: encryption.0)
            .save(folder: folder + "/acquirer-enc/encryption")
        return try UnionPaySandboxPKI.loadOrCreate(folder: acquirer)
    }

    /// A stand-in for the payment processing certificate Apple issues for `merchantIdentifier`
    /// (P-256, the merchant identifier in extension 1.2.840.113635.100.6.32), and its key, in
    /// `folder`; returns the files.
    static func paymentProcessing(
        folder: String,
        merchantIdentifier: String
    ) throws -> (certificate: String, privateKey: String) {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName {
            CountryName("US")
            OrganizationName("Apple Stand-in (tests)")
            CommonName("Stand-in Apple Worldwide Developer Relations CA - G2")
        }
        let key = P256.KeyAgreement.PrivateKey()
        let hash = SHA256.hash(data: Data(merchantIdentifier.utf8)).map { String(format: "%02X", $0) }.joined()
        let value: [UInt8] = [0x0C, UInt8(hash.utf8.count)] + Array(hash.utf8)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: .init(try P256.Signing.PublicKey(rawRepresentation: key.publicKey.rawRepresentation)),
            notValidBefore: Date().addingTimeInterval(-86_400),
            notValidAfter: Date().addingTimeInterval(2 * 365 * 86_400),
            issuer: caName,
            subject: try DistinguishedName {
                CountryName("US")
                OrganizationName("Example Shop")
                CommonName("Merchant ID: \(merchantIdentifier)")
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(keyAgreement: true))
                Certificate.Extension(oid: TokenOID.merchantIdentifier, critical: false, value: value[...])
            },
            issuerPrivateKey: .init(caKey)
        )
        let paths = (folder + "/certificate.pem", folder + "/key.pem")
        try KeyFile.write(try certificate.serializeAsPEM().pemString, to: paths.0, mode: 0o644)
        try KeyFile.write(MerchantPrivateKey.p256(key).pkcs8PEM, to: paths.1, mode: 0o600)
        return paths
    }
}
