import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel
import PaysheetScenario
import PaysheetServer
import PaysheetSheet
import PaysheetToken
import X509

/// `paysheet pay`: a shopper paying an order on a running merchant server, through the sheet engine.
struct PayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pay",
        abstract: "Pay an order on a running merchant server as a shopper would: merchant validation, the update endpoints, a sandbox token, authorization.",
        discussion: """
            The token is encrypted to the server's payment processing certificate (GET /v1/sandbox/merchant) and signed by the
            sandbox CA of --data, which the server must trust (it does when both use the same data folder).
            Prints what the sheet showed and the order's outcome. Exit 0 only when the order ends paid.
            """)

    @Option(name: .customLong("server"), help: "The merchant server's URL.")
    var server: String
    @Option(name: .customLong("order"), help: "The order id.")
    var order: String
    @Option(name: .customLong("wallet"), help: "A wallet JSON file (the scenario format's wallet); default: one Visa card.")
    var wallet: String?
    @Option(name: .customLong("card"), help: "The wallet card to pay with (0-based).")
    var card = 0
    @Option(name: .customLong("coupon"), help: "A coupon code to enter on the sheet.")
    var coupon: String?
    @Option(name: .customLong("wait"), help: "Seconds to wait for a certain outcome after authorization.")
    var wait = 60.0
    @OptionGroup var data: DataFolderOption

    func run() async throws {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let ok = try await pay(http)
            try await http.shutdown()
            if !ok { throw ExitCodes.failed }
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    func pay(_ http: HTTPClient) async throws -> Bool {
        let api = ServerAPI(http: http, base: server, order: order)
        let orderJSON = try await api.get("/v1/orders/\(order)")
        guard let requestJSON = orderJSON["paymentRequest"] else { throw ValidationError("the server's order has no paymentRequest") }
        let request = try decodeJSONValue(ApplePayPaymentRequest.self, from: requestJSON)
        let merchant = try await api.get("/v1/sandbox/merchant")
        guard let pem = merchant["paymentProcessingCertificate"]?.stringValue else {
            throw ValidationError("the server publishes no sandbox merchant certificate (is it in sandbox mode?)")
        }
        let recipient = try TokenRecipient(certificate: Certificate(pemEncoded: pem))
        var walletValue = Wallet.default
        if let wallet { walletValue = try JSONDecoder().decode(Wallet.self, from: Data(try readInput(wallet).utf8)) }
        guard walletValue.cards.indices.contains(card) else { throw ValidationError("--card \(card): the wallet has \(walletValue.cards.count) card(s)") }
        let configuration = SheetConfiguration(wallet: walletValue, validationURL: "https://apple-pay-gateway-cert.apple.com/paymentservices/startSession",
                                               tokenFactory: SandboxTokenFactory(pki: try data.pki(), recipient: recipient))
        let sheet = try await PaymentSheetDriver.begin(version: 14, request: request, delegate: api, configuration: configuration)
        if card != 0 { try await sheet.selectPaymentMethod(card) }
        if let coupon { try await sheet.enterCouponCode(coupon) }
        print("sheet before authorization:")
        print(await sheet.snapshot.prettyText)
        var sheetPaid = false
        do { sheetPaid = try await sheet.authorize() } catch { print("authorize: \(error)") }
        print("sheet after authorization:")
        print(await sheet.snapshot.prettyText)
        // The outcome may settle after the sheet closed (notification or query): wait for it.
        let deadline = Date().addingTimeInterval(wait)
        var status = ""
        var final = orderJSON
        repeat {
            final = try await api.get("/v1/orders/\(order)")
            status = final["status"]?.stringValue ?? ""
            if status != "pending" { break }
            try await Task.sleep(for: .milliseconds(500))
        } while Date() < deadline
        let payments = final["payments"]?.arrayValue ?? []
        print("order \(order): \(status) (\(final["amount"]?.stringValue ?? "") \(final["currencyCode"]?.stringValue ?? ""))")
        for p in payments {
            print("  \(p["kind"]?.stringValue ?? "") \(p["id"]?.stringValue ?? ""): \(p["state"]?.stringValue ?? "") — \(p["reason"]?.stringValue ?? "")")
        }
        print(sheetPaid ? "sheet: payment completed" : "sheet: payment not completed")
        return status == "paid"
    }
}

