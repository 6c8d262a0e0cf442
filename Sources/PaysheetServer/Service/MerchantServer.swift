import PaysheetModel
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import PaysheetToken
import Prometheus
import ServiceLifecycle
import UnionPay
import X509

/// `paysheet serve` as a value: the merchant server's Hummingbird application with the services
/// it runs beside it (its store's pool, the query poller, the reconciliation scheduler, the
/// settlement listener and, when a sandbox is composed and no external gateway is configured,
/// the sandbox UnionPay gateway).
///
/// This library links no sandbox: a server built by ``init(_:logger:clock:metrics:)`` takes every
/// key, certificate and gateway from its configuration. `PaysheetSandboxServer` composes the
/// sandbox (its gateway, keys, merchant sessions and browser tools) for what is left unset, as
/// `paysheet serve` does.
///
/// ``init(_:logger:clock:metrics:)`` builds everything from a configuration (refusing a bad one);
/// ``run(services:onStarted:)`` serves until SIGINT or SIGTERM. Tests run ``application`` in-process with
/// HummingbirdTesting (`application.test(.router)`) and call ``shutdown()`` after.
public struct MerchantServer: Sendable {
    /// What started, for the start-up lines.
    public struct Started: Sendable {
        /// The merchant server's URL.
        public var url: String
        /// The sandbox gateway's URL, when started here.
        public var sandboxGatewayURL: String?
        /// The acquirer gateway in use.
        public var gatewayURL: String
        /// `sqlite:…` or the PostgreSQL URL without its password.
        public var database: String
        /// The data folder.
        public var dataFolder: String
        /// The payment processing certificate file (tokens are encrypted to it).
        public var paymentCertificate: String
        /// Sandbox or production.
        public var mode: ServerMode
        /// Whether `paysheet.js`, its bridge, the demo store and `/v1/sandbox/*` are served.
        public var sandboxTools: Bool
    }

    /// What this server serves, for the start-up lines.
    public let started: Started
    /// The merchant server: its router, its services and the migrations it runs before it listens.
    public let application: Application<RouterResponder<APIRequestContext>>
    /// Stops first on SIGTERM: `/health` answers 503 for the configured seconds while requests are still served.
    let drainer: Drainer
    /// The payment service its routes call: for tests that need an interleaving no HTTP timing can
    /// promise (an authorization that read the order before another one's charge committed).
    let payments: PaymentService
    /// Closes the HTTP clients and the database; after the services have stopped.
    let close: @Sendable () async -> Void

    /// Builds the server from `configuration`. `clock` is the time of orders, payments and
    /// agreements (tests move it to charge a subscription's later periods); `metrics` is the
    /// registry `/metrics` serves (the process bootstraps swift-metrics with it; a library does
    /// not). Throws ``ConfigurationError`` or ``ProductionRefusal`` for a configuration it will not run.
    public init(
        _ configuration: ServerConfiguration,
        logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        metrics: PrometheusCollectorRegistry? = nil
    ) async throws {
        try await self.init(configuration, logger: logger, clock: clock, metrics: metrics, sandbox: nil)
    }

