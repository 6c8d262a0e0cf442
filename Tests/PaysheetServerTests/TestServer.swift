import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PaysheetBrowserBridge
import PaysheetModel
import PaysheetSandboxServer
import PaysheetScenario
@testable import PaysheetServer
import PaysheetSheet
import PaysheetSheetTokens
import PaysheetToken
import Testing
import X509

/// A real `paysheet serve` (merchant server + sandbox gateway), in a fresh data folder, on SQLite
/// or a fresh PostgreSQL database: on loopback (``start(database:port:joining:configure:)``), or
/// in this process through HummingbirdTesting's router client (``inProcess(database:configure:_:)``:
/// no socket for the merchant server; its sandbox gateway, another server, still listens).
final class TestServer: @unchecked Sendable {
    let url: String
    var gatewayURL: String
    let data: String
    let logs = LogCollector()
    let http = HTTPClient(eventLoopGroupProvider: .singleton)
    var task: Task<Void, Error>?
    /// HummingbirdTesting's client of the merchant server when it runs in this process.
    var client: (any TestClientProtocol)?
    /// The merchant server's payment service when it runs in this process.
    var payments: PaymentService?
    /// A merchant API key created before the server started.
    var merchantKey = ""
    /// The database the server uses (`nil`: the data folder's SQLite).
    var databaseURL: String?
    /// Seconds the server's clock runs ahead of the real one (``advanceClock(by:)``).
    private var offset: Double = 0
    /// The client secrets of the orders this test created, by order id.
    private let lock = NSLock()
    private var secrets: [String: String] = [:]

    init(port: Int, gatewayPort: Int, data: String) {
        url = "http://127.0.0.1:\(port)"
        gatewayURL = "http://127.0.0.1:\(gatewayPort)"
        self.data = data
    }

