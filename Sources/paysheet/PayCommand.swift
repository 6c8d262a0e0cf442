import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetBrowserBridge
import PaysheetModel
import PaysheetScenario
import PaysheetServer
import PaysheetSheet
import PaysheetSheetTokens
import PaysheetToken
import X509

/// `paysheet pay`: a shopper paying an order on a running merchant server, through the sheet engine.
struct PayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pay",
        abstract:
            "Pay an order on a running merchant server as a shopper would: merchant validation, the update endpoints, a sandbox token, authorization.",
        discussion: """
            Without --order it orders from the server's catalog as a shopper's page does (no key; the first products of one
            currency, shipped) and pays that order: its client secret stays in this process, never printed.
            The token is encrypted to the server's payment processing certificate (GET /v1/sandbox/merchant) and signed by the
            sandbox CA of --data, which the server must trust (it does when both use the same data folder: pass the --data
            that paysheet serve prints). Prints what the sheet showed and the order's outcome; when the server refuses the
            token or a call, its code and message (what to pass) on standard error. Exit 0 only when the order ends paid
            (with --cancel-after: canceled, its money returned).
            """
    )

    @Option(name: .customLong("server"), help: "The merchant server's URL.")
    var server: String
    @Option(name: .customLong("order"), help: "The order id (default: a new order from the catalog).")
    var order: String?
    @Option(
        name: .customLong("client-secret"),
        help:
            "With --order: the order's client secret (from the answer that created it), or a merchant API key; default: $PAYSHEET_CLIENT_SECRET."
    )
    var clientSecret: String?
    @Option(
        name: .customLong("wallet"),
        help: "A wallet JSON file (the scenario format's wallet); default: one Visa card."
    )
    var wallet: String?
    @Option(name: .customLong("card"), help: "The wallet card to pay with (0-based).")
    var card = 0
    @Option(name: .customLong("coupon"), help: "A coupon code to enter on the sheet.")
    var coupon: String?
    @Option(name: .customLong("wait"), help: "Seconds to wait for a certain outcome after authorization.")
    var wait = 60.0
    @Option(
        name: .customLong("cancel-after"),
        help:
            "Cancel the order this many seconds after authorizing, as the page does when the sheet is dismissed or times out."
    )
    var cancelAfter: Double?
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

    /// The order to pay and its credential: `--order` with its secret, or a new order from the catalog.
    func orderToPay(_ http: HTTPClient) async throws -> (order: String, credential: String) {
        if let order {
            guard let credential = clientSecret ?? ProcessInfo.processInfo.environment["PAYSHEET_CLIENT_SECRET"],
                !credential.isEmpty
            else {
                throw ValidationError(
                    "--order \(order) needs its client secret: --client-secret or PAYSHEET_CLIENT_SECRET"
                )
            }
            return (order, credential)
        }
        let shopper = RemoteCheckout(http: http, server: server, order: "", credential: nil, headers: traceHeaders)
        let products = try await shopper.get("/v1/catalog")["products"]?.arrayValue ?? []
        guard let currency = products.first?["currencyCode"]?.stringValue else {
            throw ValidationError("the server's catalog has no products to order (GET /v1/catalog)")
        }
        let lines = products.filter { $0["currencyCode"]?.stringValue == currency }.prefix(2).compactMap {
            product -> JSONValue? in
            product["sku"].map { ["sku": $0, "quantity": 1] }
        }
        let created = try await shopper.post(
            "/v1/orders",
            ["currencyCode": .string(currency), "lineItems": .array(Array(lines)), "delivery": "ship"]
        )
        guard let id = created["id"]?.stringValue, let secret = created["clientSecret"]?.stringValue else {
            throw ValidationError("the server's new order has no id or client secret")
        }
        print("order \(id) created from the catalog (its client secret is kept in this process)")
        return (id, secret)
    }

    /// `TRACEPARENT` (and `TRACESTATE`) from the environment, sent with every call as W3C trace
    /// context: the server's spans of this payment join the caller's trace (docs/server.md, "Tracing").
    var traceHeaders: [(String, String)] {
        let environment = ProcessInfo.processInfo.environment
        guard let parent = environment["TRACEPARENT"], !parent.isEmpty else { return [] }
        return [("traceparent", parent)] + (environment["TRACESTATE"].map { [("tracestate", $0)] } ?? [])
    }

    func pay(_ http: HTTPClient) async throws -> Bool {
        let (order, credential) = try await orderToPay(http)
        let api = RemoteCheckout(
            http: http,
            server: server,
            order: order,
            credential: credential,
            headers: traceHeaders
        )
        let orderJSON = try await api.get("/v1/orders/\(order)")
        guard let requestJSON = orderJSON["paymentRequest"] else {
            throw ValidationError("the server's order has no paymentRequest")
        }
        let request = try decodeJSONValue(ApplePayPaymentRequest.self, from: requestJSON)
        let merchant = try await api.get("/v1/sandbox/merchant")
        guard let pem = merchant["paymentProcessingCertificate"]?.stringValue else {
            throw ValidationError("the server publishes no sandbox merchant certificate (is it in sandbox mode?)")
        }
        let recipient = try TokenRecipient(certificate: Certificate(pemEncoded: pem))
        var walletValue = Wallet.default
        if let wallet { walletValue = try JSONDecoder().decode(Wallet.self, from: Data(try readInput(wallet).utf8)) }
        guard walletValue.cards.indices.contains(card) else {
            throw ValidationError("--card \(card): the wallet has \(walletValue.cards.count) card(s)")
        }
        let configuration = SheetConfiguration(
            wallet: walletValue,
            validationURL: "https://apple-pay-gateway-cert.apple.com/paymentservices/startSession",
            tokenFactory: SandboxTokenFactory(pki: try data.pki(), recipient: recipient)
        )
        let sheet = try await PaymentSheetDriver.begin(
            version: 14,
            request: request,
            delegate: api,
            configuration: configuration
        )
        if card != 0 { try await sheet.selectPaymentMethod(card) }
        if let coupon { try await sheet.enterCouponCode(coupon) }
        print("sheet before authorization:")
        print(await sheet.snapshot.prettyText)
        var sheetPaid = false
        // The shopper dismisses the sheet (or its deadline passes) while the charge is in flight.
        async let canceling: Void = {
            guard let seconds = cancelAfter else { return }
            do { try await Task.sleep(for: .milliseconds(Int(seconds * 1000))) } catch { return }
            do {
                let answer = try await api.post("/v1/orders/\(order)/cancel", [:])
                print("canceled by the shopper: order \(answer["status"]?.stringValue ?? "")")
            } catch {
                print("cancel: \(error)")
            }
        }()
        do { sheetPaid = try await sheet.authorize() } catch { print("authorize: \(error)") }
        await canceling
        print("sheet after authorization:")
        print(await sheet.snapshot.prettyText)
        // The outcome may settle after the sheet closed (notification or query): wait for it.
        let deadline = Date().addingTimeInterval(wait)
        var status = ""
        var final = orderJSON
        repeat {
            final = try await api.get("/v1/orders/\(order)")
            status = final["status"]?.stringValue ?? ""
            if status != "pending" && status != "canceling" { break }
            try await Task.sleep(for: .milliseconds(500))
        } while Date() < deadline
        let payments = final["payments"]?.arrayValue ?? []
        print(
            "order \(order): \(status) (\(final["amount"]?.stringValue ?? "") \(final["currencyCode"]?.stringValue ?? ""))"
        )
        for p in payments {
            // The shopper's view has no payment ids or reasons; a merchant key's has both.
            let name = [p["kind"]?.stringValue, p["id"]?.stringValue].compactMap { $0 }.joined(separator: " ")
            let reason = p["reason"]?.stringValue.map { " — " + $0 } ?? ""
            print("  \(name): \(p["state"]?.stringValue ?? "")\(reason)")
        }
        print(sheetPaid ? "sheet: payment completed" : "sheet: payment not completed")
        // The order the payment gave the wallet, fetched and checked as the simulated wallet does.
        if let details = await sheet.machine.walletOrder {
            let verdict = await WalletOrderChecker(trust: try data.pki().trustAnchors).verdict(details)
            print("wallet (simulated): \(verdict.message)")
        }
        // Why, as the server said it (the sheet shows the shopper's words only): a code and what to
        // pass. The exit status stays the order's (a refused token leaves it unpaid).
        for refusal in api.refusals.all {
            FileHandle.standardError.write(Data("paysheet pay: \(refusal)\n".utf8))
        }
        if status == "pending" {
            // No certain outcome: the acquirer's answer was not had or not trusted (the server's log
            // has its reason); a gateway run apart with another data folder is one such.
            FileHandle.standardError.write(
                Data(
                    "paysheet pay: order \(order) is still pending after \(Int(wait)) s: the acquirer's outcome is not known (the server's log says why; a `paysheet acquirer-sandbox` run apart must use the server's --data)\n"
                        .utf8
                )
            )
        }
        return cancelAfter == nil ? status == "paid" : status == "canceled"
    }
}
