import Foundation
import SwiftASN1

/// A detached CMS `SignedData` as Apple writes it in payment tokens, read tolerantly.
///
/// Apple's signatures are BER with indefinite lengths, list the signing certificate before the
/// intermediate (not in DER `SET OF` order) and, until 2021, carried NULL digest parameters. A
/// strict DER CMS parser rejects all of them; this reader accepts any valid BER and checks the
/// structure that verification relies on: one signer, detached `id-data` content, signed
/// attributes present. It does not verify anything: `PaymentTokenVerifier` does.
public struct AppleSignedData: Sendable, Equatable {
    /// The DER encodings of the embedded certificates, in the order they appear.
    public var certificates: [[UInt8]]
    /// The one signer.
    public var signer: CMSSignerInfo

    /// Reads `bytes` (BER or DER).
    public init(berEncoded bytes: [UInt8]) throws(PaymentTokenError) {
        let reader = BERReader(bytes: bytes)
        let root = try reader.node(at: 0, limit: bytes.count)
        guard root.end == bytes.count else {
            throw BERNodes.fail("\(bytes.count - root.end) bytes follow the ContentInfo")
        }
        let contentInfo = try Self.children(reader, root, "ContentInfo", tag: 0x30)
        guard contentInfo.count == 2 else {
            throw BERNodes.fail("ContentInfo has \(contentInfo.count) fields, expected 2")
        }
        guard try Self.oid(reader, contentInfo[0], "ContentInfo.contentType") == TokenOID.signedData else {
            throw BERNodes.fail("ContentInfo.contentType is not id-signedData")
        }
        let wrapper = try Self.children(reader, contentInfo[1], "ContentInfo.content", tag: 0xA0)
        guard wrapper.count == 1 else { throw BERNodes.fail("ContentInfo.content must hold one SignedData") }
        let fields = try Self.children(reader, wrapper[0], "SignedData", tag: 0x30)
        guard fields.count >= 4 else {
            throw BERNodes.fail("SignedData has \(fields.count) fields, expected at least 4")
        }

        var index = 0
        guard fields[index].tag == 0x02 else { throw BERNodes.fail("SignedData.version is not an INTEGER") }
        index += 1
        guard fields[index].tag == 0x31 else { throw BERNodes.fail("SignedData.digestAlgorithms is not a SET") }
        index += 1
        let encap = try Self.children(reader, fields[index], "SignedData.encapContentInfo", tag: 0x30)
        guard let eType = encap.first, try Self.oid(reader, eType, "encapContentInfo.eContentType") == TokenOID.data
        else {
            throw BERNodes.fail("encapContentInfo.eContentType is not id-data")
        }
        guard encap.count == 1 else {
            throw BERNodes.fail("encapContentInfo carries content; a payment token's signature is detached")
        }
        index += 1

        var certificates: [[UInt8]] = []
        if fields[index].tag == 0xA0 {
            for (i, cert) in try reader.children(fields[index]).enumerated() {
                guard cert.tag == 0x30, !cert.indefinite else {
                    throw BERNodes.fail("SignedData.certificates[\(i)] is not a DER X.509 certificate")
                }
                certificates.append(Array(reader.encoding(cert)))
            }
            index += 1
        }
        if index < fields.count, fields[index].tag == 0xA1 {
            index += 1  // crls: not used by Apple, ignored
        }
        guard index == fields.count - 1 else {
            throw BERNodes.fail("SignedData has unexpected fields after the certificates")
        }
        let signers = try Self.children(reader, fields[index], "SignedData.signerInfos", tag: 0x31)
        guard signers.count == 1 else {
            throw BERNodes.fail("SignedData has \(signers.count) SignerInfos; a payment token has exactly one")
        }
        self.certificates = certificates
        self.signer = try Self.signerInfo(reader, signers[0])
    }

