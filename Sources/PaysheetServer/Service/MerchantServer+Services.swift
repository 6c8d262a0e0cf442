import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import PaysheetToken
import Prometheus
import ServiceLifecycle

extension MerchantServer {
    /// The domain services over the store (orders, payments, reconciliation), the router over them,
    /// and the services that run beside the HTTP server (the query poller, the certificate
    /// refresher, the reconciliation scheduler, the settlement listener).
    struct ServiceParts {
        let router: Router<APIRequestContext>
        let services: [any Service]
        /// Raised when the server starts draining: `/health` then answers 503.
        let draining: Flag
        /// Opens once the migrations have run; the services beside the server wait for it.
        let ready: Readiness
        /// Whether the drop-in, its bridge, the demo store and `/v1/sandbox/*` are served.
        let sandboxTools: Bool
        /// The payment service the routes call (kept for tests that drive it beside them).
        let payments: PaymentService

        init(
            _ config: ServerConfiguration,
            data: String,
            tokens: TokenParts,
            acquirer: AcquirerParts,
            storage: StorageParts,
            store: PaymentStore,
            publicURL: String,
            validation: MerchantValidator.Mode,
            sandbox: (any ServerSandbox)?,
            metrics: PrometheusCollectorRegistry?,
            clock: @escaping @Sendable () -> Date,
            http: HTTPClient,
            logger: Logger
        ) throws {
            var services: [any Service] = []

            let orders = OrderService(store: store, settings: config.merchant, limits: config.limits, now: clock)
            let reconciliation = ReconciliationService(
                store: store,
                acquirer: acquirer.acquirer,
                logger: logger,
                now: { Date() }
            )
            let payments = PaymentService(
                store: store,
                acquirer: acquirer.acquirer,
                decryptor: tokens.decryptor,
                settings: config.merchant,
                lifecycle: config.lifecycle,
                authorizeWait: config.authorizeWait,
                shopperCancelWindow: config.shopperCancelWindow,
                announcedReadInterval: config.announcedReadInterval,
                logger: logger,
                now: clock,
                vault: try CredentialVault.loadOrCreate(path: config.credentialKeyFile ?? data + "/credential-key"),
                tokenTrust: tokens.trust
            )
            self.payments = payments
            // The drop-in, its bridge, the demo store and /v1/sandbox/* are sandbox tools: served only
            // when asked for and while the server trusts sandbox tokens (the only tokens the simulated
            // sheet can make).
            let tools = config.sandboxTools && config.tokens.trustSandbox
            sandboxTools = tools
            let draining = Flag()
            self.draining = draining
            // Merchant-token life-cycle notifications: confirmed by Apple's gateway or the sandbox's,
            // whose routes (sending them) are sandbox tools.
            let tokenEvents = MerchantServer.merchantTokenEvents(
                config,
                validation: validation,
                sandbox: sandbox,
                clock: clock,
                http: http
            )
            let browser: ExtraRoutes? =
                tools
                ? try MerchantServer.sandbox(sandbox, for: "sandboxTools is on").browserRoutes(
                    dataFolder: data,
                    merchantKey: tokens.merchantKey
                ) : nil
            let sandboxRoutes: ExtraRoutes?
            if let browser, let tokenRoutes = tokenEvents?.routes {
                sandboxRoutes = { router, proxies in
                    try browser(router, proxies)
                    try tokenRoutes(router, proxies)
                }
            } else {
                sandboxRoutes = browser
            }
            let api = APIRouter(
                orders: orders,
                payments: payments,
                validator: MerchantValidator(mode: validation, settings: config.merchant),
                store: store,
                registry: metrics,
                sandboxMerchantCertificate: tools
                    ? try? tokens.merchantKey.certificate?.serializeAsPEM().pemString : nil,
                browser: sandboxRoutes,
                mode: config.mode,
                draining: draining,
                reconciliation: reconciliation,
                limits: config.limits,
                tokenNotifications: tokenEvents.map {
                    MerchantTokenNotifications(
                        source: $0.source,
                        payments: payments,
                        merchantIdentifier: config.merchant.merchantIdentifier,
                        logger: logger
                    )
                },
                walletOrders: try Self.walletOrders(
                    config,
                    data: data,
                    publicURL: publicURL,
                    store: store,
                    sandbox: sandbox,
                    clock: clock
                ),
                apiKeysHint: Self.apiKeysHint(config, data: data, storage: storage)
            )

            // Beside the HTTP server: the query poller, the certificate refresher, the reconciliation
            // scheduler, the settlement listener; each waits until the migrations have run.
            let ready = Readiness()
            self.ready = ready
            services.append(
                QueryPoller(
                    payments: payments,
                    store: store,
                    interval: config.pollInterval,
                    orders: orders,
                    purgeInterval: config.limits.purgeInterval,
                    ready: ready,
                    logger: logger
                )
            )
            // An outside gateway is asked for its current encryption certificate (the built-in sandbox's is known).
            if config.acquirer.gatewayURL != nil {
                services.append(EncryptionCertificateRefresher(client: acquirer.client, ready: ready, logger: logger))
            }
            if config.acquirer.reconcileHour >= 0 {
                services.append(
                    ReconciliationScheduler(
                        service: reconciliation,
                        store: store,
                        hour: config.acquirer.reconcileHour,
                        interval: 600,
                        ready: ready,
                        logger: logger
                    )
                )
            }
            if let postgres = storage.postgres {
                services.append(SettlementListener(database: postgres, payments: payments, logger: logger))
            }
            router = try api.router()
            self.services = services
        }

