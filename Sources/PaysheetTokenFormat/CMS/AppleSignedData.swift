import Foundation
import SwiftASN1

/// A detached CMS `SignedData` as Apple writes it in payment tokens, read tolerantly.
///
/// Apple's signatures are BER with indefinite lengths, list the signing certificate before the
/// intermediate (not in DER `SET OF` order) and, until 2021, carried NULL digest parameters. A
/// strict DER CMS parser rejects all of them; this reader accepts any valid BER and checks the
/// structure that verification relies on: one signer, detached `id-data` content, signed
/// attributes present. It does not verify anything: ``PaymentTokenVerifier`` does.
public struct AppleSignedData: Sendable, Equatable {
    /// The DER encodings of the embedded certificates, in the order they appear.
    public var certificates: [[UInt8]]
    /// The one signer.
    public var signer: CMSSignerInfo

    /// Reads `bytes` (BER or DER).
    public init(berEncoded bytes: [UInt8]) throws(PaymentTokenError) {
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            throw BERNodes.fail("not valid BER (\(error))")
        }
        guard root.encodedBytes.count == bytes.count else {
            throw BERNodes.fail("\(bytes.count - root.encodedBytes.count) bytes follow the ContentInfo")
        }
        let contentInfo = try BERNodes.children(root, "ContentInfo", tag: .sequence)
        guard contentInfo.count == 2 else { throw BERNodes.fail("ContentInfo has \(contentInfo.count) fields, expected 2") }
        guard try BERNodes.oid(contentInfo[0], "ContentInfo.contentType") == TokenOID.signedData else {
            throw BERNodes.fail("ContentInfo.contentType is not id-signedData")
        }
        let wrapper = try BERNodes.children(contentInfo[1], "ContentInfo.content",
                                            tag: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific))
        guard wrapper.count == 1 else { throw BERNodes.fail("ContentInfo.content must hold one SignedData") }
        let fields = try BERNodes.children(wrapper[0], "SignedData", tag: .sequence)
        guard fields.count >= 4 else { throw BERNodes.fail("SignedData has \(fields.count) fields, expected at least 4") }

        var index = 0
        guard fields[index].identifier == .integer else { throw BERNodes.fail("SignedData.version is not an INTEGER") }
        index += 1
        _ = try BERNodes.children(fields[index], "SignedData.digestAlgorithms", tag: .set)
        index += 1
        let encap = try BERNodes.children(fields[index], "SignedData.encapContentInfo", tag: .sequence)
        guard let eType = encap.first, try BERNodes.oid(eType, "encapContentInfo.eContentType") == TokenOID.data else {
            throw BERNodes.fail("encapContentInfo.eContentType is not id-data")
        }
        guard encap.count == 1 else {
            throw BERNodes.fail("encapContentInfo carries content; a payment token's signature is detached")
        }
        index += 1

        var certificates: [[UInt8]] = []
        let certsTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
        if fields[index].identifier == certsTag {
            for (i, cert) in try BERNodes.children(fields[index], "SignedData.certificates", tag: certsTag).enumerated() {
                guard cert.identifier == .sequence else {
                    throw BERNodes.fail("SignedData.certificates[\(i)] is not an X.509 certificate")
                }
                certificates.append(Array(cert.encodedBytes))
            }
            index += 1
        }
        if index < fields.count, fields[index].identifier == ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific) {
            index += 1  // crls: not used by Apple, ignored
        }
        guard index == fields.count - 1 else {
            throw BERNodes.fail("SignedData has unexpected fields after the certificates")
        }
        let signers = try BERNodes.children(fields[index], "SignedData.signerInfos", tag: .set)
        guard signers.count == 1 else {
            throw BERNodes.fail("SignedData has \(signers.count) SignerInfos; a payment token has exactly one")
        }
        self.certificates = certificates
        self.signer = try Self.signerInfo(signers[0])
    }

    private static func signerInfo(_ node: ASN1Node) throws(PaymentTokenError) -> CMSSignerInfo {
        let fields = try BERNodes.children(node, "SignerInfo", tag: .sequence)
        guard fields.count >= 6 else { throw BERNodes.fail("SignerInfo has \(fields.count) fields, expected at least 6") }
        guard fields[0].identifier == .integer else { throw BERNodes.fail("SignerInfo.version is not an INTEGER") }

        let identifier: CMSSignerInfo.Identifier
        if fields[1].identifier == .sequence {
            let parts = try BERNodes.children(fields[1], "SignerInfo.sid", tag: .sequence)
            guard parts.count == 2, parts[0].identifier == .sequence, parts[1].identifier == .integer,
                  case .primitive(let serial) = parts[1].content else {
                throw BERNodes.fail("SignerInfo.sid is not an IssuerAndSerialNumber")
            }
            identifier = .issuerAndSerialNumber(issuer: Array(parts[0].encodedBytes), serialNumber: Array(serial))
        } else {
            identifier = .subjectKeyIdentifier(try BERNodes.octets(fields[1], "SignerInfo.sid",
                                                                   tag: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)))
        }
        let digestAlgorithm = try BERNodes.algorithm(fields[2], "SignerInfo.digestAlgorithm")

        let attrsTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
        guard fields[3].identifier == attrsTag else {
            throw BERNodes.fail("SignerInfo has no signed attributes; Apple always signs contentType, signingTime and messageDigest")
        }
        let attributes = try BERNodes.children(fields[3], "SignerInfo.signedAttrs", tag: attrsTag)
        var contentType: ASN1ObjectIdentifier?
        var messageDigest: [UInt8]?
        var signingTime: Date?
        for (i, attribute) in attributes.enumerated() {
            let parts = try BERNodes.children(attribute, "signedAttrs[\(i)]", tag: .sequence)
            guard parts.count == 2 else { throw BERNodes.fail("signedAttrs[\(i)] is not an Attribute") }
            let type = try BERNodes.oid(parts[0], "signedAttrs[\(i)].attrType")
            let values = try BERNodes.children(parts[1], "signedAttrs[\(i)].attrValues", tag: .set)
            func single() throws(PaymentTokenError) -> ASN1Node {
                guard values.count == 1 else { throw BERNodes.fail("signedAttrs[\(i)] must have exactly one value") }
                return values[0]
            }
            switch type {
            case TokenOID.contentType:
                guard contentType == nil else { throw BERNodes.fail("contentType is signed twice") }
                contentType = try BERNodes.oid(try single(), "contentType")
            case TokenOID.messageDigest:
                guard messageDigest == nil else { throw BERNodes.fail("messageDigest is signed twice") }
                messageDigest = try BERNodes.octets(try single(), "messageDigest")
            case TokenOID.signingTime:
                guard signingTime == nil else { throw BERNodes.fail("signingTime is signed twice") }
                signingTime = try BERNodes.time(try single(), "signingTime")
            default:
                continue
            }
        }
        let signedAttributes: [UInt8]
        let encoded = fields[3].encodedBytes
        if encoded.count > 1, encoded[encoded.startIndex + 1] != 0x80 {
            signedAttributes = [0x31] + encoded.dropFirst()
        } else {
            // Indefinite length: the signature covers the DER encoding, so re-encode it.
            var serializer = DER.Serializer()
            serializer.appendConstructedNode(identifier: .set) { s in
                for attribute in attributes { s.serializeRawBytes(attribute.encodedBytes) }
            }
            signedAttributes = serializer.serializedBytes
        }
        let signatureAlgorithm = try BERNodes.algorithm(fields[4], "SignerInfo.signatureAlgorithm")
        let signature = try BERNodes.octets(fields[5], "SignerInfo.signature")
        return CMSSignerInfo(identifier: identifier, digestAlgorithm: digestAlgorithm,
                             signatureAlgorithm: signatureAlgorithm, signature: signature,
                             signedAttributes: signedAttributes, contentType: contentType,
                             messageDigest: messageDigest, signingTime: signingTime)
    }
}
