import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import PaysheetModel
import PaysheetToken
import Testing
import UnionPay
import UnionPaySandbox
@testable import PaysheetServer

/// `paysheet serve --mode production`: every sandbox part refused, one line each; a server
/// configured right starts, serves no sandbox tool and accepts no sandbox token.
@Suite(.serialized) struct ProductionModeTests {
    /// A production configuration with everything set right, in `folder`: the merchant's own
    /// payment processing key, ACP key and certificate and the acquirer's root, an external
    /// gateway, an https public URL, no sandbox tools.
    static func goodConfiguration(
        folder: String,
        gatewayURL: String,
        acquirer: UnionPaySandboxPKI
    ) throws -> ServerConfiguration {
        var c = ServerConfiguration()
        c.mode = .production
        c.dataFolder = folder
        c.publicURL = "https://shop.example"
        c.sandboxTools = false
        c.tokens.trustSandbox = false
        c.merchant.merchantIdentifier = "merchant.example.shop"
        // The payment processing key: issued here by a CA of the test's own, standing in for
        // Apple's (not by the sandbox's PKI, whose certificates production refuses by content).
        let paths = try StandIn.paymentProcessing(
            folder: folder + "/payment-processing",
            merchantIdentifier: c.merchant.merchantIdentifier
        )
        c.tokens.certificateFile = paths.certificate
        c.tokens.keyFile = paths.privateKey
        // The acquirer's PKI (`StandIn.acquirer`, made in `folder`): the merchant's ACP
        // credentials and the acquirer's root.
        let acp = try acquirer.merchantCredentials(folder: folder + "/acp", merchantId: "898110248990001")
        c.acquirer.merchantId = "898110248990001"
        c.acquirer.signingKeyFile = folder + "/acp/key.pem"
        c.acquirer.signingCertificateFile = folder + "/acp/certificate.pem"
        try KeyFile.write(try acquirer.root.serializeAsPEM().pemString, to: folder + "/acquirer-root.pem", mode: 0o644)
        c.acquirer.trustedRootFiles = [folder + "/acquirer-root.pem"]
        try KeyFile.write(
            try acquirer.gatewayCA.serializeAsPEM().pemString,
            to: folder + "/acquirer-middle.pem",
            mode: 0o644
        )
        c.acquirer.intermediateFiles = [folder + "/acquirer-middle.pem"]
        c.acquirer.gatewayURL = gatewayURL
        try KeyFile.write(
            try acquirer.encryptionCredentials(folder: folder + "/acquirer-enc").certificate.serializeAsPEM().pemString,
            to: folder + "/acquirer-encryption.pem",
            mode: 0o644
        )
        c.acquirer.encryptionCertificateFile = folder + "/acquirer-encryption.pem"
        _ = acp
        c.merchantValidation = .apple
        c.identityCertificateFile = folder + "/acp/certificate.pem"
        c.identityKeyFile = folder + "/acp/key.pem"
        return c
    }

    static func folder() -> String {
        let f = NSTemporaryDirectory() + "paysheet-prod-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: f, withIntermediateDirectories: true)
        return f
    }

    @Test func theRightConfigurationHasNoProblem() throws {
        let f = Self.folder()
        let c = try Self.goodConfiguration(
            folder: f,
            gatewayURL: "https://gateway.example/gateway/api",
            acquirer: try StandIn.acquirer(folder: f)
        )
        #expect(ProductionCheck.problems(c) == [])
    }

