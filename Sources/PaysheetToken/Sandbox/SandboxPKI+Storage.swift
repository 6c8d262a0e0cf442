@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import Foundation
import PaysheetTokenFormat
import SwiftASN1
import X509

extension SandboxPKI {
    private static let files = ["root", "intermediate", "signer-ec", "signer-rsa", "merchant-ca"]

    /// The PKI stored in `folder`, created there on first use. Creation is atomic: concurrent
    /// first uses agree on one PKI. Private keys are written with mode 0600.
    public static func loadOrCreate(folder: String) throws -> SandboxPKI {
        if FileManager.default.fileExists(atPath: folder + "/root.pem") {
            return try load(folder: folder)
        }
        let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
        try FileManager.default.createDirectory(
            atPath: parent,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let staging = parent + "/.sandbox-ca-\(UUID().uuidString)"
        let pki = try generate()
        try pki.save(folder: staging)
        if rename(staging, folder) != 0 {
            try? FileManager.default.removeItem(atPath: staging)
            guard FileManager.default.fileExists(atPath: folder + "/root.pem") else {
                throw PaymentTokenError(
                    .invalidKey,
                    "cannot create the sandbox CA in \(folder): \(String(cString: strerror(errno)))"
                )
            }
        }
        return try load(folder: folder)
    }

    /// Writes the certificates (`NAME.pem`) and keys (`NAME.key.pem`, mode 0600) to `folder`.
    public func save(folder: String) throws {
        let items: [(String, Certificate, String)] = [
            ("root", root, rootKey.pemRepresentation),
            ("intermediate", intermediate, intermediateKey.pemRepresentation),
            ("signer-ec", ecSigner, ecSignerKey.pemRepresentation),
            ("signer-rsa", rsaSigner, rsaSignerKey.pkcs8PEMRepresentation),
            ("merchant-ca", merchantCA, merchantCAKey.pemRepresentation),
        ]
        for (name, certificate, key) in items {
            try TokenFiles.write(key, to: "\(folder)/\(name).key.pem", mode: 0o600)
            try TokenFiles.write(
                certificate.serializeAsPEM().pemString + "\n",
                to: "\(folder)/\(name).pem",
                mode: 0o644
            )
        }
    }

    /// Reads a PKI written by ``save(folder:)``.
    public static func load(folder: String) throws -> SandboxPKI {
        func certificate(_ name: String) throws -> Certificate {
            try MerchantKey.certificate(file: "\(folder)/\(name).pem", what: "sandbox certificate")
        }
        func key(_ name: String) throws -> String {
            try TokenFiles.readPrivateKeyText("\(folder)/\(name).key.pem", policy: .refuse)
        }
        do {
            return SandboxPKI(
                root: try certificate("root"),
                rootKey: try P384.Signing.PrivateKey(pemRepresentation: key("root")),
                intermediate: try certificate("intermediate"),
                intermediateKey: try P256.Signing.PrivateKey(pemRepresentation: key("intermediate")),
                ecSigner: try certificate("signer-ec"),
                ecSignerKey: try P256.Signing.PrivateKey(pemRepresentation: key("signer-ec")),
                rsaSigner: try certificate("signer-rsa"),
                rsaSignerKey: try _RSA.Signing.PrivateKey(pemRepresentation: key("signer-rsa")),
                merchantCA: try certificate("merchant-ca"),
                merchantCAKey: try P256.Signing.PrivateKey(pemRepresentation: key("merchant-ca"))
            )
        } catch let error as PaymentTokenError {
            throw error
        } catch {
            throw PaymentTokenError(
                .invalidKey,
                "the sandbox CA in \(folder) is damaged (\(error)); delete the folder to create a new one"
            )
        }
    }
}