    private static func children(
        _ r: BERReader,
        _ node: BERReader.Node,
        _ what: String,
        tag: UInt8
    ) throws(PaymentTokenError) -> [BERReader.Node] {
        guard node.tag == tag else {
            let name = tag == 0x30 ? "SEQUENCE" : tag == 0x31 ? "SET" : "[\(tag & 0x1F)]"
            throw BERNodes.fail("\(what) is not a \(name)")
        }
        return try r.children(node)
    }

    private static func oid(
        _ r: BERReader,
        _ node: BERReader.Node,
        _ what: String
    ) throws(PaymentTokenError) -> ASN1ObjectIdentifier {
        guard node.tag == 0x06, !node.indefinite,
            let oid = KnownOIDs.lookup(r.encoding(node))
                ?? (try? ASN1ObjectIdentifier(derEncoded: Array(r.encoding(node))))
        else {
            throw BERNodes.fail("\(what) is not an object identifier")
        }
        return oid
    }

    private static func algorithm(
        _ r: BERReader,
        _ node: BERReader.Node,
        _ what: String
    ) throws(PaymentTokenError) -> ASN1ObjectIdentifier {
        let parts = try children(r, node, what, tag: 0x30)
        guard let first = parts.first else { throw BERNodes.fail("\(what) is empty") }
        return try oid(r, first, "\(what).algorithm")
    }

    private static func octets(
        _ r: BERReader,
        _ node: BERReader.Node,
        _ what: String,
        tag: UInt8 = 0x04
    ) throws(PaymentTokenError) -> [UInt8] {
        guard node.tag & 0xDF == tag & 0xDF else { throw BERNodes.fail("\(what) is not an OCTET STRING") }
        return try r.content(node)
    }

