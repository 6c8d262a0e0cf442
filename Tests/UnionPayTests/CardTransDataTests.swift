import Foundation
import PaysheetModel
import Testing
@testable import UnionPay
@testable import UnionPaySandbox

/// The sandbox gateway reads `cardTransData` as UnionPay's SDKs send it: the Java SDK's
/// `AcpService.getCardTransData` writes `{key=value&…}` as it is (keys sorted, no Base64); the PHP
/// SDK's composite fields (`getCustomerInfo…`) and Paysheet's client send the Base64 of it. A value
/// that is neither is refused with what is wrong with it.
@Suite struct CardTransDataTests {
    static let pki = try! UnionPaySandboxPKI.generate()
    static let merchant = try! pki.issueMerchant(merchantId: "777290058110048")
    static let encryption = try! pki.issueUnderGatewayCA(commonName: "041@Z12@00040000:SIGN@00000063")

    static func gateway() throws -> SandboxGateway {
        var faults = SandboxFaults()
        faults.dropNotification = 1  // nothing is posted anywhere
        return try SandboxGateway(pki: pki, merchants: [merchant], faults: faults, encryption: encryption)
    }

    /// The card data encrypted as the SDKs encrypt it: `accNo` alone, the rest in `encryptedInfo`.
    static func sealed() throws -> PaymentDataField {
        PaymentDataField([
            "accNo": "6226388000000095", "expired": "3012", "cryptogram": "AgAAAAAAAIaqGQuS8xjzvM0AAAAAAAA=",
            "eci": "07",
        ]).encrypted(with: try SensitiveDataEncryptor(certificate: encryption.certificate))
    }

    static func consume(
        _ gateway: SandboxGateway,
        _ orderId: String,
        _ cardTransData: String
    ) async throws
        -> ACPMessage
    {
        var request = ACPMessage([
            "version": "5.1.0", "encoding": "UTF-8", "txnType": "01", "txnSubType": "01", "bizType": "000802",
            "accessType": "0", "channelType": "07", "merId": "777290058110048", "orderId": orderId,
            "txnTime": TransactionTime.format(Date()), "txnAmt": "100", "currencyCode": "156",
            "backUrl": "http://127.0.0.1:9/notify", "cardTransData": cardTransData,
            "encryptCertId": ACPSigner.decimal(encryption.certificate.serialNumber.bytes),
        ])
        try merchant.signer().sign(&request)
        return try ACPMessage(raw: await gateway.backTransaction(request.formEncoded).body)
    }

    @Test func theJavaSDKsRawBracesAndBase64AreBothAccepted() async throws {
        let gateway = try Self.gateway()
        let field = try Self.sealed()
        // As the Java SDK's getCardTransData: "{" + the pairs sorted by key + "}", no Base64.
        let java = "{" + field.values.keys.sorted().map { "\($0)=\(field.values[$0]!)" }.joined(separator: "&") + "}"
        let raw = try await Self.consume(gateway, "JAVA0000001", java)
        #expect(raw["respCode"] == "00", "\(raw["respMsg"] ?? "")")
        let base64 = try await Self.consume(gateway, "BASE0000001", field.encoded)
        #expect(base64["respCode"] == "00", "\(base64["respMsg"] ?? "")")
        #expect(await gateway.entries().compactMap(\.maskedAccount) == ["622638******0095", "622638******0095"])
    }

    @Test(arguments: [
        ("{accNo=6226388000000095&eci07}", "pair without '='"),
        ("{accNo=6226388000000095&eci=07", "does not end with '}'"),
        ("accNo=6226388000000095&eci=07", "neither {key=value&…}"),
        (Data("accNo=6226388000000095".utf8).base64EncodedString(), "Base64 of something other than {key=value&…}"),
    ])
    func aMalformedValueIsRefusedForWhatIsWrongWithIt(value: String, problem: String) async throws {
        let answer = try await Self.consume(try Self.gateway(), "BAD0000001", value)
        let message = answer["respMsg"] ?? ""
        #expect(answer["respCode"] == "10", "\(message)")
        #expect(message.contains("cardTransData") && message.contains(problem), "\(message)")
        #expect(!message.contains("must carry"), "\(message)")
        #expect(!message.contains("6226388000000095"), "the refusal repeats card data")
    }
}
