import PaysheetModel
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import PaysheetToken
import Prometheus
import ServiceLifecycle
import UnionPay
import UnionPaySandbox
import X509

/// `paysheet serve`: the merchant server, its store, the query poller and (unless an external
/// gateway is configured) the sandbox UnionPay gateway, run until SIGINT/SIGTERM.
public enum MerchantServer {
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

    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// Runs the server with `configuration` until shutdown; `onStarted` is called once it listens.
    /// `clock` is the time of orders, payments and agreements (tests move it to charge a
    /// subscription's later periods).
    public static func run(
        _ configuration: ServerConfiguration,
        logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        onStarted: @escaping @Sendable (Started) async -> Void = { _ in }
    ) async throws {
        var c = configuration
        if c.mode == .production {
            let problems = ProductionCheck.problems(c)
            if !problems.isEmpty { throw ProductionRefusal(problems: problems) }
        }
        let folder =
            c.dataFolder.hasPrefix("/") ? c.dataFolder : FileManager.default.currentDirectoryPath + "/" + c.dataFolder
        let data = (folder as NSString).standardizingPath
        try FileManager.default.createDirectory(
            atPath: data,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let registry = Self.registry

        // Token keys and trust.
        let merchantKey: MerchantKey
        let paymentCertificate: String
        if let cert = c.tokens.certificateFile, let key = c.tokens.keyFile {
            merchantKey = try MerchantKey(certificateFile: cert, privateKeyFile: key, permissions: .refuse)
            paymentCertificate = cert
        } else {
            merchantKey = try SandboxMerchant.loadOrCreate(
                dataFolder: data,
                merchantIdentifier: c.merchant.merchantIdentifier
            )
            paymentCertificate = data + "/merchants/" + c.merchant.merchantIdentifier + "/certificate.pem"
        }
        var roots: [Certificate] = []
        if c.tokens.trustApple { roots += TrustAnchors.apple.roots }
        if c.tokens.trustSandbox { roots.append(try SandboxMerchant.pki(dataFolder: data).root) }
        let decryptor = PaymentTokenDecryptor(
            keys: MerchantKeyring([merchantKey]),
            verifier: PaymentTokenVerifier(trust: TrustAnchors(roots)),
            replayGuard: nil
        )

        // The acquirer.
        let (host, port) = try ServerConfiguration.hostPort(c.listen, what: "listen address")
        let publicURL = c.publicURL ?? "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
        if c.merchant.managementURL == nil { c.merchant.managementURL = publicURL + "/subscription.html" }
        let vault = try CredentialVault.loadOrCreate(path: c.credentialKeyFile ?? data + "/credential-key")
        // The UnionPay sandbox PKI is made only when a sandbox part needs it (never in production).
        let sandboxPKI: @Sendable () throws -> UnionPaySandboxPKI = {
            try UnionPaySandboxPKI.loadOrCreate(folder: data + "/unionpay-sandbox")
        }
        guard c.acquirer.signMethod == "01" || c.acquirer.signMethod == "11" else {
            throw ConfigurationError(
                "acquirer.signMethod \(c.acquirer.signMethod) is neither 01 (RSA certificate) nor 11 (secure key)"
            )
        }
        guard (-1...23).contains(c.acquirer.reconcileHour) else {
            throw ConfigurationError(
                "acquirer.reconcileHour \(c.acquirer.reconcileHour) is neither -1 (off) nor an hour 0 to 23"
            )
        }
        let merchantFolder = data + "/unionpay-sandbox/merchant-" + c.acquirer.merchantId
        let secureKey: String? =
            c.acquirer.signMethod == "11"
            ? try c.acquirer.secureKeyFile.map {
                try KeyFile.readPrivateKeyText($0, policy: .refuse).trimmingCharacters(in: .whitespacesAndNewlines)
            }
                ?? UnionPaySandboxPKI.secureKey(folder: merchantFolder)
            : nil
        let merchantACP: ACPCredentials
        if let key = c.acquirer.signingKeyFile, let cert = c.acquirer.signingCertificateFile {
            merchantACP = try ACPCredentials(keyFile: key, certificateFile: cert)
        } else {
            merchantACP = try sandboxPKI().merchantCredentials(
                folder: merchantFolder,
                merchantId: c.acquirer.merchantId
            )
        }
        // The gateway is identified as UnionPay's SDKs identify it: root, middle certificate, owner.
        let gatewayRoots: [Certificate]
        if let files = c.acquirer.trustedRootFiles, !files.isEmpty {
            gatewayRoots = try files.map { try Certificate(pemEncoded: String(contentsOfFile: $0, encoding: .utf8)) }
        } else {
            gatewayRoots = [try sandboxPKI().root]
        }
        let gatewayMiddles: [Certificate]
        if let files = c.acquirer.intermediateFiles, !files.isEmpty {
            gatewayMiddles = try files.map { try Certificate(pemEncoded: String(contentsOfFile: $0, encoding: .utf8)) }
        } else {
            gatewayMiddles = [try sandboxPKI().gatewayCA]
        }
        // UnionPay's encryption certificate for card data: the configured file, or the sandbox's
        // (whose key the built-in sandbox gateway decrypts with), read once.
        let sandboxEncryption: ACPCredentials? =
            c.acquirer.encryptionCertificateFile == nil || c.acquirer.gatewayURL == nil
            ? try sandboxPKI().encryptionCredentials(folder: data + "/unionpay-sandbox") : nil
        let encryptionCertificate: Certificate
        if let file = c.acquirer.encryptionCertificateFile {
            encryptionCertificate = try Certificate(pemEncoded: String(contentsOfFile: file, encoding: .utf8))
        } else {
            encryptionCertificate = sandboxEncryption!.certificate
        }
        let encryptor = try SensitiveDataEncryptor(certificate: encryptionCertificate)
        let gatewayOwners = Set(
            c.acquirer.gatewayOwners ?? [
                c.mode == .production ? ACPVerifier.unionPayOwner : UnionPaySandboxPKI.gatewayOwner
            ]
        )
        var httpConfiguration = HTTPClient.Configuration()
        httpConfiguration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: 64
        )
        httpConfiguration.timeout = .init(connect: .seconds(5))
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)