/// The merchant page's handlers: each sheet event is a call to the merchant server.
struct ServerAPI: PaymentSheetDelegate {
    let http: HTTPClient
    let base: String
    let order: String

    func get(_ path: String) async throws -> JSONValue {
        var r = HTTPClientRequest(url: base + path)
        r.method = .GET
        return try await send(r, path)
    }

    func post(_ path: String, _ body: JSONValue) async throws -> JSONValue {
        var r = HTTPClientRequest(url: base + path)
        r.method = .POST
        r.headers.add(name: "Content-Type", value: "application/json")
        r.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
        r.body = .bytes(ByteBuffer(string: body.compactText))
        return try await send(r, path)
    }

    func send(_ r: HTTPClientRequest, _ path: String) async throws -> JSONValue {
        let response = try await http.execute(r, timeout: .seconds(40))
        let body = try await response.body.collect(upTo: 4 << 20)
        let json = try JSONParser.parse(Array(buffer: body))
        guard (200..<300).contains(Int(response.status.code)) else {
            throw ValidationError("\(path): HTTP \(response.status.code) \(json["error"]?["message"]?.stringValue ?? json.compactText)")
        }
        return json
    }

    func update(_ path: String, _ body: JSONValue, _ sheet: PaymentSheetDriver) async -> ApplePayUpdate {
        do { return try decodeJSONValue(ApplePayUpdate.self, from: try await post("/v1/orders/\(order)/\(path)", body)) } catch {
            FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
            return await sheet.unchangedUpdate()
        }
    }

    func paymentSheet(_ sheet: PaymentSheetDriver, validateMerchantAt validationURL: String) async -> JSONValue {
        (try? await post("/v1/orders/\(order)/merchant-session", ["validationURL": .string(validationURL)])) ?? .null
    }
    func paymentSheet(_ sheet: PaymentSheetDriver, didSelectPaymentMethod method: ApplePayPaymentMethod) async -> ApplePayPaymentMethodUpdate {
        await update("payment-method", ["paymentMethod": (try? JSONValueEncoder().encode(method)) ?? .null], sheet)
    }
    func paymentSheet(_ sheet: PaymentSheetDriver, didSelectShippingContact contact: ApplePayPaymentContact) async -> ApplePayShippingContactUpdate {
        await update("shipping-contact", ["shippingContact": (try? JSONValueEncoder().encode(contact)) ?? .null], sheet)
    }
    func paymentSheet(_ sheet: PaymentSheetDriver, didSelectShippingMethod method: ApplePayShippingMethod) async -> ApplePayShippingMethodUpdate {
        await update("shipping-method", ["shippingMethod": (try? JSONValueEncoder().encode(method)) ?? .null], sheet)
    }
    func paymentSheet(_ sheet: PaymentSheetDriver, didChangeCouponCode code: String) async -> ApplePayCouponCodeUpdate {
        await update("coupon-code", ["couponCode": .string(code)], sheet)
    }
    func paymentSheet(_ sheet: PaymentSheetDriver, didAuthorizePayment payment: ApplePayPayment) async -> ApplePayPaymentAuthorizationResult {
        do {
            let answer = try await post("/v1/orders/\(order)/authorize", ["payment": try JSONValueEncoder().encode(payment)])
            return try decodeJSONValue(ApplePayPaymentAuthorizationResult.self, from: answer["result"] ?? .null)
        } catch {
            FileHandle.standardError.write(Data("authorize: \(error)\n".utf8))
            return ApplePayPaymentAuthorizationResult(status: .failure, errors: [ApplePayError(.unknown, message: "The merchant server did not answer")])
        }
    }
}