        /// Orders in Wallet: signed by the configured Order Type ID certificate or, in sandbox mode
        /// without one, by one the sandbox issues; `nil` when off, or in production without one.
        static func walletOrders(
            _ config: ServerConfiguration,
            data: String,
            publicURL: String,
            store: PaymentStore,
            sandbox: (any ServerSandbox)?,
            clock: @escaping @Sendable () -> Date
        ) throws -> WalletOrderService? {
            let settings = config.walletOrders
            guard settings.enabled else { return nil }
            let type = settings.typeIdentifier(merchant: config.merchant)
            let files = [settings.certificateFile, settings.keyFile, settings.intermediateFile]
            let signer: OrderPackageSigner
            if let certificate = files[0], let key = files[1], let intermediate = files[2] {
                do {
                    signer = try OrderPackageSigner(
                        certificateFile: certificate,
                        keyFile: key,
                        intermediateFile: intermediate
                    )
                } catch {
                    throw ConfigurationError("walletOrders: \(error)")
                }
            } else if files.contains(where: { $0 != nil }) {
                throw ConfigurationError(
                    "walletOrders needs certificateFile, keyFile and intermediateFile together (PAYSHEET_ORDER_CERTIFICATE, PAYSHEET_ORDER_KEY, PAYSHEET_ORDER_INTERMEDIATE)"
                )
            } else if config.mode == .sandbox, let sandbox {
                signer = try sandbox.orderSigner(dataFolder: data, orderTypeIdentifier: type)
            } else {
                return nil
            }
            return try WalletOrderService(
                store: store,
                settings: config.merchant,
                walletOrders: settings,
                publicURL: publicURL,
                signer: signer,
                now: clock
            )
        }
    }
}

extension MerchantServer.ServiceParts {
    /// What an unknown API key's 401 adds: in sandbox mode, this server's database and the
    /// command that makes a key for it (a key made with another data folder is in another
    /// database); in production, the command only (the database is not named to callers).
    static func apiKeysHint(
        _ config: ServerConfiguration,
        data: String,
        storage: MerchantServer.StorageParts
    ) -> String? {
        guard config.mode == .sandbox else { return nil }
        let command =
            config.databaseURL == nil
            ? "`paysheet api-key create --data \(data)`"
            : "`paysheet api-key create --database` with this server's database URL"
        return
            "this server's keys are in its database (\(storage.label)); a key made with another data folder or database is unknown here: make one with \(command)"
    }
}
