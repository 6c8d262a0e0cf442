import Crypto
import _CryptoExtras
import Foundation
import PaysheetModel
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
        } catch let error as KeyFileError {
            throw ACPError(.credentials, error.message)
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