        var sandboxURL: String?
        var services: [any Service] = []
        if c.acquirer.gatewayURL == nil {
            let (sh, sp) = try ServerConfiguration.hostPort(
                c.acquirer.sandboxListen,
                what: "sandbox acquirer listen address"
            )
            let gateway = try SandboxGateway(
                pki: try sandboxPKI(),
                merchants: [merchantACP],
                http: http,
                paymentDataField: c.acquirer.paymentDataField,
                secureKeys: secureKey.map { [c.acquirer.merchantId: $0] } ?? [:],
                encryption: sandboxEncryption,
                logger: logger
            )
            sandboxURL = "http://\(sh == "0.0.0.0" ? "127.0.0.1" : sh):\(sp)"
            services.append(
                Application(
                    router: gateway.router(),
                    configuration: .init(address: .hostname(sh, port: sp), serverName: "paysheet-acquirer-sandbox"),
                    logger: logger
                )
            )
        }
        let gatewayURL = c.acquirer.gatewayURL ?? sandboxURL!
        var unionPay = UnionPayConfiguration(
            gatewayURL: gatewayURL,
            merchantId: c.acquirer.merchantId,
            notificationURL: publicURL + "/v1/notifications/unionpay",
            bizType: c.acquirer.bizType,
            paymentDataField: c.acquirer.paymentDataField,
            timeout: c.acquirer.timeout,
            fileDownloadURL: c.acquirer.fileDownloadURL
        )
        unionPay.tokenRequestorId = c.acquirer.tokenRequestorId
        let client = UnionPayClient(
            configuration: unionPay,
            http: http,
            signer: try secureKey.map { try ACPSecureKeySigner(secureKey: $0) as any ACPMessageSigning }
                ?? merchantACP.signer(),
            verifier: ACPVerifier(
                roots: gatewayRoots,
                intermediates: gatewayMiddles,
                owners: gatewayOwners,
                secureKey: secureKey
            ),
            encryptor: encryptor
        )

        // Storage.
        let databaseURL = c.databaseURL ?? "sqlite:" + data + "/paysheet.sqlite"
        let database: any SQLDatabase
        var postgres: PostgresDatabase?
        var databaseLabel = databaseURL
        if databaseURL.hasPrefix("postgres") {
            let pg = try PostgresDatabase(url: databaseURL, logger: logger)
            services.append(pg.client)
            database = pg
            postgres = pg
            if var u = URLComponents(string: databaseURL), u.password != nil {
                u.password = "***"
                databaseLabel = u.string ?? "postgres"
            }
            databaseLabel += " (TLS: \(PostgresTLSMode(url: databaseURL).rawValue))"
        } else if databaseURL.hasPrefix("sqlite:") {
            database = try await SQLiteDatabase.open(
                path: String(databaseURL.dropFirst("sqlite:".count)),
                logger: logger
            )
        } else {
            throw ConfigurationError("database URL \(databaseURL) is neither sqlite:PATH nor postgres://…")
        }
        let store = PaymentStore(database: database)

