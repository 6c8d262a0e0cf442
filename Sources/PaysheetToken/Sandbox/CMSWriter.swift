@preconcurrency import Crypto
@preconcurrency import _CryptoExtras
import Foundation
import PaysheetTokenFormat
import SwiftASN1
import X509

/// Writes a detached CMS SignedData the way Apple's signer does: SHA-256, signed attributes
/// contentType, signingTime and messageDigest, certificates listed signer first, then the
/// intermediate.
enum CMSWriter {
    enum SigningKey {
        case p256(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    static func sign(
        _ content: [UInt8],
        signer: Certificate,
        key: SigningKey,
        intermediate: Certificate,
        signingTime: Date
    ) throws -> [UInt8] {
        let digest = Array(SHA256.hash(data: content))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: signingTime)
        // RFC 5652 §11.3: UTCTime for 1950–2049, GeneralizedTime otherwise.
        let time: any DERSerializable =
            (1950...2049).contains(components.year!)
            ? try UTCTime(
                year: components.year!,
                month: components.month!,
                day: components.day!,
                hours: components.hour!,
                minutes: components.minute!,
                seconds: components.second!
            )
            : try GeneralizedTime(
                year: components.year!,
                month: components.month!,
                day: components.day!,
                hours: components.hour!,
                minutes: components.minute!,
                seconds: components.second!,
                fractionalSeconds: 0
            )

        var attributes = DER.Serializer()
        try attributes.appendConstructedNode(identifier: .set) { s in
            try attribute(&s, TokenOID.contentType) { try $0.serialize(TokenOID.data) }
            try attribute(&s, TokenOID.signingTime) { try $0.serialize(time) }
            try attribute(&s, TokenOID.messageDigest) { try $0.serialize(ASN1OctetString(contentBytes: digest[...])) }
        }
        let signedAttributes = attributes.serializedBytes
        let signature: [UInt8]
        let signatureAlgorithm: ASN1ObjectIdentifier
        switch key {
        case .p256(let key):
            signature = Array(try key.signature(for: SHA256.hash(data: signedAttributes)).derRepresentation)
            signatureAlgorithm = TokenOID.ecdsaWithSHA256
        case .rsa(let key):
            signature = Array(
                try key.signature(for: SHA256.hash(data: signedAttributes), padding: .insecurePKCS1v1_5)
                    .rawRepresentation
            )
            signatureAlgorithm = TokenOID.sha256WithRSAEncryption
        }

        let context0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
        var out = DER.Serializer()
        try out.appendConstructedNode(identifier: .sequence) { s in
            try s.serialize(TokenOID.signedData)
            try s.appendConstructedNode(identifier: context0) { s in
                try s.appendConstructedNode(identifier: .sequence) { s in
                    try s.serialize(1)
                    try s.appendConstructedNode(identifier: .set) { s in try algorithm(&s, TokenOID.sha256, null: false)
                    }
                    try s.appendConstructedNode(identifier: .sequence) { s in try s.serialize(TokenOID.data) }
                    try s.appendConstructedNode(identifier: context0) { s in
                        try s.serialize(signer)
                        try s.serialize(intermediate)
                    }
                    try s.appendConstructedNode(identifier: .set) { s in
                        try s.appendConstructedNode(identifier: .sequence) { s in
                            try s.serialize(1)
                            try s.appendConstructedNode(identifier: .sequence) { s in
                                try s.serialize(signer.issuer)
                                try s.serialize(signer.serialNumber.bytes)
                            }
                            try algorithm(&s, TokenOID.sha256, null: false)
                            s.serializeRawBytes([0xA0] + signedAttributes.dropFirst())
                            try algorithm(
                                &s,
                                signatureAlgorithm,
                                null: signatureAlgorithm == TokenOID.sha256WithRSAEncryption
                            )
                            try s.serialize(ASN1OctetString(contentBytes: signature[...]))
                        }
                    }
                }
            }
        }
        return out.serializedBytes
    }

    private static func attribute(
        _ s: inout DER.Serializer,
        _ type: ASN1ObjectIdentifier,
        _ value: (inout DER.Serializer) throws -> Void
    ) throws {
        try s.appendConstructedNode(identifier: .sequence) { s in
            try s.serialize(type)
            try s.appendConstructedNode(identifier: .set) { s in try value(&s) }
        }
    }

    private static func algorithm(_ s: inout DER.Serializer, _ oid: ASN1ObjectIdentifier, null: Bool) throws {
        try s.appendConstructedNode(identifier: .sequence) { s in
            try s.serialize(oid)
            if null { try s.serialize(ASN1Null()) }
        }
    }
}
