import Foundation
import PaysheetToken
import UnionPay
import X509

/// What keeps a server from starting in production mode: one line per problem. A production
/// server trusts no sandbox key, certificate or token, serves none of the sandbox's tools, and
/// speaks to its database and its public over TLS.
public enum ProductionCheck {
    /// The problems of `c` that can be told from the settings alone (the database's API keys
    /// are checked once it is open, by ``problems(activeAPIKeys:)``).
    public static func problems(_ c: ServerConfiguration) -> [String] {
        var out: [String] = []
        let sandbox = ServerConfiguration()
        if c.tokens.trustSandbox {
            out.append(
                "tokens.trustSandbox is on: sandbox payment tokens would be accepted (PAYSHEET_TRUST_SANDBOX=false)"
            )
        }
        if c.sandboxTools {
            out.append(
                "sandboxTools is on: paysheet.js, its browser bridge, the demo store and /v1/sandbox/* would be served (PAYSHEET_SANDBOX_TOOLS=false)"
            )
        }
        if c.acquirer.gatewayURL == nil {
            out.append(
                "acquirer.gatewayURL is not set: the built-in sandbox gateway would take the payments (PAYSHEET_ACQUIRER_URL)"
            )
        }
        if c.acquirer.merchantId == sandbox.acquirer.merchantId {
            out.append(
                "acquirer.merchantId is the sandbox's \(sandbox.acquirer.merchantId) (PAYSHEET_ACQUIRER_MERCHANT_ID)"
            )
        }
        if c.acquirer.signingKeyFile == nil || c.acquirer.signingCertificateFile == nil {
            out.append(
                "acquirer.signingKeyFile and acquirer.signingCertificateFile are not set: the sandbox's ACP certificate would sign (PAYSHEET_ACQUIRER_KEY, PAYSHEET_ACQUIRER_CERTIFICATE)"
            )
        }
        if c.acquirer.signMethod == .secureKey && c.acquirer.secureKeyFile == nil {
            out.append(
                "acquirer.signMethod is 11 without acquirer.secureKeyFile: the sandbox's secure key would sign (PAYSHEET_ACQUIRER_SECURE_KEY)"
            )
        }
        if c.acquirer.trustedRootFiles?.isEmpty ?? true || c.acquirer.intermediateFiles?.isEmpty ?? true {
            out.append(
                "acquirer.trustedRootFiles and acquirer.intermediateFiles are not set: the sandbox's root and middle certificate would be trusted for the gateway's signatures (PAYSHEET_ACQUIRER_ROOTS, PAYSHEET_ACQUIRER_INTERMEDIATES)"
            )
        }
        if c.acquirer.encryptionCertificateFile == nil {
            out.append(
                "acquirer.encryptionCertificateFile is not set: card data would be encrypted to the sandbox's encryption certificate (PAYSHEET_ACQUIRER_ENCRYPTION_CERTIFICATE, UnionPay's acp_prod_enc.cer)"
            )
        }
        if let owners = c.acquirer.gatewayOwners, owners.contains(ACPGatewayOwners.testEnvironment) {
            out.append(
                "acquirer.gatewayOwners accepts \(ACPGatewayOwners.testEnvironment), the test environment's and the sandbox's gateway (PAYSHEET_ACQUIRER_OWNERS)"
            )
        }
        if c.tokens.certificateFile == nil || c.tokens.keyFile == nil {
            out.append(
                "tokens.certificateFile and tokens.keyFile are not set: tokens would decrypt with the sandbox merchant's key (PAYSHEET_PAYMENT_CERTIFICATE, PAYSHEET_PAYMENT_KEY)"
            )
        }
        if c.merchant.merchantIdentifier == sandbox.merchant.merchantIdentifier {
            out.append("merchant.merchantIdentifier is the sandbox's \(sandbox.merchant.merchantIdentifier)")
        }
        if c.merchantValidation != .apple {
            out.append(
                "merchantValidation is \"\(c.merchantValidation.rawValue)\": merchant sessions would be the sandbox's (PAYSHEET_MERCHANT_VALIDATION=apple)"
            )
        }
        if let url = c.databaseURL, url.hasPrefix("postgres"), let problem = databaseTLSProblem(url) {
            out.append(problem)
        }
        if let url = c.publicURL {
            if URLComponents(string: url)?.scheme?.lowercased() != "https" {
                out.append("publicURL \(url) is not https")
            }
        } else {
            out.append(
                "publicURL is not set: the gateway's notifications need the server's https address (PAYSHEET_PUBLIC_URL)"
            )
        }
        out += SandboxMaterial(dataFolder: c.dataFolder).problems(c)
        return out
    }

