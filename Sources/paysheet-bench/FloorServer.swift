import AsyncHTTPClient
import Crypto
import Foundation
import Hummingbird
import NIOCore
import PaysheetModel
import PaysheetServer
import PaysheetSheetTokens
import PaysheetToken
import PaysheetTokenFormat
import NIOConcurrencyHelpers
import UnionPay
import UnionPaySandbox

// `paysheet-bench floor-server --data FOLDER --listen HOST:PORT --gateway URL`
//
// The protocol floor of the server benchmark: the part of a payment no implementation on this
// stack can skip, with everything else left out, so that `Tools/load_bench.sh` can say how far
// the real server is from it and how far the floor itself is from the target. It answers the same
// calls `paysheet-bench load` makes (`/health`, `/v1/sandbox/merchant`, `POST /v1/orders`,
// `POST /v1/orders/{id}/authorize`, the notification), on the same stack (Hummingbird 2,
// async-http-client, the same token library, the same signed ACP messages to the same sandbox
// gateway in its own process), and does per payment only: parse the body, verify and decrypt the
// token, check it is for the order, sign and post the consume, verify the gateway's answer, wait
// for its signed notification, verify it, answer. No database, no idempotency, no history, no
// lifecycle, no metrics, no logs: orders live in memory and nothing survives the process. It is a
// measuring instrument, not a server anyone should run.

/// Payments waiting for their notification, by ACP `orderId`.
final class FloorWaiters: Sendable {
    private let state = NIOLockedValueBox<[String: CheckedContinuation<String, Never>]>([:])
    private let early = NIOLockedValueBox<[String: String]>([:])

    func wait(_ orderId: String) async -> String {
        await withCheckedContinuation { continuation in
            let code: String? = early.withLockedValue { $0.removeValue(forKey: orderId) }
            if let code {
                continuation.resume(returning: code)
                return
            }
            state.withLockedValue { $0[orderId] = continuation }
        }
    }

    func resume(_ orderId: String, _ code: String) {
        let waiting = state.withLockedValue { $0.removeValue(forKey: orderId) }
        if let waiting { waiting.resume(returning: code) } else { early.withLockedValue { $0[orderId] = code } }
    }
}

struct FloorOrder: Sendable {
    var amount: Int
    var applicationDataHash: [UInt8]
}

func runFloorServer(_ args: [String]) async -> Int32 {
    var data = ".paysheet"
    var listen = "127.0.0.1:8090"
    var gateway = "http://127.0.0.1:8091"
    var i = 0
    while i + 1 < args.count {
        switch args[i] {
        case "--data": data = args[i + 1]
        case "--listen": listen = args[i + 1]
        case "--gateway": gateway = args[i + 1]
        default:
            FileHandle.standardError.write(Data("paysheet-bench floor-server: unknown option \(args[i])\n".utf8))
            return 2
        }
        i += 2
    }
    do {
        try await floorServer(data: data, listen: listen, gateway: gateway)
        return 0
    } catch {
        FileHandle.standardError.write(Data("paysheet-bench floor-server: \(error)\n".utf8))
        return 1
    }
}

@Sendable func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
    Response(
        status: status,
        headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(string: value.compactText))
    )
}

