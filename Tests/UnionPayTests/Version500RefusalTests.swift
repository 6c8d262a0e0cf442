import Crypto
import _CryptoExtras
import Foundation
import PaysheetModel
import Testing
import X509
@testable import UnionPay
@testable import UnionPaySandbox

/// The sandbox gateway refuses `version=5.0.0` requests, and signs the refusal as a 5.0.0 answer
/// is signed, so that an SDK speaking 5.0.0 can validate it and read why.
@Suite struct Version500RefusalTests {
    static let pki = try! UnionPaySandboxPKI.generate()
    static let merchant = try! pki.issueMerchant(merchantId: "777290058110048")

    /// UnionPay's SDKs' 5.0.0 check (`AcpService.validate`, `version=5.0.0`): the certificate
    /// named by `certId` among the merchant's verification certificates, the fields but `signature`
    /// sorted as `key=value&…`, their SHA-1 in lowercase hex, SHA1withRSA over that text.
    static func validatesAs500(_ answer: ACPMessage, certificates: [Certificate]) -> Bool {
        guard answer["signMethod"] == "01", let certId = answer["certId"],
            let certificate = certificates.first(where: { ACPSigner.decimal($0.serialNumber.bytes) == certId }),
            let key = _RSA.Signing.PublicKey(certificate.publicKey),
            let signature = answer["signature"].flatMap({ Data(base64Encoded: $0) })
        else { return false }
        let hex = Hex.encode(Insecure.SHA1.hash(data: Data(answer.signingString.utf8)))
        return key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature),
            for: Insecure.SHA1.hash(data: Data(hex.utf8)),
            padding: .insecurePKCS1v1_5
        )
    }

    @Test func aRefusalOfA500RequestValidatesAsThe500SDKValidatesIt() async throws {
        let gateway = try SandboxGateway(pki: Self.pki, merchants: [Self.merchant])
        var request = ACPMessage([
            "version": "5.0.0", "encoding": "UTF-8", "txnType": "00", "txnSubType": "00", "bizType": "000000",
            "accessType": "0", "merId": "777290058110048", "orderId": "OLD0000001", "txnTime": "20261123120000",
        ])
        try Self.merchant.signer().sign(&request)
        let replies = [
            await gateway.query(request.formEncoded),
            await gateway.backTransaction(request.formEncoded),
        ]
        for reply in replies {
            let answer = try ACPMessage(raw: reply.body)
            #expect(answer["respCode"] == "10")
            #expect(answer["respMsg"]?.contains("5.1.0") == true, "\(answer)")
            #expect(answer["version"] == "5.0.0")
            #expect(answer["certId"] == ACPSigner.decimal(Self.pki.gateway.certificate.serialNumber.bytes))
            #expect(answer["signPubKeyCert"] == nil, "5.0.0 answers carry no certificate")
            #expect(Self.validatesAs500(answer, certificates: [Self.pki.gateway.certificate]), "\(answer)")
            // A changed answer does not validate.
            var changed = answer
            changed["respCode"] = "00"
            #expect(!Self.validatesAs500(changed, certificates: [Self.pki.gateway.certificate]))
        }
    }
}