    /// Why the PostgreSQL connection of `url` is not fit for production, or nil: only
    /// `sslmode=verify-full` checks that the server is the database (its certificate chains to the
    /// CA named by `sslrootcert` and names the host connected to). `disable`, `allow` and `prefer`
    /// may not encrypt at all; `require` encrypts to whoever answers; `verify-ca` accepts any
    /// certificate of the CA, whatever host it names (another server of the same CA, a pooler's,
    /// a stolen one). `verify-ca` is refused outright rather than allowed behind a setting: a
    /// certificate that names the host is always possible (a SAN for the name or address in the
    /// URL), and a setting that weakens it would stay on after the reason for it was gone.
    static func databaseTLSProblem(_ url: String) -> String? {
        let fix =
            "use sslmode=verify-full&sslrootcert=CA_FILE (the CA that issued the database's certificate, which names the host in the URL; or sslrootcert=system for the system's trusted roots)"
        let named = URLComponents(string: url)?.queryItems?.first(where: { $0.name == "sslmode" })?.value
        switch PostgresTLSMode(url: url) {
        case .verifyFull:
            guard PostgresTLSMode.rootCertificate(url: url)?.isEmpty == false else {
                return
                    "the PostgreSQL URL has sslmode=verify-full without sslrootcert: the CA is not named (libpq refuses; the system's roots would be used unsaid); add sslrootcert=CA_FILE, or sslrootcert=system for the system's trusted roots (keeping sslmode=verify-full)"
            }
            return nil
        case .verifyCA:
            return
                "the PostgreSQL URL has sslmode=verify-ca: the certificate's CA is checked but not that it names the database's host, so any certificate of that CA would be taken for the database; \(fix)"
        case .require:
            return
                "the PostgreSQL URL has sslmode=require: the connection is encrypted but the server is not verified, so whoever answers on the way gets every payment; \(fix)"
        case .disable, .prefer:
            let mode = named.map { "sslmode=\($0)" } ?? "no sslmode (libpq's default, prefer)"
            return
                "the PostgreSQL URL has \(mode): the connection may not be encrypted and the server is not verified; \(fix)"
        case .unknown:
            return
                "the PostgreSQL URL has sslmode=\(named ?? ""): not one that verifies the server (allow and prefer may not encrypt); \(fix)"
        }
    }

    /// The problem of a database with `activeAPIKeys` keys.
    public static func problems(activeAPIKeys: Int) -> [String] {
        activeAPIKeys > 0
            ? []
            : ["no API key exists: create one with paysheet api-key create (the merchant's calls would all be refused)"]
    }
}

/// The server refused to start in production mode.
public struct ProductionRefusal: Error, CustomStringConvertible, Sendable {
    /// One line per problem.
    public var problems: [String]
    public var description: String {
        "paysheet serve refuses to start in production mode:\n" + problems.map { "  - " + $0 }.joined(separator: "\n")
    }
}

