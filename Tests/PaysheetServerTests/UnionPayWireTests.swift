import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel
import Testing
import UnionPay
import UnionPaySandbox
@testable import PaysheetServer

/// The sandbox gateway and the client speak UnionPay's wire format: raw answers, empty fields as
/// each SDK sends them, clear answers for what it does not speak, and `signMethod=11`.
@Suite(.serialized) struct UnionPayWireTests {
    func post(_ server: TestServer, _ path: String, _ body: String) async throws -> (String, ACPMessage) {
        var r = HTTPClientRequest(url: server.gatewayURL + path)
        r.method = .POST
        r.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded;charset=UTF-8")
        r.body = .bytes(ByteBuffer(string: body))
        let response = try await server.http.execute(r, timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (text, try ACPMessage(raw: text))
    }

    func merchant(_ server: TestServer) throws -> ACPCredentials {
        try ACPCredentials(
            keyFile: server.data + "/unionpay-sandbox/merchant-777290058110048/key.pem",
            certificateFile: server.data + "/unionpay-sandbox/merchant-777290058110048/certificate.pem"
        )
    }

    @Test func theGatewayAnswersRawSignedAsUnionPayAndReadsWhatEachSDKSends() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.createOrder()  // the server has made its PKI by now
        let signer = try merchant(server).signer()
        // A query as the PHP SDK sends it: an empty riskRateInfo, signed with the others.
        var fields = try ACPMessage(
            formEncoded:
                "version=5.1.0&encoding=UTF-8&txnType=00&txnSubType=00&bizType=000000&accessType=0&channelType=07"
                + "&merId=777290058110048&orderId=NOSUCHORDER01&txnTime=20261123120000&riskRateInfo="
        )
        signer.sign(&fields)
        #expect(fields.signingString.contains("riskRateInfo=&"))
        let (text, answer) = try await post(server, ACPPath.query, fields.formEncoded)
        #expect(answer["respCode"] == "34", "\(answer)")  // verified: no such transaction (not 11, a bad signature)
        #expect(!text.contains("%"), "the answer is percent-encoded")
        #expect(text.contains("signPubKeyCert=-----BEGIN CERTIFICATE-----"))
        // The answer verifies as UnionPay's SDKs verify: middle certificate, owner 00040000:SIGN.
        let pki = try UnionPaySandboxPKI.loadOrCreate(folder: server.data + "/unionpay-sandbox")
        try ACPVerifier(roots: [pki.root], intermediates: [pki.gatewayCA], owners: ["00040000:SIGN"]).verify(answer)
        // Version 5.0.0: a clear answer, not a signature failure.
        var old = ACPMessage([
            "version": "5.0.0", "encoding": "UTF-8", "txnType": "00", "merId": "777290058110048", "orderId": "X0000001",
            "txnTime": "20261123120000",
        ])
        signer.sign(&old)
        let (_, oldAnswer) = try await post(server, ACPPath.query, old.formEncoded)
        #expect(oldAnswer["respCode"] == "10")
        #expect(oldAnswer["respMsg"]?.contains("5.1.0") == true)
    }

    @Test(arguments: TestDatabases.kinds) func aShopperPaysWithSignMethod11(kind: String) async throws {
        let server = try await TestServer.start(database: kind) { $0.acquirer.signMethod = .secureKey }
        defer { Task { await server.stop() } }
        let factory = try await server.tokenFactory()
        let order = try await server.createOrder([
            "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
        ])
        let id = try #require(order["id"]?.stringValue)
        #expect(try await server.pay(order, factory: factory).paid)
        #expect(try await server.order(id)["status"] == "paid")
        #expect(try await server.send("POST", "/v1/orders/\(id)/refunds", #"{"amount":"10.00"}"#).0 == 201)
        let ledger = try await server.ledger()
        #expect(
            ledger.filter { $0["respCode"] == "00" }.map { $0["txnType"]?.stringValue ?? "" }.sorted() == ["01", "04"]
        )
        let key = try String(
            contentsOfFile: server.data + "/unionpay-sandbox/merchant-777290058110048/secure-key",
            encoding: .utf8
        )
        #expect(key.trimmingCharacters(in: .whitespacesAndNewlines).count == 64)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: server.data + "/unionpay-sandbox/merchant-777290058110048/secure-key"
        )
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
}