    /// Each rule broken alone: exactly one problem, naming what to set.
    @Test(arguments: [
        ("trust sandbox tokens", "tokens.trustSandbox"),
        ("sandbox tools", "sandboxTools"),
        ("built-in gateway", "acquirer.gatewayURL"),
        ("sandbox merchant id", "acquirer.merchantId"),
        ("sandbox ACP certificate", "acquirer.signingKeyFile"),
        ("sandbox ACP root", "acquirer.trustedRootFiles"),
        ("sandbox ACP middle certificate", "acquirer.intermediateFiles"),
        ("the test environment's gateway owner", "acquirer.gatewayOwners"),
        ("sandbox encryption certificate", "acquirer.encryptionCertificateFile"),
        ("sandbox payment processing key", "tokens.certificateFile"),
        ("sandbox merchant identifier", "merchant.merchantIdentifier"),
        ("sandbox merchant validation", "merchantValidation"),
        ("PostgreSQL without TLS", "sslmode"),
        ("PostgreSQL preferring TLS", "sslmode"),
        ("http public URL", "publicURL"),
        ("no public URL", "publicURL"),
    ])
    func eachSandboxPartIsOneProblem(rule: String, named: String) throws {
        let f = Self.folder()
        var c = try Self.goodConfiguration(
            folder: f,
            gatewayURL: "https://gateway.example/gateway/api",
            acquirer: try StandIn.acquirer(folder: f)
        )
        let sandbox = ServerConfiguration()
        switch rule {
        case "trust sandbox tokens": c.tokens.trustSandbox = true
        case "sandbox tools": c.sandboxTools = true
        case "built-in gateway": c.acquirer.gatewayURL = nil
        case "sandbox merchant id": c.acquirer.merchantId = sandbox.acquirer.merchantId
        case "sandbox ACP certificate": c.acquirer.signingKeyFile = nil
        case "sandbox ACP root": c.acquirer.trustedRootFiles = nil
        case "sandbox ACP middle certificate": c.acquirer.intermediateFiles = []
        case "the test environment's gateway owner": c.acquirer.gatewayOwners = ["中国银联股份有限公司", "00040000:SIGN"]
        case "sandbox encryption certificate": c.acquirer.encryptionCertificateFile = nil
        case "sandbox payment processing key": c.tokens.keyFile = nil
        case "sandbox merchant identifier": c.merchant.merchantIdentifier = sandbox.merchant.merchantIdentifier
        case "sandbox merchant validation": c.merchantValidation = .sandbox
        case "PostgreSQL without TLS":
            c.databaseURL = "postgres://paysheet:secret@db.example:5432/paysheet?sslmode=disable"
        case "PostgreSQL preferring TLS": c.databaseURL = "postgres://paysheet:secret@db.example:5432/paysheet"
        case "http public URL": c.publicURL = "http://shop.example"
        case "no public URL": c.publicURL = nil
        default: Issue.record("unknown rule \(rule)")
        }
        let problems = ProductionCheck.problems(c)
        #expect(problems.count == 1, "\(rule): \(problems)")
        #expect(problems.first?.contains(named) == true, "\(rule): \(problems)")
        // TLS asked for is accepted.
        if named == "sslmode" {
            c.databaseURL =
                "postgres://paysheet:secret@db.example:5432/paysheet?sslmode=verify-full&sslrootcert=/etc/ca.pem"
            #expect(ProductionCheck.problems(c) == [])
        }
    }

    /// Production connects to PostgreSQL with the server verified: `verify-full` and a named CA
    /// (or `sslrootcert=system`). Every other mode is one problem that names the fix.
    @Test(arguments: [
        ("", "prefer"),
        ("?sslmode=disable", "disable"),
        ("?sslmode=prefer", "prefer"),
        ("?sslmode=allow", "allow"),
        ("?sslmode=require", "require"),
        ("?sslmode=require&sslrootcert=/etc/paysheet/db-ca.pem", "require"),
        ("?sslmode=verify-ca&sslrootcert=/etc/paysheet/db-ca.pem", "verify-ca"),
        ("?sslmode=verify-full", "sslrootcert"),
        ("?sslmode=sometimes", "sometimes"),
    ])
    func productionAcceptsOnlyAVerifiedDatabaseConnection(query: String, named: String) throws {
        let f = Self.folder()
        var c = try Self.goodConfiguration(
            folder: f,
            gatewayURL: "https://gateway.example/gateway/api",
            acquirer: try StandIn.acquirer(folder: f)
        )
        c.databaseURL = "postgres://paysheet:secret@db.example:5432/paysheet" + query
        let problems = ProductionCheck.problems(c)
        #expect(problems.count == 1, "\(query): \(problems)")
        #expect(problems.first?.contains(named) == true, "\(query): \(problems)")
        #expect(problems.first?.contains("sslmode=verify-full") == true, "\(query): \(problems)")
        for good in [
            "?sslmode=verify-full&sslrootcert=/etc/paysheet/db-ca.pem", "?sslmode=verify-full&sslrootcert=system",
        ] {
            c.databaseURL = "postgres://paysheet:secret@db.example:5432/paysheet" + good
            #expect(ProductionCheck.problems(c) == [], "\(good)")
        }
    }

    @Test func noAPIKeyIsAProblem() {
        #expect(ProductionCheck.problems(activeAPIKeys: 0).first?.contains("api-key create") == true)
        #expect(ProductionCheck.problems(activeAPIKeys: 1) == [])
    }

