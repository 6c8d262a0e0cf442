@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import Foundation
import PaysheetModel
import PaysheetTokenFormat
import SwiftASN1
import X509

/// Signs order packages as Wallet requires: a detached CMS `SignedData` over `manifest.json`
/// (SHA-256, signed attributes contentType, signingTime and messageDigest), made with the key of
/// an Order Type ID certificate and carrying that certificate and its issuer (Apple's WWDR
/// intermediate in production; the sandbox's merchant CA in the sandbox).
public struct OrderPackageSigner: Sendable {
    /// The Order Type ID certificate.
    public let certificate: Certificate
    /// The certificate that issued it, embedded in every signature.
    public let intermediate: Certificate
    /// The private key's bytes (swift-crypto 3.12 does not mark its keys `Sendable`: each signature
    /// reads the key from them).
    let key: KeyBytes

    enum KeyBytes: Sendable {
        case p256(raw: [UInt8])
        case rsa(der: [UInt8])

        var signingKey: CMSWriter.SigningKey {
            get throws {
                switch self {
                case .p256(let raw): return .p256(try P256.Signing.PrivateKey(rawRepresentation: raw))
                case .rsa(let der): return .rsa(try _RSA.Signing.PrivateKey(derRepresentation: der))
                }
            }
        }
    }

    /// The order type identifier the certificate names (its subject's UID), which every order it
    /// signs must carry as `orderTypeIdentifier`.
    public var orderTypeIdentifier: String? { Self.orderTypeIdentifier(of: certificate) }

    /// A signer with a P-256 key.
    public init(certificate: Certificate, key: P256.Signing.PrivateKey, intermediate: Certificate) throws {
        guard Certificate.PublicKey(key.publicKey) == certificate.publicKey else {
            throw OrderPackageError(.identity, "the private key is not the order type certificate's")
        }
        self.certificate = certificate
        self.intermediate = intermediate
        self.key = .p256(raw: Array(key.rawRepresentation))
    }

    /// A signer with an RSA key (Apple issues Order Type ID certificates for RSA-2048 keys).
    public init(certificate: Certificate, key: _RSA.Signing.PrivateKey, intermediate: Certificate) throws {
        guard Certificate.PublicKey(key.publicKey) == certificate.publicKey else {
            throw OrderPackageError(.identity, "the private key is not the order type certificate's")
        }
        self.certificate = certificate
        self.intermediate = intermediate
        self.key = .rsa(der: Array(key.derRepresentation))
    }

    /// A signer from PEM files: the Order Type ID certificate, its private key (P-256 or RSA;
    /// the file's mode must keep it from others: 0600 or stricter) and the intermediate that
    /// issued the certificate.
    public init(certificateFile: String, keyFile: String, intermediateFile: String) throws {
        let certificate = try Self.certificate(file: certificateFile)
        let intermediate = try Self.certificate(file: intermediateFile)
        let keyText: String
        do throws(KeyFileError) { keyText = try KeyFile.readPrivateKeyText(keyFile, policy: .refuse) } catch {
            throw OrderPackageError(.identity, error.message)
        }
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: keyText) {
            try self.init(certificate: certificate, key: key, intermediate: intermediate)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: keyText) {
            try self.init(certificate: certificate, key: key, intermediate: intermediate)
        } else {
            throw OrderPackageError(.identity, "\(keyFile) holds neither a P-256 nor an RSA private key (PEM)")
        }
    }

    /// The detached signature of `manifest` (the bytes of `manifest.json`), dated `signingTime`.
    public func signature(of manifest: [UInt8], at signingTime: Date) throws -> [UInt8] {
        try CMSWriter.sign(
            manifest,
            signer: certificate,
            key: try key.signingKey,
            intermediate: intermediate,
            signingTime: signingTime
        )
    }

    /// The UID attribute of a certificate's subject: what Apple's Pass and Order Type ID
    /// certificates name their type identifier with.
    public static func orderTypeIdentifier(of certificate: Certificate) -> String? {
        for relativeName in certificate.subject {
            for attribute in relativeName where attribute.type == userID {
                return String(attribute.value)
            }
        }
        return nil
    }

    /// `userId` (0.9.2342.19200300.100.1.1), the subject attribute holding the type identifier.
    static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]

    static func certificate(file: String) throws -> Certificate {
        let text: String
        do throws(KeyFileError) { text = try KeyFile.readText(file, what: "certificate") } catch {
            throw OrderPackageError(.identity, error.message)
        }
        do { return try Certificate(pemEncoded: text) } catch {
            throw OrderPackageError(.identity, "\(file) is not a PEM certificate (\(error))")
        }
    }
}
