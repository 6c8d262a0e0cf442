import Foundation
import NIOSSL

/// `sslmode` of a PostgreSQL URL, as libpq reads it.
public enum PostgresTLSMode: String, Sendable, Equatable {
    /// No TLS.
    case disable
    /// TLS when the server offers it, unverified (libpq's default).
    case prefer
    /// TLS or no connection; the certificate is not verified.
    case require
    /// TLS, the certificate verified against `sslrootcert`, not the host name.
    case verifyCA = "verify-ca"
    /// TLS, the certificate and the host name verified.
    case verifyFull = "verify-full"
    /// An `sslmode` Paysheet does not know (refused when the database is opened).
    case unknown

    /// The mode `url` asks for (`prefer` when it names none).
    public init(url: String) {
        let value = URLComponents(string: url)?.queryItems?.first(where: { $0.name == "sslmode" })?.value
        self = value.map { PostgresTLSMode(rawValue: $0) ?? .unknown } ?? .prefer
    }

    /// The CA file `url` names (`sslrootcert`), or `system` (libpq's word for the system's
    /// trusted roots).
    static func rootCertificate(url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first(where: { $0.name == "sslrootcert" })?.value
    }

    /// The TLS configuration for `url` (nil for `disable`), as libpq reads `sslmode` and
    /// `sslrootcert`:
    /// - `verify-ca` and `verify-full` need `sslrootcert`: a CA file, or `system` for the
    ///   system's trusted roots (with `verify-full` only, as libpq). Without it libpq refuses
    ///   ("root certificate file … does not exist"); Paysheet used the system's roots unsaid and
    ///   now refuses too, naming both. (libpq's fallback, `~/.postgresql/root.crt`, is not read:
    ///   name it in `sslrootcert`.)
    /// - `require` with a CA file named verifies the chain as `verify-ca` does (libpq: "if a root
    ///   CA file exists, the behavior of sslmode=require will be the same as that of verify-ca").
    /// - `prefer` and `require` without a CA file encrypt without verifying the server.
    static func configuration(url: String) throws -> (mode: PostgresTLSMode, tls: TLSConfiguration?) {
        let mode = PostgresTLSMode(url: url)
        var tls = TLSConfiguration.makeClientConfiguration()
        let root = rootCertificate(url: url)
        if root == "system" {
            guard mode == .verifyFull else {
                throw StorageError(
                    "sslrootcert=system (the system's trusted roots) needs sslmode=verify-full, as libpq does; the URL has sslmode=\(mode.rawValue)"
                )
            }
            tls.trustRoots = .default
        } else if let ca = root {
            guard FileManager.default.isReadableFile(atPath: ca) else {
                throw StorageError("sslrootcert \(ca) cannot be read")
            }
            tls.trustRoots = .file(ca)
        }
        switch mode {
        case .disable: return (mode, nil)
        case .prefer: tls.certificateVerification = .none
        case .require: tls.certificateVerification = root == nil ? .none : .noHostnameVerification
        case .verifyCA, .verifyFull:
            guard root != nil else {
                throw StorageError(
                    "sslmode=\(mode.rawValue) without sslrootcert: name the CA of the database's certificate (sslrootcert=/path/ca.pem), or sslrootcert=system for the system's trusted roots"
                )
            }
            tls.certificateVerification = mode == .verifyFull ? .fullVerification : .noHostnameVerification
        case .unknown:
            throw StorageError(
                "sslmode in the database URL is not one of disable, prefer, require, verify-ca, verify-full"
            )
        }
        return (mode, tls)
    }
}