    @Test func theLibraryAloneHasNoSandboxToTakeUnsetPartsFrom() async throws {
        // Sandbox mode with nothing configured: only a composed sandbox (paysheet serve's) stands in.
        var c = ServerConfiguration()
        c.dataFolder = Self.folder()
        let configuration = c
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await MerchantServer(configuration, logger: Logger(label: "test"))
        }
        #expect(error?.description.contains("no sandbox") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: c.dataFolder + "/unionpay-sandbox"))
        #expect(!FileManager.default.fileExists(atPath: c.dataFolder + "/sandbox-ca"))
    }

    @Test func theDefaultsRefuseToStartInProductionWithEveryProblem() async throws {
        var c = ServerConfiguration()
        c.mode = .production
        c.dataFolder = Self.folder()
        let refusal = await #expect(throws: ProductionRefusal.self) {
            try await MerchantServer.run(c, logger: Logger(label: "test"))
        }
        #expect((refusal?.problems.count ?? 0) >= 10)
        // Nothing of the sandbox was made on the way.
        #expect(!FileManager.default.fileExists(atPath: c.dataFolder + "/unionpay-sandbox"))
        #expect(!FileManager.default.fileExists(atPath: c.dataFolder + "/sandbox-ca"))
    }

    @Test func aProductionServerConfiguredRightStartsAndServesNoSandboxPart() async throws {
        let f = Self.folder()
        let port = Int.random(in: 40_001...50_000)
        // The acquirer: a gateway of its own PKI, on loopback.
        let acquirer = try StandIn.acquirer(folder: f)
        var c = try Self.goodConfiguration(folder: f, gatewayURL: "http://127.0.0.1:\(port + 1)", acquirer: acquirer)
        c.listen = "127.0.0.1:\(port)"
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let gateway = try SandboxGateway(
            pki: acquirer,
            merchants: [try ACPCredentials(keyFile: f + "/acp/key.pem", certificateFile: f + "/acp/certificate.pem")],
            http: http,
            encryption: try acquirer.encryptionCredentials(folder: f + "/acquirer-enc")
        )
        let gatewayApp = Application(
            router: gateway.router(),
            configuration: .init(address: .hostname("127.0.0.1", port: port + 1))
        )
        let gatewayTask = Task { try await gatewayApp.runService() }
        // Without an API key it refuses (the database is checked once open).
        let noKey = await #expect(throws: ProductionRefusal.self) {
            try await MerchantServer.run(c, logger: Logger(label: "test"))
        }
        #expect(noKey?.problems.count == 1)
        let key = try await APIKeys.withDatabase(nil, dataFolder: f) { try await $0.create(name: "back end").key }
        let configuration = c
        let server = Task { try await MerchantServer.run(configuration, logger: Logger(label: "test")) }
        defer {
            server.cancel()
            gatewayTask.cancel()
        }
        var health: HTTPClientResponse?
        // Until it answers (60 s: a loaded machine starts it later, not never).
        try await waitUntil {
            health = try? await http.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"),
                timeout: .seconds(5)
            )
            return health?.status == .ok
        }
        #expect(health?.status == .ok)
        #expect(health?.headers.first(name: "Paysheet-Mode") == "production")
        for path in ["/paysheet.js", "/", "/v1/sandbox/merchant"] {
            let r = try await http.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"),
                timeout: .seconds(5)
            )
            #expect(r.status == .notFound, "\(path) is served in production")
        }
        var bridge = HTTPClientRequest(url: "http://127.0.0.1:\(port)/paysheet/v1/pages")
        bridge.method = .POST
        #expect(try await http.execute(bridge, timeout: .seconds(5)).status == .notFound)
        // A sandbox token (what the simulated sheet makes) is not accepted: its signer is not trusted.
        var create = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/orders")
        create.method = .POST
        create.headers.add(name: "Authorization", value: "Bearer " + key)
        create.body = .bytes(
            ByteBuffer(string: #"{"currencyCode":"CNY","lineItems":[{"label":"Tea","amount":"10.00"}]}"#)
        )
        let created = try await http.execute(create, timeout: .seconds(5))
        #expect(created.status == .created)
        let order = try JSONParser.parse(Array(buffer: try await created.body.collect(upTo: 1 << 20)))
        let id = try #require(order["id"]?.stringValue)
        let sandboxPKI = try SandboxPKI.loadOrCreate(folder: f + "/some-sandbox")
        let recipient = try TokenRecipient(
            MerchantKey(
                certificateFile: c.tokens.certificateFile!,
                privateKeyFile: c.tokens.keyFile!,
                permissions: .refuse
            )
        )
        let token = try SandboxTokenIssuer(pki: sandboxPKI).issue(
            try SandboxPayment.sample(network: "visa", amount: "10.00", currency: "CNY"),
            to: recipient,
            applicationData: Array(
                Data(base64Encoded: order["paymentRequest"]?["applicationData"]?.stringValue ?? "") ?? Data()
            )
        )
        let payment: JSONValue = [
            "payment": [
                "token": [
                    "paymentMethod": ["displayName": "Visa 4321", "network": "Visa", "type": "credit"],
                    "transactionIdentifier": .string(token.header.transactionId.uppercased()),
                    "paymentData": token.jsonValue,
                ]
            ]
        ]
        var authorize = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/orders/\(id)/authorize")
        authorize.method = .POST
        authorize.headers.add(name: "Authorization", value: "Bearer " + (order["clientSecret"]?.stringValue ?? ""))
        authorize.body = .bytes(ByteBuffer(string: payment.compactText))
        let answer = try await http.execute(authorize, timeout: .seconds(20))
        let body = try JSONParser.parse(Array(buffer: try await answer.body.collect(upTo: 1 << 20)))
        #expect(body["result"]?["status"] == 1, "a sandbox token paid a production order: \(body.compactText)")
        #expect(body["order"]?["status"] != "paid")
        #expect(await gateway.entries().isEmpty)
        server.cancel()
        _ = try? await server.value
        try? await http.shutdown()
    }
}
