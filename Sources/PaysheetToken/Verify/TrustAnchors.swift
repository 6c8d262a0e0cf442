@preconcurrency import Crypto
import PaysheetTokenFormat
import X509

/// The roots a token's signing chain may end at.
public struct TrustAnchors: Sendable {
    /// The root certificates.
    public let roots: [Certificate]

    /// Trust `roots`.
    public init(_ roots: [Certificate]) { self.roots = roots }

    /// Apple Root CA - G3, embedded: the production trust anchor and the default.
    public static let apple: TrustAnchors = {
        TrustAnchors([try! MerchantKey.certificate(pem: AppleRootCertificate.pem)])
    }()

    /// The roots in the PEM file at `path`.
    public static func file(_ path: String) throws(PaymentTokenError) -> TrustAnchors {
        let text = try TokenFiles.readText(path, what: "root certificate")
        var roots: [Certificate] = []
        for document in try TokenFiles.pemDocuments(text, what: "root certificate")
        where document.discriminator == "CERTIFICATE" {
            do { roots.append(try Certificate(derEncoded: document.derBytes)) } catch {
                throw PaymentTokenError(.invalidKey, "\(path) holds an invalid certificate (\(error))")
            }
        }
        guard !roots.isEmpty else { throw PaymentTokenError(.invalidKey, "\(path) holds no CERTIFICATE") }
        return TrustAnchors(roots)
    }

    /// The subjects of the roots, for messages.
    var names: String { roots.map { "\($0.subject)" }.joined(separator: "; ") }
}
