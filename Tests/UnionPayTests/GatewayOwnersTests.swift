import Foundation
import Testing
import X509
@testable import UnionPay
@testable import UnionPaySandbox

/// Which gateway certificates are UnionPay's, by the owner field of their CN, as the SDKs decide
/// with `acpsdk.ifValidateCNName`: UnionPay's name only in production; in the test setting,
/// `00040000:SIGN` too.
@Suite struct GatewayOwnersTests {
    static let pki = try! UnionPaySandboxPKI.generate()

    /// An answer signed by a certificate the gateway's middle certificate issued, named `owner`.
    static func answer(signedBy owner: String) throws -> ACPMessage {
        let credentials = try pki.issueUnderGatewayCA(commonName: "041@Z12@\(owner)@00000062")
        var message = ACPMessage(["respCode": "00", "orderId": "ORDER0001", "version": "5.1.0"])
        try credentials.signer(includesCertificate: true).sign(&message)
        return message
    }

    static func verifier(_ owners: Set<String>) -> ACPVerifier {
        ACPVerifier(roots: [pki.root], intermediates: [pki.gatewayCA], owners: owners)
    }

    @Test func theTestSettingAcceptsUnionPaysCurrentTestGatewayAndTheOlderOne() throws {
        // UnionPay's current test gateway certificate names its owner 中国银联股份有限公司.
        let current = try Self.answer(signedBy: "中国银联股份有限公司")
        let older = try Self.answer(signedBy: "00040000:SIGN")
        let merchant = try Self.answer(signedBy: "777290058110048:SIGN")
        let test = Self.verifier(ACPGatewayOwners.defaults(forProduction: false))
        try test.verify(current)
        try test.verify(older)
        #expect(throws: ACPError.self) { try test.verify(merchant) }
        // Production keeps UnionPay's name only.
        let production = Self.verifier(ACPGatewayOwners.defaults(forProduction: true))
        try production.verify(current)
        let refused = #expect(throws: ACPError.self) { try production.verify(older) }
        #expect(refused?.message.contains("cer owner is not CUP") == true)
        #expect(throws: ACPError.self) { try production.verify(merchant) }
        #expect(ACPGatewayOwners.defaults(forProduction: true) == ["中国银联股份有限公司"])
        #expect(ACPGatewayOwners.defaults(forProduction: false) == ["中国银联股份有限公司", "00040000:SIGN"])
    }
}