/// Paysheet's sandbox keys and certificates, recognized by what they hold, not by where they are:
/// a copy of the sandbox's root in `/etc/paysheet/root.pem` is still the sandbox's root.
///
/// - A certificate is the sandbox's when its subject or issuer has an organization (O) or unit
///   (OU) beginning "Paysheet Sandbox": every certificate the sandbox PKIs make does
///   (`Paysheet Sandbox (not China UnionPay)` for UnionPay's, `Paysheet Sandbox (not Apple)` for
///   the tokens', their merchants' certificates included), wherever the data folder is.
/// - A private key is the sandbox's when its public key is that of a sandbox certificate: the
///   certificate configured beside it, or one of the data folder's sandbox PKIs. A key copied
///   alone and configured beside another certificate is not that certificate's key, which is a
///   problem too.
/// - The secure key (`signMethod=11`) holds no mark: it is the sandbox's when it equals one of
///   the data folder's sandbox secure keys.
struct SandboxMaterial {
    /// The certificates of the data folder's sandbox PKIs (none when it has none).
    let dataFolderCertificates: [Certificate]
    /// The data folder's sandbox secure keys.
    let dataFolderSecureKeys: Set<String>

    /// The sandbox material in `dataFolder` (`unionpay-sandbox/`, `sandbox-ca/`, `merchants/`);
    /// read, never made.
    init(dataFolder: String) {
        var certificates: [Certificate] = []
        var secureKeys: Set<String> = []
        let fm = FileManager.default
        for sub in ["unionpay-sandbox", "sandbox-ca", "merchants"] {
            let root = dataFolder + "/" + sub
            guard let items = fm.enumerator(atPath: root) else { continue }
            var seen = 0
            while let item = items.nextObject() as? String, seen < 10_000 {
                seen += 1
                let path = root + "/" + item
                if item.hasSuffix(".pem") {
                    certificates += Self.certificates(path).filter(Self.isSandbox)
                } else if (item as NSString).lastPathComponent == "secure-key", let key = Self.text(path) {
                    secureKeys.insert(key.trimmingCharacters(in: .whitespacesAndNewlines))
                }
            }
        }
        dataFolderCertificates = certificates
        dataFolderSecureKeys = secureKeys
    }

    /// A problem for each configured file of `c` that is sandbox material.
    func problems(_ c: ServerConfiguration) -> [String] {
        var out: [String] = []
        // Certificates: setting, file, what production uses instead.
        var certificateFiles: [(setting: String, file: String, use: String)] = []
        func add(_ setting: String, _ file: String?, _ use: String) {
            if let file { certificateFiles.append((setting, file, use)) }
        }
        add(
            "acquirer.signingCertificateFile",
            c.acquirer.signingCertificateFile,
            "the merchant's signing certificate from UnionPay (acp_prod_sign.pfx)"
        )
        for file in c.acquirer.trustedRootFiles ?? [] {
            add("acquirer.trustedRootFiles", file, "UnionPay's root certificate (acp_prod_root.cer)")
        }
        for file in c.acquirer.intermediateFiles ?? [] {
            add("acquirer.intermediateFiles", file, "UnionPay's middle certificate (acp_prod_middle.cer)")
        }
        add(
            "acquirer.encryptionCertificateFile",
            c.acquirer.encryptionCertificateFile,
            "UnionPay's encryption certificate (acp_prod_enc.cer)"
        )
        add("tokens.certificateFile", c.tokens.certificateFile, "the payment processing certificate Apple issued")
        add("identityCertificateFile", c.identityCertificateFile, "the merchant identity certificate Apple issued")
        if let url = c.databaseURL, url.hasPrefix("postgres"), let ca = PostgresTLSMode.rootCertificate(url: url),
            ca != "system"
        {
            add("databaseURL's sslrootcert", ca, "the CA of the database's certificate")
        }
        var sandboxCertificates = dataFolderCertificates
        for (setting, file, use) in certificateFiles {
            let found = Self.certificates(file).filter(Self.isSandbox)
            guard let first = found.first else { continue }
            sandboxCertificates += found
            out.append(
                "\(setting) names \(file), a certificate of Paysheet's sandbox (\(Self.describe(first))): its key is in a sandbox data folder, anyone's to use; use \(use)"
            )
        }
        // Private keys: setting, file, the certificate configured beside it.
        let keyFiles:
            [(setting: String, file: String?, certificateSetting: String, certificate: String?, use: String)] = [
                (
                    "acquirer.signingKeyFile", c.acquirer.signingKeyFile, "acquirer.signingCertificateFile",
                    c.acquirer.signingCertificateFile, "the key of the merchant's signing certificate from UnionPay"
                ),
                (
                    "tokens.keyFile", c.tokens.keyFile, "tokens.certificateFile", c.tokens.certificateFile,
                    "the key whose CSR Apple issued the payment processing certificate for"
                ),
                (
                    "identityKeyFile", c.identityKeyFile, "identityCertificateFile", c.identityCertificateFile,
                    "the key of the merchant identity certificate Apple issued"
                ),
            ]
        for (setting, file, certificateSetting, certificateFile, use) in keyFiles {
            guard let file, let key = Self.publicKey(ofKeyFile: file) else { continue }
            if let sandbox = sandboxCertificates.first(where: { Array($0.publicKey.subjectPublicKeyInfoBytes) == key })
            {
                out.append(
                    "\(setting) names \(file), the private key of Paysheet's sandbox certificate (\(Self.describe(sandbox))); use \(use)"
                )
            } else if let certificateFile, let partner = Self.certificates(certificateFile).first,
                Array(partner.publicKey.subjectPublicKeyInfoBytes) != key
            {
                out.append(
                    "\(setting) \(file) is not the key of \(certificateSetting) \(certificateFile) (\(Self.describe(partner))): a key copied from elsewhere (a sandbox's?); use \(use)"
                )
            }
        }
        if let file = c.acquirer.secureKeyFile, let key = Self.text(file),
            dataFolderSecureKeys.contains(key.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            out.append(
                "acquirer.secureKeyFile names \(file), the secure key of the sandbox gateway in \(c.dataFolder)/unionpay-sandbox; use the secure key set with UnionPay"
            )
        }
        return out
    }

