import ArgumentParser
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import PaysheetServer
import UnionPay
import UnionPaySandbox

/// `paysheet acquirer-sandbox`: the sandbox UnionPay gateway on its own.
struct AcquirerSandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "acquirer-sandbox",
        abstract:
            "Run the sandbox UnionPay gateway (ACP 5.1.0): signed answers, notifications, queries, a ledger, decline rules and fault injection.",
        discussion: """
            It signs with the sandbox PKI in the data folder (unionpay-sandbox/) and accepts the merchant signing
            certificate issued there for --merchant-id. GET /sandbox/ledger lists its transactions; PUT /sandbox/faults sets faults.
            Not China UnionPay: no money moves.
            """
    )

    @Option(name: .customLong("data"), help: "The data folder (default: $PAYSHEET_DATA or ./.paysheet).")
    var data: String?
    @Option(name: .customLong("listen"), help: "host:port (default 127.0.0.1:8081).")
    var listen = "127.0.0.1:8081"
    @Option(name: .customLong("merchant-id"), help: "The merchant number whose signing certificate is accepted.")
    var merchantId = "777290058110048"
    @Option(name: .customLong("faults"), help: "A JSON file of fault probabilities (see the README).")
    var faultsFile: String?
    @Option(name: .customLong("payment-data-field"), help: "The request field that carries the payment data.")
    var paymentDataField = "cardTransData"

    func run() async throws {
        let folder =
            (data ?? ProcessInfo.processInfo.environment["PAYSHEET_DATA"] ?? FileManager.default.currentDirectoryPath
                + "/.paysheet")
        let pki = try UnionPaySandboxPKI.loadOrCreate(folder: folder + "/unionpay-sandbox")
        let merchant = try pki.merchantCredentials(
            folder: folder + "/unionpay-sandbox/merchant-" + merchantId,
            merchantId: merchantId
        )
        // The merchant's secure key for signMethod 11 (made on first use, shared with paysheet serve through the data folder).
        let secureKey = try UnionPaySandboxPKI.secureKey(folder: folder + "/unionpay-sandbox/merchant-" + merchantId)
        var faults = SandboxFaults()
        if let faultsFile {
            guard let data = FileManager.default.contents(atPath: faultsFile),
                let loaded = try? JSONDecoder().decode(SandboxFaults.self, from: data)
            else {
                throw ValidationError("\(faultsFile) is not a JSON object of fault settings")
            }
            faults = loaded
        }
        let (host, port): (String, Int)
        do { (host, port) = try ServerConfiguration.hostPort(listen, what: "--listen") } catch {
            throw ValidationError("\(error)")
        }
        let logger = Logger(label: "paysheet.acquirer-sandbox")
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let gateway = try SandboxGateway(
            pki: pki,
            merchants: [merchant],
            http: http,
            faults: faults,
            paymentDataField: paymentDataField,
            secureKeys: [merchantId: secureKey],
            encryption: try pki.encryptionCredentials(folder: folder + "/unionpay-sandbox"),
            logger: logger
        )
        var limits = ServerConfiguration()
        try limits.apply(environment: ProcessInfo.processInfo.environment)
        var app = Application(
            router: gateway.router(),
            server: try .guarded(limits.connections, name: "paysheet-acquirer-sandbox", logger: logger),
            configuration: .init(
                address: .hostname(host, port: port),
                serverName: "paysheet-acquirer-sandbox",
                backlog: limits.connections.backlog
            ),
            logger: logger
        )
        app.beforeServerStarts {
            say("sandbox UnionPay gateway on http://\(listen) (data \(folder)/unionpay-sandbox; not China UnionPay)")
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        do {
            try await group.run()
        } catch {
            logger.error("the sandbox gateway stopped: \(error)")
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }
}
