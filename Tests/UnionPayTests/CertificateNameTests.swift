import Crypto
import _CryptoExtras
import Foundation
import SwiftASN1
import Testing
import X509
@testable import UnionPay
@testable import UnionPaySandbox

/// Certificate errors name the certificate in text, whatever string type its name is written in:
/// UnionPay's test certificates (CFCA's) write their CN as a T61String, which swift-certificates
/// leaves undecoded (`ASN1Any([20, …])`).
@Suite struct CertificateNameTests {
    static let pki = try! UnionPaySandboxPKI.generate()

    /// A name attribute whose value is a string of universal `tag` holding `bytes`.
    static func attribute(
        _ type: ASN1ObjectIdentifier,
        tag: UInt8,
        _ bytes: [UInt8]
    ) throws
        -> RelativeDistinguishedName.Attribute
    {
        precondition(bytes.count < 128)
        let value = ASN1Any(derEncoded: try DER.parse([tag, UInt8(bytes.count)] + bytes))
        return RelativeDistinguishedName.Attribute(type: type, value: value)
    }

    /// A certificate named `subject`, issued by `issuer` with `issuerKey`.
    static func certificate(
        _ subject: DistinguishedName,
        issuer: DistinguishedName,
        issuerKey: _RSA.Signing.PrivateKey
    ) throws -> String {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let now = Date()
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(bytes: [0x10, 0x20, 0x30, 0x40, 0x50]),
            publicKey: .init(key.publicKey),
            notValidBefore: now - 86_400,
            notValidAfter: now + 86_400,
            issuer: issuer,
            subject: subject,
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions(),
            issuerPrivateKey: .init(issuerKey)
        ).serializeAsPEM().pemString
    }

    static func verifier() -> ACPVerifier {
        ACPVerifier(
            roots: [pki.root],
            intermediates: [pki.gatewayCA],
            owners: ACPGatewayOwners.defaults(forProduction: false)
        )
    }

    @Test func aT61StringBMPStringOrLatin1NameIsPrintedAsText() throws {
        let subject = try DistinguishedName([
            try RelativeDistinguishedName.Attribute(type: .RDNAttributeType.countryName, printableString: "CN"),
            try Self.attribute(
                .RDNAttributeType.organizationName,
                tag: 30,
                Array("中国银联".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
            ),
            try Self.attribute(.RDNAttributeType.organizationalUnitName, tag: 20, Array("Caf".utf8) + [0xe9]),
            try Self.attribute(.RDNAttributeType.commonName, tag: 20, Array("041@Z12@00040000:SIGN@00000062".utf8)),
        ])
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let pem = try Self.certificate(subject, issuer: subject, issuerKey: key)
        let error = #expect(throws: ACPError.self) { try Self.verifier().gatewayCertificate(pem) }
        let message = error?.message ?? ""
        #expect(message.contains("CN=041@Z12@00040000:SIGN@00000062,OU=Café,O=中国银联,C=CN"), "\(message)")
        #expect(!message.contains("ASN1Any"), "\(message)")
    }

    @Test func anOwnerWrittenAsUTF8InAT61StringIsShownReadablyAndRefusedAsTheSDKsRefuseIt() throws {
        // The SDKs read a T61String byte by byte (ISO 8859-1: BouncyCastle, OpenSSL's
        // ASN1_STRING_to_UTF8): UTF-8 bytes of UnionPay's name are not its name to them.
        let subject = try DistinguishedName([
            try RelativeDistinguishedName.Attribute(type: .RDNAttributeType.countryName, printableString: "CN"),
            try Self.attribute(
                .RDNAttributeType.commonName,
                tag: 20,
                Array("041@Z12@中国银联股份有限公司@00000062".utf8)
            ),
        ])
        let pem = try Self.certificate(subject, issuer: Self.pki.gatewayCA.subject, issuerKey: Self.pki.gatewayCAKey)
        let error = #expect(throws: ACPError.self) { try Self.verifier().gatewayCertificate(pem) }
        let message = error?.message ?? ""
        #expect(message.contains("cer owner is not CUP"), "\(message)")
        #expect(message.contains("中国银联股份有限公司"), "\(message)")
        #expect(!message.contains("ASN1Any"), "\(message)")
    }
}