    /// Whether `certificate` was made by one of Paysheet's sandbox PKIs.
    static func isSandbox(_ certificate: Certificate) -> Bool {
        isSandbox(certificate.subject) || isSandbox(certificate.issuer)
    }

    static func isSandbox(_ name: DistinguishedName) -> Bool {
        name.flatMap { $0 }.contains { attribute in
            guard
                attribute.type == .RDNAttributeType.organizationName
                    || attribute.type == .RDNAttributeType.organizationalUnitName
            else { return false }
            return String(describing: attribute.value).lowercased().hasPrefix("paysheet sandbox")
        }
    }

    static func describe(_ certificate: Certificate) -> String {
        String(describing: certificate.subject)
    }

    static func text(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The certificates in the file at `path`: its PEM blocks, or the file as DER.
    static func certificates(_ path: String) -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path), data.count < 1 << 20 else { return [] }
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN") {
            return pemBlocks(text).compactMap { try? Certificate(pemEncoded: $0) }
        }
        return (try? Certificate(derEncoded: Array(data))).map { [$0] } ?? []
    }

    /// The DER SubjectPublicKeyInfo of the private key in the file at `path` (PKCS#8, PKCS#1 or
    /// SEC1 PEM).
    static func publicKey(ofKeyFile path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path), data.count < 1 << 20,
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        for block in pemBlocks(text) {
            if let key = try? Certificate.PrivateKey(pemEncoded: block) {
                return Array(key.publicKey.subjectPublicKeyInfoBytes)
            }
        }
        return (try? MerchantPrivateKey(pem: text))?.publicKeySPKI
    }

    /// The PEM blocks of `text`, each from its BEGIN line to its END line.
    static func pemBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("-----BEGIN ") {
                current = [Substring(trimmed)]
            } else if trimmed.hasPrefix("-----END "), var block = current {
                block.append(Substring(trimmed))
                blocks.append(block.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(Substring(trimmed))
            }
        }
        return blocks
    }
}