    /// A UTCTime in the one form DER allows and Apple writes (`YYMMDDhhmmssZ`, years 1950–2049),
    /// read without swift-asn1's parser; nil for anything else, which swift-asn1 then reads (or
    /// refuses) as before.
    static func plainUTCTime(_ text: ArraySlice<UInt8>) -> Date? {
        guard text.count == 13, text.last == UInt8(ascii: "Z") else { return nil }
        var fields: [Int] = []
        fields.reserveCapacity(6)
        var index = text.startIndex
        for _ in 0..<6 {
            let high = Int(text[index]) - 48
            let low = Int(text[index + 1]) - 48
            guard (0...9).contains(high), (0...9).contains(low) else { return nil }
            fields.append(high * 10 + low)
            index += 2
        }
        let year = fields[0] < 50 ? 2000 + fields[0] : 1900 + fields[0]
        let (month, day, hours, minutes, seconds) = (fields[1], fields[2], fields[3], fields[4], fields[5])
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...days[month - 1]).contains(day), hours < 24, minutes < 60, seconds < 60
        else { return nil }
        return BERNodes.date(year, month, day, hours, minutes, seconds)
    }

    private static func time(_ r: BERReader, _ node: BERReader.Node, _ what: String) throws(PaymentTokenError) -> Date {
        do {
            if node.tag == 0x17 {
                // The short length form only, as DER (and swift-asn1, below) requires.
                if node.contentStart == node.start + 2,
                    let date = plainUTCTime(r.bytes[node.contentStart..<node.contentEnd])
                {
                    return date
                }
                let time = try UTCTime(derEncoded: Array(r.encoding(node)))
                return BERNodes.date(time.year, time.month, time.day, time.hours, time.minutes, time.seconds)
            }
            if node.tag == 0x18 {
                let time = try GeneralizedTime(derEncoded: Array(r.encoding(node)))
                return BERNodes.date(time.year, time.month, time.day, time.hours, time.minutes, time.seconds)
                    .addingTimeInterval(
                        time.fractionalSeconds
                    )
            }
        } catch {
            throw BERNodes.fail("\(what) is not a valid time")
        }
        throw BERNodes.fail("\(what) is not a UTCTime or GeneralizedTime")
    }

    private static func signerInfo(_ r: BERReader, _ node: BERReader.Node) throws(PaymentTokenError) -> CMSSignerInfo {
        let fields = try children(r, node, "SignerInfo", tag: 0x30)
        guard fields.count >= 6 else {
            throw BERNodes.fail("SignerInfo has \(fields.count) fields, expected at least 6")
        }
        guard fields[0].tag == 0x02 else { throw BERNodes.fail("SignerInfo.version is not an INTEGER") }

        let identifier: CMSSignerInfo.Identifier
        if fields[1].tag == 0x30 {
            let parts = try r.children(fields[1])
            guard parts.count == 2, parts[0].tag == 0x30, parts[1].tag == 0x02 else {
                throw BERNodes.fail("SignerInfo.sid is not an IssuerAndSerialNumber")
            }
            identifier = .issuerAndSerialNumber(
                issuer: Array(r.encoding(parts[0])),
                serialNumber: try r.content(parts[1])
            )
        } else {
            identifier = .subjectKeyIdentifier(try octets(r, fields[1], "SignerInfo.sid", tag: 0x80))
        }
        let digestAlgorithm = try algorithm(r, fields[2], "SignerInfo.digestAlgorithm")

        guard fields[3].tag == 0xA0 else {
            throw BERNodes.fail(
                "SignerInfo has no signed attributes; Apple always signs contentType, signingTime and messageDigest"
            )
        }
        let attributes = try r.children(fields[3])
        var contentType: ASN1ObjectIdentifier?
        var messageDigest: [UInt8]?
        var signingTime: Date?
        for (i, attribute) in attributes.enumerated() {
            let parts = try children(r, attribute, "signedAttrs[\(i)]", tag: 0x30)
            guard parts.count == 2 else { throw BERNodes.fail("signedAttrs[\(i)] is not an Attribute") }
            let type = try oid(r, parts[0], "signedAttrs[\(i)].attrType")
            let values = try children(r, parts[1], "signedAttrs[\(i)].attrValues", tag: 0x31)
            func single() throws(PaymentTokenError) -> BERReader.Node {
                guard values.count == 1 else { throw BERNodes.fail("signedAttrs[\(i)] must have exactly one value") }
                return values[0]
            }
            switch type {
            case TokenOID.contentType:
                guard contentType == nil else { throw BERNodes.fail("contentType is signed twice") }
                contentType = try oid(r, try single(), "contentType")
            case TokenOID.messageDigest:
                guard messageDigest == nil else { throw BERNodes.fail("messageDigest is signed twice") }
                messageDigest = try octets(r, try single(), "messageDigest")
            case TokenOID.signingTime:
                guard signingTime == nil else { throw BERNodes.fail("signingTime is signed twice") }
                signingTime = try time(r, try single(), "signingTime")
            default:
                continue
            }
        }
        // The signature covers the DER SET OF: re-tag a definite encoding, re-encode an indefinite one.
        let signedAttributes: [UInt8]
        if !fields[3].indefinite {
            signedAttributes = [0x31] + r.encoding(fields[3]).dropFirst()
        } else {
            var body: [UInt8] = []
            for attribute in attributes { body += r.encoding(attribute) }
            signedAttributes = [0x31] + Self.derLength(body.count) + body
        }
        let signatureAlgorithm = try algorithm(r, fields[4], "SignerInfo.signatureAlgorithm")
        let signature = try octets(r, fields[5], "SignerInfo.signature")
        return CMSSignerInfo(
            identifier: identifier,
            digestAlgorithm: digestAlgorithm,
            signatureAlgorithm: signatureAlgorithm,
            signature: signature,
            signedAttributes: signedAttributes,
            contentType: contentType,
            messageDigest: messageDigest,
            signingTime: signingTime
        )
    }

    static func derLength(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        var bytes: [UInt8] = []
        var remaining = length
        while remaining > 0 {
            bytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