func floorServer(data: String, listen: String, gateway: String) async throws {
    let parts = listen.split(separator: ":")
    guard parts.count == 2, let port = Int(parts[1]) else { throw LoadError("--listen takes HOST:PORT") }
    let merchantKey = try SandboxMerchant.loadOrCreate(
        dataFolder: data,
        merchantIdentifier: "merchant.dev.paysheet.sandbox"
    )
    let decryptor = PaymentTokenDecryptor(
        keys: MerchantKeyring([merchantKey]),
        verifier: PaymentTokenVerifier(trust: TrustAnchors([try SandboxMerchant.pki(dataFolder: data).root])),
        replayGuard: nil
    )
    let unionPayPKI = try UnionPaySandboxPKI.loadOrCreate(folder: data + "/unionpay-sandbox")
    let merchantId = "777290058110048"
    let acp = try unionPayPKI.merchantCredentials(
        folder: data + "/unionpay-sandbox/merchant-" + merchantId,
        merchantId: merchantId
    )
    var httpConfiguration = HTTPClient.Configuration()
    httpConfiguration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
    let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)
    let client = UnionPayClient(
        configuration: UnionPayConfiguration(
            gatewayURL: gateway,
            merchantId: merchantId,
            notificationURL: "http://\(listen)/v1/notifications/unionpay"
        ),
        http: http,
        signer: try acp.signer(),
        verifier: ACPVerifier(
            roots: [unionPayPKI.root],
            intermediates: [unionPayPKI.gatewayCA],
            owners: [UnionPaySandboxPKI.gatewayOwner]
        ),
        encryptor: try SensitiveDataEncryptor(
            certificate: unionPayPKI.encryptionCredentials(folder: data + "/unionpay-sandbox").certificate
        )
    )
    let certificatePEM = try merchantKey.certificate?.serializeAsPEM().pemString ?? ""
    let orders = NIOLockedValueBox<[String: FloorOrder]>([:])
    let waiters = FloorWaiters()
    let sequence = NIOLockedValueBox(0)

    let router = Router()
    router.get("/health") { _, _ in json(.ok, ["status": "ok"]) }
    router.get("/v1/sandbox/merchant") { _, _ in json(.ok, ["paymentProcessingCertificate": .string(certificatePEM)]) }
    router.post("/v1/orders") { request, _ in
        let body = try JSONParser.parse(Array(buffer: try await request.body.collect(upTo: 1 << 20)))
        guard let text = body["lineItems"]?.arrayValue?.first?["amount"]?.stringValue, let value = Decimal(string: text)
        else {
            return json(.badRequest, ["error": "lineItems[0].amount"])
        }
        let number = sequence.withLockedValue { value in
            value &+= 1
            return value
        }
        let id = "ord\(number)"
        let applicationData = Array(SHA256.hash(data: Data(id.utf8)))
        let hash = Array(SHA256.hash(data: applicationData))
        orders.withLockedValue {
            $0[id] = FloorOrder(amount: NSDecimalNumber(decimal: value * 100).intValue, applicationDataHash: hash)
        }
        return json(
            .created,
            [
                "id": .string(id), "status": "created",
                "paymentRequest": ["applicationData": .string(Data(applicationData).base64EncodedString())],
            ]
        )
    }
    router.post("/v1/orders/:id/authorize") { request, context in
        let id = context.parameters.get("id") ?? ""
        guard let order = orders.withLockedValue({ $0[id] }) else { return json(.notFound, ["error": "order"]) }
        let body = try JSONParser.parse(Array(buffer: try await request.body.collect(upTo: 1 << 20)))
        guard let paymentData = body["payment"]?["token"]?["paymentData"] else {
            return json(.badRequest, ["error": "payment.token"])
        }
        // A token that does not verify is an outcome the load generator counts, not a 500 it retries.
        guard let decrypted = try? await decryptor.decrypt(PaymentTokenData(jsonValue: paymentData), at: Date()) else {
            return json(.ok, ["result": ["status": 1]])
        }
        guard decrypted.verified.token.header.applicationData == order.applicationDataHash,
            decrypted.paymentData.currencyCode == "156"
        else {
            return json(.ok, ["result": ["status": 1]])
        }
        let card = decrypted.paymentData
        guard case .threeDSecure(let cryptogram, let eci) = card.details else {
            return json(.ok, ["result": ["status": 1]])
        }
        let instrument = PaymentInstrument.card(
            CardData(
                accountNumber: card.applicationPrimaryAccountNumber,
                expiration: card.applicationExpirationDate,
                authentication: .threeDSecure(cryptogram: cryptogram, eci: eci)
            )
        )
        let acpOrderId = "pay" + id.dropFirst(3) + String(repeating: "0", count: 8)
        let answer = await client.consume(
            orderId: acpOrderId,
            txnTime: TransactionTime.format(Date()),
            amount: order.amount,
            currencyCode: "156",
            instrument: instrument
        )
        guard case .message(let message) = answer, message.responseCode == .success else {
            return json(.ok, ["result": ["status": 1]])
        }
        let code = await waiters.wait(acpOrderId)
        return json(.ok, ["result": ["status": ResponseCode(code) == .success ? 0 : 1]])
    }
    router.post("/v1/notifications/unionpay") { request, _ in
        let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
        let message = try client.notification(body)
        if let orderId = message["orderId"] { waiters.resume(orderId, message["respCode"] ?? "") }
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok")))
    }
    let app = Application(
        router: router,
        configuration: .init(address: .hostname(String(parts[0]), port: port), serverName: "paysheet-floor")
    )
    try await app.runService()
    try await http.shutdown()
}