        // Services.
        let orders = OrderService(store: store, settings: c.merchant, now: clock)
        let acquirer = UnionPayAcquirer(client: client)
        let reconciliation = ReconciliationService(store: store, acquirer: acquirer, logger: logger, now: { Date() })
        let payments = PaymentService(
            store: store,
            acquirer: acquirer,
            decryptor: decryptor,
            settings: c.merchant,
            lifecycle: c.lifecycle,
            authorizeWait: c.authorizeWait,
            shopperCancelWindow: c.shopperCancelWindow,
            logger: logger,
            now: clock,
            vault: vault
        )
        let validation: MerchantValidator.Mode
        if c.merchantValidation == "apple" {
            guard let cert = c.identityCertificateFile, let key = c.identityKeyFile else {
                throw ConfigurationError(
                    "merchantValidation \"apple\" needs identityCertificateFile and identityKeyFile (PAYSHEET_IDENTITY_CERTIFICATE, PAYSHEET_IDENTITY_KEY)"
                )
            }
            validation = .apple(client: try MerchantValidator.appleClient(certificateFile: cert, keyFile: key))
        } else {
            validation = .sandbox
        }
        // The drop-in, its bridge, the demo store and /v1/sandbox/* are sandbox tools: served only
        // when asked for and while the server trusts sandbox tokens (the only tokens the simulated
        // sheet can make).
        let tools = c.sandboxTools && c.tokens.trustSandbox
        let sandboxPEM = tools ? try? merchantKey.certificate?.serializeAsPEM().pemString : nil
        let sandboxSessions = SandboxMerchantSessions()
        let sheets =
            tools
            ? SheetHub(
                pki: try SandboxMerchant.pki(dataFolder: data),
                recipient: TokenRecipient(merchantKey),
                merchantSessions: sandboxSessions
            ) : nil
        let draining = Flag()
        let validator = MerchantValidator(mode: validation, settings: c.merchant, sandboxSessions: sandboxSessions)
        let api = APIRouter(
            orders: orders,
            payments: payments,
            validator: validator,
            store: store,
            registry: registry,
            sandboxMerchantCertificate: sandboxPEM,
            sheets: sheets,
            mode: c.mode,
            draining: draining,
            reconciliation: reconciliation
        )
        let ready = Readiness()
        var app = Application(
            router: try api.router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "paysheet"),
            logger: logger
        )
        let started = Started(
            url: publicURL,
            sandboxGatewayURL: sandboxURL,
            gatewayURL: gatewayURL,
            database: databaseLabel,
            dataFolder: data,
            paymentCertificate: paymentCertificate,
            mode: c.mode,
            sandboxTools: tools
        )
        let mode = c.mode
        app.beforeServerStarts {
            try await store.migrate()
            if mode == .production {
                let problems = ProductionCheck.problems(activeAPIKeys: try await APIKeys(store: store).activeCount())
                if !problems.isEmpty { throw ProductionRefusal(problems: problems) }
            }
            await ready.signal()
            await onStarted(started)
        }
        services.append(app)
        services.append(
            QueryPoller(payments: payments, store: store, interval: c.pollInterval, ready: ready, logger: logger)
        )
        // An outside gateway is asked for its current encryption certificate (the built-in sandbox's is known).
        if c.acquirer.gatewayURL != nil {
            services.append(EncryptionCertificateRefresher(client: client, ready: ready, logger: logger))
        }
        if c.acquirer.reconcileHour >= 0 {
            services.append(
                ReconciliationScheduler(
                    service: reconciliation,
                    store: store,
                    hour: c.acquirer.reconcileHour,
                    interval: 600,
                    ready: ready,
                    logger: logger
                )
            )
        }
        if let postgres { services.append(SettlementListener(database: postgres, payments: payments, logger: logger)) }
        // Shut down first (services stop in reverse order): /health answers 503 for drainSeconds
        // while requests are still served, so that a load balancer takes this server out first.
        services.append(Drainer(draining: draining, seconds: c.drainSeconds, logger: logger))
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        // Closing must happen even when the run was cancelled (cancellation would stop it early).
        let close: @Sendable () async -> Void = {
            await Task.detached {
                try? await http.shutdown()
                if case .apple(let client) = validation { try? await client.shutdown() }
                await database.close()
            }.value
        }
        do {
            try await group.run()
        } catch {
            await close()
            throw error
        }
        await close()
    }
}