    /// A server whose `sandbox` stands in for the keys, certificates, gateway, merchant sessions
    /// and browser tools its configuration leaves unset (`nil`: none, each must be configured).
    package init(
        _ configuration: ServerConfiguration,
        logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        metrics: PrometheusCollectorRegistry? = nil,
        sandbox: (any ServerSandbox)?
    ) async throws {
        var config = configuration
        if config.mode == .production {
            let problems = ProductionCheck.problems(config)
            if !problems.isEmpty { throw ProductionRefusal(problems: problems) }
        }
        let data = try Self.dataFolder(config)
        let (host, port) = try ServerConfiguration.hostPort(config.listen, what: "listen address")
        let publicURL = config.publicURL ?? "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
        if config.merchant.managementURL == nil { config.merchant.managementURL = publicURL + "/subscription.html" }
        if config.merchant.tokenNotificationURL == nil {
            config.merchant.tokenNotificationURL = publicURL + APIRouter.tokenNotificationPath
        }
        let tokens = try TokenParts(config, data: data, sandbox: sandbox)
        let connections = try ConnectionSettings.forServer(config.connections, logger: logger)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.httpConfiguration)
        var opened: (any SQLDatabase)?
        var validationClient: HTTPClient?
        do {
            let acquirer = try AcquirerParts(
                config,
                data: data,
                publicURL: publicURL,
                http: http,
                connections: connections,
                sandbox: sandbox,
                logger: logger
            )
            let storage = try await StorageParts(config, data: data, logger: logger)
            opened = storage.database
            let validation = try Self.merchantValidation(config, sandbox: sandbox)
            if case .apple(let client) = validation { validationClient = client }
            let store = PaymentStore(database: storage.database)
            let parts = try ServiceParts(
                config,
                data: data,
                tokens: tokens,
                acquirer: acquirer,
                storage: storage,
                store: store,
                publicURL: publicURL,
                validation: validation,
                sandbox: sandbox,
                metrics: metrics,
                clock: clock,
                http: http,
                logger: logger
            )
            let ready = parts.ready
            var application = Application(
                router: parts.router,
                server: .guarded(connections, name: "paysheet", logger: logger),
                configuration: .init(
                    address: .hostname(host, port: port),
                    serverName: "paysheet",
                    backlog: config.connections.backlog
                ),
                services: acquirer.services + storage.services + parts.services,
                logger: logger
            )
            let mode = config.mode
            application.beforeServerStarts {
                try await store.migrate()
                if mode == .production {
                    let problems = ProductionCheck.problems(
                        activeAPIKeys: try await APIKeys(store: store).activeCount()
                    )
                    if !problems.isEmpty { throw ProductionRefusal(problems: problems) }
                }
                await ready.signal()
            }
            self.application = application
            self.payments = parts.payments
            self.drainer = Drainer(draining: parts.draining, seconds: config.drainSeconds, logger: logger)
            self.started = Started(
                url: publicURL,
                sandboxGatewayURL: acquirer.sandboxURL,
                gatewayURL: acquirer.gatewayURL,
                database: storage.label,
                dataFolder: data,
                paymentCertificate: tokens.paymentCertificate,
                mode: config.mode,
                sandboxTools: parts.sandboxTools
            )
            let database = storage.database
            self.close = {
                try? await http.shutdown()
                if case .apple(let client) = validation { try? await client.shutdown() }
                await database.close()
            }
        } catch {
            // A client that is dropped without being shut down is a programming error to AsyncHTTPClient.
            try? await http.shutdown()
            try? await validationClient?.shutdown()
            await opened?.close()
            throw error
        }
    }

    /// Serves until SIGINT or SIGTERM (or cancellation); `onStarted` is called once it listens.
    /// On a signal the server drains first (``ServerConfiguration/drainSeconds``), then stops.
    /// `services` run beside the server and stop after it (a trace exporter that flushes the last spans).
    public func run(
        services: [any Service] = [],
        onStarted: @escaping @Sendable (Started) async -> Void = { _ in }
    ) async throws {
        var application = application
        let started = started
        application.beforeServerStarts { await onStarted(started) }
        // The drainer is last, so that it is the first to stop (a group stops in reverse order);
        // `services` are first, the last to stop.
        var configuration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) } + [.init(service: application), .init(service: drainer)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: application.logger
        )
        // A request that never ends (its database call lost) must not keep the server from
        // stopping: after the drain and 30 s more, what is left is cancelled. (No maximum for the
        // cancellation itself: swift-service-lifecycle ends the process with a fatal error then.)
        configuration.maximumGracefulShutdownDuration = .seconds(drainer.seconds + 30)
        let group = ServiceGroup(configuration: configuration)
        do {
            try await group.run()
        } catch {
            await shutdown()
            throw error
        }
        await shutdown()
    }

    /// Closes what the server holds (HTTP clients, the database); after ``run(services:onStarted:)`` or a test
    /// of ``application`` has returned. It runs to the end even when the caller was cancelled.
    public func shutdown() async {
        let close = close
        await Task.detached { await close() }.value
    }

    /// Builds a server from `configuration` and runs it until shutdown (``init(_:logger:clock:metrics:)``
    /// then ``run(services:onStarted:)``).
    public static func run(
        _ configuration: ServerConfiguration,
        logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        metrics: PrometheusCollectorRegistry? = nil,
        onStarted: @escaping @Sendable (Started) async -> Void = { _ in }
    ) async throws {
        try await run(configuration, logger: logger, clock: clock, metrics: metrics, sandbox: nil, onStarted: onStarted)
    }

    /// ``run(_:logger:clock:metrics:onStarted:)`` with `sandbox` standing in for what the
    /// configuration leaves unset (``init(_:logger:clock:metrics:sandbox:)``).
    package static func run(
        _ configuration: ServerConfiguration,
        logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        metrics: PrometheusCollectorRegistry? = nil,
        sandbox: (any ServerSandbox)?,
        services: [any Service] = [],
        onStarted: @escaping @Sendable (Started) async -> Void = { _ in }
    ) async throws {
        try await MerchantServer(configuration, logger: logger, clock: clock, metrics: metrics, sandbox: sandbox).run(
            services: services,
            onStarted: onStarted
        )
    }

    /// The data folder, absolute and made (owner only) if missing.
    static func dataFolder(_ config: ServerConfiguration) throws -> String {
        let folder =
            config.dataFolder.hasPrefix("/")
            ? config.dataFolder : FileManager.default.currentDirectoryPath + "/" + config.dataFolder
        let data = (folder as NSString).standardizingPath
        try FileManager.default.createDirectory(
            atPath: data,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        return data
    }

    /// The client for the acquirer and the validation of merchant sessions.
    static var httpConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        configuration.timeout = .init(connect: .seconds(5))
        return configuration
    }

    /// How merchant sessions are made: by Apple's gateway with the merchant identity, or the sandbox's.
    static func merchantValidation(
        _ config: ServerConfiguration,
        sandbox: (any ServerSandbox)?
    ) throws -> MerchantValidator.Mode {
        guard config.merchantValidation == .apple else {
            return .sandbox(
                try Self.sandbox(
                    sandbox,
                    for: "merchantValidation is \"\(config.merchantValidation.rawValue)\", not \"apple\""
                )
                .merchantSessions
            )
        }
        guard let cert = config.identityCertificateFile, let key = config.identityKeyFile else {
            throw ConfigurationError(
                "merchantValidation \"apple\" needs identityCertificateFile and identityKeyFile (PAYSHEET_IDENTITY_CERTIFICATE, PAYSHEET_IDENTITY_KEY)"
            )
        }
        return .apple(client: try MerchantValidator.appleClient(certificateFile: cert, keyFile: key))
    }
}
