import Crypto
import _CryptoExtras
import Foundation
import SwiftASN1
import Testing
import X509
@testable import UnionPay
@testable import UnionPaySandbox

/// The gateway's signature is made with its *signing* certificate: a certificate of the gateway's
/// under the trusted middle certificate whose key usage does not allow signing (the gateway's
/// encryption certificate, key encipherment only) or that is a CA does not settle anything.
/// UnionPay's real certificates (CFCA's profile, seen in the test and production gateways'
/// published answers, 2017–2025) carry key usage digitalSignature, nonRepudiation,
/// keyEncipherment, keyAgreement, extended key usage clientAuth and emailProtection, and no
/// basic constraints: they pass.
@Suite struct GatewaySignerUsageTests {
    static let pki = try! UnionPaySandboxPKI.generate()

    static func verifier() -> ACPVerifier {
        ACPVerifier(roots: [pki.root], intermediates: [pki.gatewayCA], owners: [UnionPaySandboxPKI.gatewayOwner])
    }

    /// A settled notification, as the gateway sends one, signed by `credentials` with its
    /// certificate in `signPubKeyCert`.
    static func notification(signedBy credentials: ACPCredentials) throws -> ACPMessage {
        var message = ACPMessage([
            "version": "5.1.0", "encoding": "UTF-8", "txnType": "01", "txnSubType": "01", "bizType": "000802",
            "accessType": "0", "merId": "898110248990001", "orderId": "ORDER0001", "txnTime": "20261201120000",
            "txnAmt": "1000", "currencyCode": "156", "queryId": "201612011200001234567", "respCode": "00",
            "respMsg": "成功[0000000]",
        ])
        try credentials.signer(includesCertificate: true).sign(&message)
        return message
    }

    /// Credentials under the gateway's middle certificate, with the gateway's owner field and
    /// the extensions `extensions` makes.
    static func gatewayLookAlike(
        serial: String = "00000070",
        @ExtensionsBuilder extensions: () throws -> Result<Certificate.Extensions, any Error>
    ) throws -> ACPCredentials {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let start = Date().addingTimeInterval(-86_400)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: UnionPaySandboxPKI.serial(),
            publicKey: .init(key.publicKey),
            notValidBefore: start,
            notValidAfter: start + 365 * 86_400,
            issuer: pki.gatewayCA.subject,
            subject: try UnionPaySandboxPKI.name("041@Z12@\(UnionPaySandboxPKI.gatewayOwner)@\(serial)"),
            signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: try Certificate.Extensions(builder: extensions),
            issuerPrivateKey: .init(pki.gatewayCAKey)
        )
        return ACPCredentials(privateKey: key, certificate: certificate)
    }

    @Test func theGatewaysSigningCertificateSettles() throws {
        try Self.verifier().verify(try Self.notification(signedBy: Self.pki.gateway))
    }

    /// The attack: the gateway's encryption certificate (key encipherment only; its key is the one
    /// card data is encrypted to, not a signing key) signs a notification that says "paid".
    @Test func aNotificationSignedWithTheEncryptionCertificateIsRefused() throws {
        let folder = NSTemporaryDirectory() + "paysheet-usage-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let encryption = try Self.pki.encryptionCredentials(folder: folder)
        // It is the gateway's certificate by chain and owner (what the update of txnType=95 checks).
        _ = try Self.verifier().gatewayCertificate(try encryption.certificate.serializeAsPEM().pemString)
        let forged = try Self.notification(signedBy: encryption)
        let error = #expect(throws: ACPError.self) { try Self.verifier().verify(forged) }
        #expect(error?.code == .signature)
        #expect(error?.message.contains("key usage") == true, "\(String(describing: error))")
        #expect(error?.message.contains("keyEncipherment") == true, "\(String(describing: error))")
    }

    @Test func aCACertificateUnderTheMiddleIsRefused() throws {
        // A CA certificate, even one whose key usage allows signing, signs certificates, not messages.
        let ca = try Self.gatewayLookAlike(serial: "00000071") {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
        }
        let error = #expect(throws: ACPError.self) {
            try Self.verifier().verify(try Self.notification(signedBy: ca))
        }
        #expect(error?.message.contains("CA") == true, "\(String(describing: error))")
    }

    @Test func anExtendedKeyUsageThatExcludesSigningIsRefused() throws {
        let server = try Self.gatewayLookAlike(serial: "00000072") {
            Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
            try ExtendedKeyUsage([.serverAuth])
        }
        let error = #expect(throws: ACPError.self) {
            try Self.verifier().verify(try Self.notification(signedBy: server))
        }
        #expect(error?.message.contains("extended key usage") == true, "\(String(describing: error))")
    }

    @Test func unionPaysOwnCertificateProfilePasses() throws {
        // CFCA's profile of UnionPay's gateway certificates (test and production alike).
        let cfca = try Self.gatewayLookAlike(serial: "00000073") {
            KeyUsage(digitalSignature: true, nonRepudiation: true, keyEncipherment: true, keyAgreement: true)
            try ExtendedKeyUsage([.clientAuth, .emailProtection])
        }
        try Self.verifier().verify(try Self.notification(signedBy: cfca))
        // Neither extension (the interop test's gateway), or only nonRepudiation: a signing certificate.
        let bare = try Self.gatewayLookAlike(serial: "00000074") { BasicConstraints.notCertificateAuthority }
        try Self.verifier().verify(try Self.notification(signedBy: bare))
        let nonRepudiation = try Self.gatewayLookAlike(serial: "00000075") {
            KeyUsage(nonRepudiation: true)
            try ExtendedKeyUsage([.any])
        }
        try Self.verifier().verify(try Self.notification(signedBy: nonRepudiation))
    }

    @Test func theEncryptionCertificateUpdateStillTakesTheEncryptionCertificate() throws {
        // The usage rule is for signatures only: txnType=95 hands out the encryption certificate.
        let folder = NSTemporaryDirectory() + "paysheet-usage-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let encryption = try Self.pki.encryptionCredentials(folder: folder)
        let taken = try Self.verifier().gatewayCertificate(try encryption.certificate.serializeAsPEM().pemString)
        #expect(taken.serialNumber == encryption.certificate.serialNumber)
    }
}
