import Foundation
import SwiftASN1

/// The one `SignerInfo` of a payment token's signature, with the signed attributes Apple sets.
public struct CMSSignerInfo: Sendable, Equatable {
    /// How the signer names its certificate.
    public enum Identifier: Sendable, Equatable {
        /// The DER `Name` of the issuer and the serial number's content octets.
        case issuerAndSerialNumber(issuer: [UInt8], serialNumber: [UInt8])
        /// A subject key identifier.
        case subjectKeyIdentifier([UInt8])
    }

    /// `sid`.
    public var identifier: Identifier
    /// `digestAlgorithm` (its parameters, NULL or absent, are ignored).
    public var digestAlgorithm: ASN1ObjectIdentifier
    /// `signatureAlgorithm`.
    public var signatureAlgorithm: ASN1ObjectIdentifier
    /// `signature`.
    public var signature: [UInt8]
    /// The signed attributes re-tagged as a DER `SET OF`: the bytes the signature covers.
    public var signedAttributes: [UInt8]
    /// The `contentType` attribute.
    public var contentType: ASN1ObjectIdentifier?
    /// The `messageDigest` attribute.
    public var messageDigest: [UInt8]?
    /// The `signingTime` attribute.
    public var signingTime: Date?
}
