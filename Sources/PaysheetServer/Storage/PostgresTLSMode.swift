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

    /// The CA file `url` names (`sslrootcert`).
    static func rootCertificate(url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first(where: { $0.name == "sslrootcert" })?.value
    }

    /// The TLS configuration for `url` (nil for `disable`).
    static func configuration(url: String) throws -> (mode: PostgresTLSMode, tls: TLSConfiguration?) {
        let mode = PostgresTLSMode(url: url)
        var tls = TLSConfiguration.makeClientConfiguration()
        if let ca = rootCertificate(url: url) {
            guard FileManager.default.isReadableFile(atPath: ca) else {
                throw StorageError("sslrootcert \(ca) cannot be read")
            }
            tls.trustRoots = .file(ca)
        }
        switch mode {
        case .disable: return (mode, nil)
        case .prefer, .require: tls.certificateVerification = .none
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        case .unknown:
            throw StorageError(
                "sslmode in the database URL is not one of disable, prefer, require, verify-ca, verify-full"
            )
        }
        return (mode, tls)
    }
}
