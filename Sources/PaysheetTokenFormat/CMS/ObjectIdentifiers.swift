import SwiftASN1

/// The object identifiers of Apple's payment-token signatures and certificates.
public enum TokenOID {
    /// id-signedData (RFC 5652).
    public static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    /// id-data (RFC 5652).
    public static let data: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    /// The contentType signed attribute.
    public static let contentType: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 3]
    /// The messageDigest signed attribute.
    public static let messageDigest: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
    /// The signingTime signed attribute.
    public static let signingTime: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 5]
    /// SHA-256.
    public static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    /// ecdsa-with-SHA256.
    public static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    /// id-ecPublicKey (some signers name the key type instead of the signature algorithm).
    public static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    /// sha256WithRSAEncryption.
    public static let sha256WithRSAEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 11]
    /// rsaEncryption (some signers name the key type instead of the signature algorithm).
    public static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    /// Apple's marker extension on the payment-token signing (leaf) certificate.
    public static let appleLeafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 29]
    /// Apple's marker extension on the Apple Application Integration CA (intermediate).
    public static let appleIntermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 14]
    /// The merchant identifier extension of a payment processing certificate: SHA-256 of the
    /// merchant identifier, as hexadecimal text.
    public static let merchantIdentifier: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 32]
}

/// The object identifiers a token's signature names, by their DER encoding: the CMS reader looks
/// an identifier up here before asking swift-asn1 to parse it (a parse is a tree and its
/// allocations; a token's signature names nine identifiers).
enum KnownOIDs {
    static let table: [(der: [UInt8], oid: ASN1ObjectIdentifier)] = [
        TokenOID.signedData, TokenOID.data, TokenOID.contentType, TokenOID.messageDigest, TokenOID.signingTime,
        TokenOID.sha256, TokenOID.ecdsaWithSHA256, TokenOID.ecPublicKey, TokenOID.sha256WithRSAEncryption,
        TokenOID.rsaEncryption,
    ].map { oid in
        var serializer = DER.Serializer()
        try! serializer.serialize(oid)
        return (serializer.serializedBytes, oid)
    }

    /// The identifier whose DER encoding is `der`, if it is one of ``table``'s.
    static func lookup(_ der: ArraySlice<UInt8>) -> ASN1ObjectIdentifier? {
        table.first { $0.der.elementsEqual(der) }?.oid
    }
}
