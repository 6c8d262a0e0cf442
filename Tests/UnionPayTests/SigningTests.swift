import Foundation
import Testing
import X509
@testable import UnionPay
@testable import UnionPaySandbox

@Suite struct SigningTests {
    static let pki = try! UnionPaySandboxPKI.generate()
    static let merchant = try! pki.issueMerchant(merchantId: "777290058110048")

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
        #expect(throws: ACPError(.signature, "certId 1 names no known certificate and there is no signPubKeyCert")) {
            try verifier.verify(unknown)
        }
    }

    static func gatewayVerifier(_ pki: UnionPaySandboxPKI = pki) -> ACPVerifier {
        ACPVerifier(roots: [pki.root], intermediates: [pki.gatewayCA], owners: [UnionPaySandboxPKI.gatewayOwner])
    }

    @Test func gatewayMessagesCarryTheirCertificateWhichMustChainThroughTheMiddleToATrustedRoot() throws {
        let gatewaySigner = try Self.pki.gateway.signer(includesCertificate: true)
        var m = ACPMessage(["respCode": "00", "orderId": "ORDER0001"])
        gatewaySigner.sign(&m)
        try Self.gatewayVerifier().verify(m)
        let other = try UnionPaySandboxPKI.generate()
        #expect(throws: ACPError.self) { try Self.gatewayVerifier(other).verify(m) }
        // A certificate from another PKI, swapped in with a signature it made, is still refused.
        var forged = ACPMessage(["respCode": "00", "orderId": "ORDER0001"])
        try other.gateway.signer(includesCertificate: true).sign(&forged)
        #expect(throws: ACPError.self) { try Self.gatewayVerifier().verify(forged) }
        // Without the middle certificate configured, nothing from the gateway is trusted.
        #expect(throws: ACPError.self) {
            try ACPVerifier(roots: [Self.pki.root], owners: [UnionPaySandboxPKI.gatewayOwner]).verify(m)
        }
    }

    @Test func theMerchantsOwnCertificateUnderTheSameRootIsNotTheGateways() throws {
        // The attack: a notification signed with the merchant's own ACP key and certificate.
        var forged = ACPMessage(["respCode": "00", "orderId": "ORDER0001", "txnType": "01"])
        try Self.merchant.signer(includesCertificate: true).sign(&forged)
        let error = #expect(throws: ACPError.self) { try Self.gatewayVerifier().verify(forged) }
        #expect(error?.message.contains("middle certificate") == true)
        // Chained right (issued by the gateway's middle certificate) but not the gateway's owner field.
        let impostor = try Self.pki.issueUnderGatewayCA(commonName: "041@Z12@777290058110048:SIGN@00000001")
        var second = ACPMessage(["respCode": "00", "orderId": "ORDER0001"])
        try impostor.signer(includesCertificate: true).sign(&second)
        let ownerError = #expect(throws: ACPError.self) { try Self.gatewayVerifier().verify(second) }
        #expect(ownerError?.message.contains("cer owner is not CUP") == true)
        // The production owner is UnionPay's name: the sandbox gateway is not it.
        var real = ACPMessage(["respCode": "00"])
        try Self.pki.gateway.signer(includesCertificate: true).sign(&real)
        #expect(throws: ACPError.self) {
            try ACPVerifier(roots: [Self.pki.root], intermediates: [Self.pki.gatewayCA]).verify(real)
        }
    }

    @Test func certificatesLookAsUnionPaysDo() {
        #expect(ACPVerifier.owner(of: Self.pki.gateway.certificate) == "00040000:SIGN")
        #expect(ACPVerifier.owner(of: Self.merchant.certificate) == "777290058110048:SIGN")
        #expect(ACPVerifier.owner(of: Self.pki.root) == "")
        // Short serials: 11 decimal digits, so every SDK reports the certId in decimal.
        for c in [Self.pki.gateway.certificate, Self.merchant.certificate, Self.pki.gatewayCA, Self.pki.merchantCA] {
            #expect(ACPSigner.decimal(c.serialNumber.bytes).count == 11)
        }
        #expect(Self.merchant.certificate.issuer == Self.pki.merchantCA.subject)
        #expect(Self.pki.gateway.certificate.issuer == Self.pki.gatewayCA.subject)
    }

    @Test func signMethod11IsSHA256OfTheStringAndTheKeysDigest() throws {
        let key = "88888888"
        var m = ACPMessage(["version": "5.1.0", "txnType": "00", "orderId": "ORDER0001", "merId": "777290058110048"])
        try ACPSecureKeySigner(secureKey: key).sign(&m)
        #expect(m["signMethod"] == "11")
        #expect(m["certId"] == nil)
        let expected = ACPSigner.hexDigest(m.signingString + "&" + ACPSigner.hexDigest(key))
        #expect(m["signature"] == expected)
        try ACPVerifier(roots: [], secureKey: key).verify(m)
        #expect(throws: ACPError.self) { try ACPVerifier(roots: [], secureKey: "another").verify(m) }
        #expect(throws: ACPError.self) { try ACPVerifier(roots: []).verify(m) }
        var tampered = m
        tampered["orderId"] = "ORDER0002"
        #expect(throws: ACPError.self) { try ACPVerifier(roots: [], secureKey: key).verify(tampered) }
    }

    @Test func version500GetsAClearAnswer() {
        var m = ACPMessage(["version": "5.0.0", "txnType": "01"])
        try? Self.merchant.signer().sign(&m)
        let error = #expect(throws: ACPError.self) {
            try ACPVerifier(roots: [Self.pki.root], certificates: [Self.merchant.certificate]).verify(m)
        }
        #expect(error?.code == .version)
    }

    @Test func signerRefusesACertificateForAnotherKey() {
        #expect(throws: ACPError.self) {
            try ACPSigner(privateKey: Self.merchant.privateKey, certificate: Self.pki.root)
        }
    }
}
