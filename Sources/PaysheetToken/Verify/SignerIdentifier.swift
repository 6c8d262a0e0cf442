import PaysheetTokenFormat
import SwiftASN1
import X509

extension CMSSignerInfo.Identifier {
    /// Whether this signer identifier names `certificate`: its issuer and serial number, or its
    /// subject key identifier (CMS, RFC 5652 §5.3). A payment token's and an order package's
    /// signatures find their signing certificate this way.
    func names(_ certificate: Certificate) -> Bool {
        switch self {
        case .issuerAndSerialNumber(let issuer, let serial):
            guard let name = try? DistinguishedName(derEncoded: DER.parse(issuer)) else { return false }
            return certificate.issuer == name && certificate.serialNumber == Certificate.SerialNumber(bytes: serial)
        case .subjectKeyIdentifier(let ski):
            guard let ext = try? certificate.extensions.subjectKeyIdentifier else { return false }
            return Array(ext.keyIdentifier) == ski
        }
    }
}
