import ArgumentParser
import AsyncHTTPClient
import Foundation
import Logging
import Metrics
import NIOCore
import PaysheetSandboxServer
import PaysheetRSA
import PaysheetServer
import Prometheus
import ServiceLifecycle

/// `paysheet serve`: the merchant server with embedded defaults.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Run the merchant server (orders, the sheet's update endpoints, authorization, refunds) and the sandbox UnionPay gateway beside it.",
        discussion: """
            Nothing to configure: SQLite, keys and certificates are created in the data folder on first run.
            A JSON file (--config) and then PAYSHEET_* environment variables override each setting; see the README.
            """
    )

    @Option(name: .customLong("config"), help: "A JSON configuration file (every member optional).")
    var config: String?
    @Option(name: .customLong("data"), help: "The data folder (default: $PAYSHEET_DATA or ./.paysheet).")
    var data: String?
    @Option(name: .customLong("listen"), help: "host:port of the merchant server (default 127.0.0.1:8080).")
    var listen: String?
    @Option(name: .customLong("database"), help: "sqlite:PATH or postgres://user:password@host:port/database.")
    var database: String?
    @Option(
        name: .customLong("mode"),
        help: "sandbox (the default) or production, which refuses to start with any sandbox part."
    )
    var mode: String?
    @Flag(
        name: .customLong("no-demo-order"),
        help: "Do not print the paysheet pay command that orders and pays a demo order."
    )
    var noDemoOrder = false

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        if let data { environment["PAYSHEET_DATA"] = data }
        if let listen { environment["PAYSHEET_LISTEN"] = listen }
        if let database { environment["PAYSHEET_DATABASE_URL"] = database }
        if let mode { environment["PAYSHEET_MODE"] = mode }
        let configuration: ServerConfiguration
        do { configuration = try ServerConfiguration.load(file: config, environment: environment) } catch {
            FileHandle.standardError.write(Data("paysheet serve: \(error)\n".utf8))
            throw ExitCodes.usage
        }
        // Before the first logger: the log's format, and the trace exporter when one is configured.
        let telemetry: (any Service)?
        do { telemetry = try Telemetry.bootstrap(configuration.telemetry) } catch {
            FileHandle.standardError.write(Data("paysheet serve: telemetry: \(error)\n".utf8))
            throw ExitCodes.usage
        }
        var logger = Logger(label: "paysheet")
        logger.logLevel = configuration.logLevel
        let demo = !noDemoOrder && configuration.mode == .sandbox
        // The process, not the library, chooses where swift-metrics go: Prometheus, served on /metrics.
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))
        // The demo order's command is printed once the server answers, by a task beside the
        // server's (onStarted is called before it listens), ended with it.
        let (starts, started) = AsyncStream.makeStream(of: MerchantServer.Started.self)
        do {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask {
                    for await server in starts { await Self.demoOrder(server) }
                }
                defer { group.cancelAll() }
                try await Self.serve(
                    configuration,
                    logger: logger,
                    metrics: metrics,
                    services: telemetry.map { [$0] } ?? [],
                    demo: demo,
                    started: started
                )
            }
        } catch let refusal as ProductionRefusal {
            FileHandle.standardError.write(Data((refusal.description + "\n").utf8))
            throw ExitCodes.usage
        }
    }

    /// Runs the server until SIGINT or SIGTERM; `started` is told of it, when `demo`, once it is up.
    static func serve(
        _ configuration: ServerConfiguration,
        logger: Logger,
        metrics: PrometheusCollectorRegistry,
        services: [any Service],
        demo: Bool,
        started announce: AsyncStream<MerchantServer.Started>.Continuation
    ) async throws {
        defer { announce.finish() }  // also when it does not start
        // The executable composes the sandbox (its gateway, keys, merchant sessions, browser
        // tools) in sandbox mode; a production server runs the library alone.
        try await MerchantServer.run(
            configuration,
            logger: logger,
            metrics: metrics,
            sandbox: configuration.mode == .sandbox ? BuiltInSandbox() : nil,
            services: services,
            onStarted: { started in
                let tools =
                    started.sandboxTools
                    ? """

                      demo store        \(started.url)/   (open it in a browser: the simulated payment sheet)
                      drop-in           \(started.url)/paysheet.js   (ApplePaySession for your own pages' tests)
                    """ : ""
                say(
                    """
                    paysheet serve — merchant server for Apple Pay payments (\(started.mode.rawValue) mode)\(tools)
                      merchant server   \(started.url)   (API /v1, /health; /metrics and the merchant's calls take an API key)
                      console           \(started.url)/console   (orders, timelines, refunds, agreements, reconciliation: an API key)
                      acquirer          \(started.gatewayURL)\(started.sandboxGatewayURL != nil ? "   (sandbox UnionPay gateway, started here)" : "   (external gateway)")
                      database          \(started.database)
                      data folder       \(started.dataFolder)
                      tokens decrypt to \(started.paymentCertificate)
                      RSA               \(RSABackendChoice.current.explanation) (\(RSACPUPath.describe(RSABackend.selected)))
                      API keys          paysheet api-key create --data \(started.dataFolder)\(configuration.databaseURL != nil ? " --database URL" : "")
                    """
                )
                if demo, started.sandboxTools { announce.yield(started) }
                announce.finish()
            }
        )
    }

    /// Once the server answers, prints the command that orders and pays a demo order. It carries
    /// no secret: `paysheet pay` without `--order` makes the order itself, from the catalog, as a
    /// shopper's page does, and keeps its client secret to itself (nothing secret is printed or logged).
    static func demoOrder(_ started: MerchantServer.Started) async {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        for _ in 0..<100 {
            if let response = try? await client.execute(
                HTTPClientRequest(url: started.url + "/health"),
                timeout: .seconds(5)
            ),
                response.status == .ok
            {
                say(
                    """
                    Order and pay a demo order as a shopper would (the catalog, the sheet engine, a sandbox token, the sandbox acquirer):
                      swift run paysheet pay --server \(started.url) --data \(started.dataFolder)
                    """
                )
                try? await client.shutdown()
                return
            }
            // Stopped with the server: no more tries.
            do { try await Task.sleep(for: .milliseconds(100)) } catch { break }
        }
        try? await client.shutdown()
    }
}

/// Writes a line to standard output at once (unbuffered, also when piped to a file).
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