    /// A server on SQLite or a fresh PostgreSQL database; `joining` another test server, a second
    /// server on its database, data folder and sandbox gateway (several servers on one PostgreSQL).
    /// A random port taken by another process is tried again on another (three times).
    static func start(
        database kind: String = "sqlite",
        port chosen: Int? = nil,
        joining other: TestServer? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await startOnce(
                    database: kind,
                    port: chosen ?? Self.nextPorts(),
                    joining: other,
                    configure: configure
                )
            } catch let error as RemoteCheckout.CallError where chosen == nil && attempt < 3 {
                print("test server: \(error.description); trying another port")
            }
        }
    }

    /// Two free-looking ports for one server (merchant, gateway): consecutive pairs from a random
    /// start, so that the servers of one test process (suites run in parallel) never share one;
    /// another process's port is caught at start and tried again.
    static func nextPorts() -> Int {
        portLock.withLock {
            if portCursor == 0 { portCursor = 2 * Int.random(in: 10_000...19_000) }
            portCursor += 2
            if portCursor > 40_000 { portCursor = 20_002 }
            return portCursor
        }
    }
    nonisolated(unsafe) static var portCursor = 0
    static let portLock = NSLock()

    /// A server's configuration (fast lifecycle timings, its own data folder and ports, a fresh
    /// PostgreSQL database when asked) and a merchant API key made before it starts.
    static func prepare(
        database kind: String,
        port: Int,
        joining other: TestServer?,
        configure: (inout ServerConfiguration) -> Void
    ) async throws -> (TestServer, ServerConfiguration) {
        let data = other?.data ?? NSTemporaryDirectory() + "paysheet-e2e-" + UUID().uuidString
        let server = TestServer(port: port, gatewayPort: port + 1, data: data)
        if let other { server.gatewayURL = other.gatewayURL }
        var c = ServerConfiguration()
        c.listen = "127.0.0.1:\(port)"
        c.acquirer.sandboxListen = "127.0.0.1:\(port + 1)"
        c.dataFolder = data
        c.lifecycle.resultWait = 0.3
        c.lifecycle.queryIntervals = [0.2, 0.2, 0.4]
        c.lifecycle.backoffIntervals = [1]
        c.lifecycle.notFoundIsFinalAfter = 3
        // Generous for a loaded two-core machine: the tests that need a lost answer inject it
        // (sandbox faults), never rely on this timer.
        c.acquirer.timeout = 6
        c.pollInterval = 0.05
        c.authorizeWait = 8
        // No reconciliation by itself: after 10:00 Beijing time the scheduler would reconcile
        // the past week in the background, and what a test lists would depend on the time of day
        // (it did: ConsoleAPITests failed from 02:00 to 16:00 UTC). Its own tests drive it with
        // a clock of their own (AuditFindingTests+Reconciliation).
        c.acquirer.reconcileHour = -1
        // A loaded two-core machine (suites in parallel, builds beside them) may keep PostgreSQL
        // from answering for seconds; the tests wait for it rather than fail on the wall clock.
        c.databaseStatementTimeout = 120
        if let other {
            c.databaseURL = other.databaseURL
            c.acquirer.gatewayURL = other.gatewayURL
        } else if kind == "postgres", let base = TestDatabases.postgresURL {
            // Named with their creation time: a run drops those an earlier run left over an hour
            // ago (servers stop in detached tasks, and a database shared by joined servers has no
            // single last user), so a long-lived test cluster does not fill with them.
            let now = Int(Date().timeIntervalSince1970)
            let name = "e2e\(now)_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
            let admin = try PostgresDatabase(url: base)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await admin.run() }
                let old = try await admin.read(
                    "SELECT datname FROM pg_database WHERE datname LIKE 'e2e%'",
                    []
                ).compactMap { try $0.text("datname") }
                for stale in old {
                    let digits = stale.dropFirst(3).prefix { $0.isNumber }
                    // Also those named before creation times were (no digits then an underscore).
                    let created = stale.dropFirst(3 + digits.count).hasPrefix("_") ? Int(digits) : 0
                    if let created, created < now - 3600 {
                        try? await admin.executeOutsideTransaction("DROP DATABASE IF EXISTS \(stale) WITH (FORCE)")
                    }
                }
                try await admin.executeOutsideTransaction("CREATE DATABASE \(name)")
                group.cancelAll()
            }
            var u = URLComponents(string: base)!
            u.path = "/" + name
            c.databaseURL = u.string
        }
        configure(&c)
        server.databaseURL = c.databaseURL
        server.merchantKey = try await APIKeys.withDatabase(c.databaseURL, dataFolder: data) {
            try await $0.create(name: "tests").key
        }
        return (server, c)
    }

    /// Runs `body` with a merchant server built in this process and called through its router
    /// (HummingbirdTesting's `.router` framework runs its services and migrations too). Its sandbox
    /// gateway listens on loopback: the acquirer is another server, reached over HTTP.
    static func inProcess<T: Sendable>(
        database kind: String = "sqlite",
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (TestServer) async throws -> T
    ) async throws -> T {
        let (server, configuration) = try await prepare(
            database: kind,
            port: nextPorts(),
            joining: nil,
            configure: configure
        )
        let merchant = try await MerchantServer(
            configuration,
            logger: server.logs.logger,
            clock: { [server] in server.clockNow },
            sandbox: BuiltInSandbox()
        )
        do {
            let result = try await merchant.application.test(.router) { client in
                server.client = client
                server.payments = merchant.payments
                return try await body(server)
            }
            await merchant.shutdown()
            try? await server.http.shutdown()
            return result
        } catch {
            await merchant.shutdown()
            try? await server.http.shutdown()
            throw error
        }
    }

    static func startOnce(
        database kind: String,
        port: Int,
        joining other: TestServer?,
        configure: (inout ServerConfiguration) -> Void
    ) async throws -> TestServer {
        let (server, c) = try await prepare(database: kind, port: port, joining: other, configure: configure)
        do {
            let logger = server.logs.logger
            let configuration = c
            server.task = Task {
                try await MerchantServer.run(
                    configuration,
                    logger: logger,
                    clock: { [server] in server.clockNow },
                    sandbox: BuiltInSandbox()
                )
            }
            // Until both answer (60 s: a loaded machine starts it later, not never).
            let started = try await waitUntil(within: 60) {
                guard
                    let r = try? await server.http.execute(
                        HTTPClientRequest(url: server.url + "/health"),
                        timeout: .seconds(5)
                    ), r.status == .ok
                else { return false }
                // The gateway is this server's own sandbox (its /health says a plain "ok"), not another server on that port.
                if other != nil { return true }
                guard
                    let g = try? await server.http.execute(
                        HTTPClientRequest(url: server.gatewayURL + "/health"),
                        timeout: .seconds(5)
                    ), g.status == .ok
                else { return false }
                return String(buffer: try await g.body.collect(upTo: 1024)) == "ok"
            }
            if started { return server }
        } catch {
            await server.stop()
            throw error
        }
        // Stopped before it is dropped: an HTTP client must be shut down.
        await server.stop()
        let log = server.logs.all.suffix(5).joined(separator: " | ")
        throw RemoteCheckout.CallError(description: "the test server on port \(port) did not start: \(log)")
    }

    /// The server's time: real time plus the offset a test moved it by.
    var clockNow: Date { lock.withLock { Date().addingTimeInterval(offset) } }

    /// Moves the server's clock (orders, payments, agreements) `seconds` ahead.
    func advanceClock(by seconds: Double) { lock.withLock { offset += seconds } }

    func stop() async {
        task?.cancel()
        _ = try? await task?.value
        try? await http.shutdown()
    }

    /// The merchant's client (its API key).
    var api: RemoteCheckout { RemoteCheckout(order: "", credential: merchantKey, transport: transport) }

    /// The shopper's checkout of `order`: the order's client secret when this test created it.
    func checkout(_ order: String) -> RemoteCheckout {
        RemoteCheckout(order: order, credential: secret(order) ?? merchantKey, transport: transport)
    }

    func secret(_ order: String) -> String? { lock.withLock { secrets[order] } }

    /// Creates an order as the merchant (free-form lines need its key); remembers its client secret.
    func createOrder(_ body: JSONValue? = nil) async throws -> JSONValue {
        let order = try await api.post(
            "/v1/orders",
            body ?? [
                "currencyCode": "CNY", "countryCode": "CN",
                "lineItems": [["label": "Tea set", "amount": "128.00"], ["label": "Green tea", "amount": "45.50"]],
                "shippingMethods": [
                    ["label": "Standard", "detail": "3-5 days", "amount": "0.00", "identifier": "standard"],
                    ["label": "Express", "detail": "Next day", "amount": "12.00", "identifier": "express"],
                ],
            ]
        )
        if let id = order["id"]?.stringValue, let secret = order["clientSecret"]?.stringValue {
            lock.withLock { secrets[id] = secret }
        }
        return order
    }

    func order(_ id: String) async throws -> JSONValue { try await api.get("/v1/orders/\(id)") }

    /// How calls reach the merchant server: HummingbirdTesting's client when it runs in this
    /// process, HTTP on loopback otherwise.
    var transport: RemoteCheckout.Transport {
        if let client {
            return { method, path, fields, body in
                var headers = HTTPFields()
                for (name, value) in fields { headers[.init(name)!] = value }
                let response = try await client.executeRequest(
                    uri: path,
                    method: HTTPRequest.Method(method)!,
                    headers: headers,
                    body: body.map { ByteBuffer(string: $0) }
                )
                return (Int(response.status.code), Array(buffer: response.body))
            }
        }
        return RemoteCheckout.http(http, server: url)
    }

    /// Sends raw JSON with `auth` as the bearer credential (by default the merchant key; `""` for
    /// none); returns status and body.
    func send(
        _ method: String,
        _ path: String,
        _ body: String?,
        key: String? = nil,
        auth: String? = nil
    ) async throws -> (Int, JSONValue) {
        let credential = auth ?? merchantKey
        var headers: [(String, String)] = []
        if let key { headers.append(("Idempotency-Key", key)) }
        if !credential.isEmpty { headers.append(("Authorization", "Bearer " + credential)) }
        let (status, bytes) = try await transport(method, path, headers, body)
        return (status, (try? JSONParser.parse(bytes)) ?? .string(String(decoding: bytes, as: UTF8.self)))
    }

    func setFaults(_ json: String) async throws {
        var r = HTTPClientRequest(url: gatewayURL + "/sandbox/faults")
        r.method = .PUT
        r.body = .bytes(ByteBuffer(string: json))
        _ = try await http.execute(r, timeout: .seconds(5))
    }

    /// How many charges the sandbox gateway holds in processing (the `holdCharges` fault).
    func heldCharges() async throws -> Int {
        let r = try await http.execute(HTTPClientRequest(url: gatewayURL + "/sandbox/held"), timeout: .seconds(5))
        let body = try JSONParser.parse(Array(buffer: try await r.body.collect(upTo: 1 << 16)))
        return Int(body["held"]?.doubleValue ?? 0)
    }

    /// Waits until the sandbox gateway holds `count` charges in processing (60 s at most).
    func waitForHeldCharges(_ count: Int = 1) async throws {
        let held = try await waitUntil { try await self.heldCharges() >= count }
        #expect(held, "the sandbox gateway never held \(count) charge(s)")
    }

    /// Ends the processing of the charges the sandbox gateway holds: their results are final and
    /// their notifications are sent. Returns how many it released.
    @discardableResult
    func releaseCharges() async throws -> Int {
        var r = HTTPClientRequest(url: gatewayURL + "/sandbox/release")
        r.method = .POST
        let response = try await http.execute(r, timeout: .seconds(5))
        let body = try JSONParser.parse(Array(buffer: try await response.body.collect(upTo: 1 << 16)))
        return Int(body["released"]?.doubleValue ?? 0)
    }

    /// Tells the sandbox gateway that the merchant tokens ending in `suffix` are `status` (`deleted`, `expired`, `active`).
    func setMerchantToken(suffix: String, status: String) async throws {
        var r = HTTPClientRequest(url: gatewayURL + "/sandbox/merchant-tokens")
        r.method = .PUT
        r.body = .bytes(ByteBuffer(string: #"{"suffix":"\#(suffix)","status":"\#(status)"}"#))
        let response = try await http.execute(r, timeout: .seconds(5))
        #expect(response.status == .ok)
    }

    func ledger() async throws -> [JSONValue] { try await gatewayList("/sandbox/ledger") }

    /// The sandbox gateway's ledger of the queries it answered.
    func queries() async throws -> [JSONValue] { try await gatewayList("/sandbox/queries") }

    private func gatewayList(_ path: String) async throws -> [JSONValue] {
        let r = try await http.execute(HTTPClientRequest(url: gatewayURL + path), timeout: .seconds(5))
        return try JSONParser.parse(Array(buffer: try await r.body.collect(upTo: 1 << 24))).arrayValue ?? []
    }

    /// The sandbox token factory the shopper's device would use: the data folder's sandbox CA,
    /// encrypting to the server's published certificate. It remembers what it issued.
    /// A new order that asks for no contact (CNY 10.00 of tea), its client secret, and the body
    /// of an authorization for it with a token made by `factory` — a sheet's authorization that
    /// the test sends itself.
    func orderWithAuthorizeBody(
        _ factory: RecordingTokenFactory
    ) async throws -> (id: String, secret: String, body: String) {
        let order = try await createOrder([
            "currencyCode": "CNY", "countryCode": "CN", "lineItems": [["label": "Tea", "amount": "10.00"]],
        ])
        let id = try #require(order["id"]?.stringValue)
        let secret = try #require(order["clientSecret"]?.stringValue)
        let request = try decodeJSONValue(ApplePayPaymentRequest.self, from: order["paymentRequest"] ?? .null)
        let token = factory.makeToken(
            for: TokenContext(card: Wallet.default.cards[0], request: request, total: request.total, sequence: 1)
        )
        let body = try JSONValue.object(["payment": JSONValueEncoder().encode(ApplePayPayment(token: token))])
        return (id, secret, body.compactText)
    }

    func tokenFactory() async throws -> RecordingTokenFactory {
        let merchant = try await api.get("/v1/sandbox/merchant")
        let pem = merchant["paymentProcessingCertificate"]?.stringValue ?? ""
        let pki = try SandboxPKI.loadOrCreate(folder: data + "/sandbox-ca")
        return RecordingTokenFactory(
            inner: SandboxTokenFactory(
                pki: pki,
                recipient: try TokenRecipient(certificate: Certificate(pemEncoded: pem))
            )
        )
    }

    /// Starts paying `order` with `card` in the background; returns once its charge is in flight.
    func payInBackground(_ order: JSONValue, wallet: Wallet, card: Int) async throws -> Task<Bool, Error> {
        let factory = try await tokenFactory()
        let task = Task { try await self.pay(order, wallet: wallet, card: card, factory: factory).paid }
        let id = order["id"]?.stringValue ?? ""
        if try await !waitUntil({ try await self.order(id)["status"] == "pending" }) {
            Issue.record("the charge never went in flight")
        }
        return task
    }

    /// Plays a shopper: begin, optional card/coupon, authorize. Returns the driver.
    func pay(
        _ order: JSONValue,
        wallet: Wallet = .default,
        card: Int = 0,
        factory: RecordingTokenFactory
    ) async throws -> PaymentSheetDriver {
        let request = try decodeJSONValue(ApplePayPaymentRequest.self, from: order["paymentRequest"] ?? .null)
        let sheet = try await PaymentSheetDriver.begin(
            version: 14,
            request: request,
            delegate: checkout(order["id"]?.stringValue ?? ""),
            configuration: SheetConfiguration(
                wallet: wallet,
                validationURL: "https://apple-pay-gateway-cert.apple.com/paymentservices/startSession",
                tokenFactory: factory
            )
        )
        if card != 0 { try await sheet.selectPaymentMethod(card) }
        try await sheet.authorize()
        return sheet
    }
}

/// Wraps a token factory and keeps every token it made (to check later that no card data was stored).
final class RecordingTokenFactory: PaymentTokenFactory, @unchecked Sendable {
    let inner: SandboxTokenFactory
    private let lock = NSLock()
    private var made: [ApplePayPaymentToken] = []
    init(inner: SandboxTokenFactory) { self.inner = inner }
    func makeToken(for context: TokenContext) -> ApplePayPaymentToken {
        let t = inner.makeToken(for: context)
        lock.lock()
        made.append(t)
        lock.unlock()
        return t
    }
    var tokens: [ApplePayPaymentToken] {
        lock.lock()
        defer { lock.unlock() }
        return made
    }
}

extension Wallet {
    /// The default wallet plus cards whose device account numbers end in `suffixes` (the
    /// sandbox acquirer's decline rules).
    static func withTestCards(_ suffixes: [String]) -> Wallet {
        var w = Wallet.default
        for s in suffixes {
            var card = w.cards[0]
            card.displayName = "Visa \(s)"
            card.paymentPass = ApplePayPaymentPass(
                primaryAccountIdentifier: "PAYSHEET-TEST-\(s)",
                primaryAccountNumberSuffix: s,
                deviceAccountIdentifier: "PAYSHEET-DEVICE-\(s)",
                deviceAccountNumberSuffix: s,
                activationState: .activated
            )
            w.cards.append(card)
        }
        return w
    }
}
