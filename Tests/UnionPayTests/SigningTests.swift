import Foundation
import Testing
import X509
@testable import UnionPay

@Suite struct SigningTests {
    static let pki = try! UnionPaySandboxPKI.generate()
    static let merchant = try! pki.issue(commonName: "Merchant 777290058110048 signing")

    @Test func certIdIsTheSerialInDecimal() {
        #expect(ACPSigner.decimal([0x01, 0x00]) == "256")
        #expect(ACPSigner.decimal([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]) == "4722366482869645213695")
        #expect(ACPSigner.decimal([0x00]) == "0")
    }

    @Test func signatureIsSHA256WithRSAOverTheHexDigestOfTheSortedString() throws {
        let signer = try Self.merchant.signer()
        var m = ACPMessage(["txnType": "01", "orderId": "ORDER0001", "txnAmt": "100"])
        signer.sign(&m)
        #expect(m["certId"] == signer.certId)
        #expect(m["signMethod"] == "01")
        let verifier = ACPVerifier(roots: [Self.pki.root], certificates: [Self.merchant.certificate])
        try verifier.verify(m)
        // The digest signed is lowercase hex of SHA-256 over the signing string.
        #expect(ACPSigner.hexDigest("a=1") == "c22fea5d7428e5cf47ef6354c97c9223c95d6dcdc3e0d2300ff79056b1ff3d85")
        var tampered = m
        tampered["txnAmt"] = "1000"
        #expect(throws: ACPError.self) { try verifier.verify(tampered) }
        var unknown = m
        unknown["certId"] = "1"
        #expect(throws: ACPError(.signature, "certId 1 names no known certificate and there is no signPubKeyCert")) { try verifier.verify(unknown) }
    }

    @Test func gatewayMessagesCarryTheirCertificateWhichMustChainToATrustedRoot() throws {
        let gatewaySigner = try Self.pki.gateway.signer(includesCertificate: true)
        var m = ACPMessage(["respCode": "00", "orderId": "ORDER0001"])
        gatewaySigner.sign(&m)
        try ACPVerifier(roots: [Self.pki.root]).verify(m)
        let other = try UnionPaySandboxPKI.generate()
        #expect(throws: ACPError.self) { try ACPVerifier(roots: [other.root]).verify(m) }
        // A certificate from another PKI, swapped in with a signature it made, is still refused.
        var forged = ACPMessage(["respCode": "00", "orderId": "ORDER0001"])
        try other.gateway.signer(includesCertificate: true).sign(&forged)
        #expect(throws: ACPError.self) { try ACPVerifier(roots: [Self.pki.root]).verify(forged) }
    }

    @Test func signerRefusesACertificateForAnotherKey() {
        #expect(throws: ACPError.self) { try ACPSigner(privateKey: Self.merchant.privateKey, certificate: Self.pki.root) }
    }
}
