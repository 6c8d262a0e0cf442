import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import PaysheetModel
import PaysheetToken
import ServiceLifecycle
import UnionPay
import X509

extension MerchantServer {
    /// The merchant's token keys and the trust that tokens are verified against.
    struct TokenParts {
        let merchantKey: MerchantKey
        /// The payment processing certificate file (tokens are encrypted to it).
        let paymentCertificate: String
        let decryptor: PaymentTokenDecryptor
        /// The same, as a refusal names it.
        let trust: TokenTrustDescription

        init(_ config: ServerConfiguration, data: String, sandbox: (any ServerSandbox)?) throws {
            if let cert = config.tokens.certificateFile, let key = config.tokens.keyFile {
                merchantKey = try MerchantKey(certificateFile: cert, privateKeyFile: key, permissions: .refuse)
                paymentCertificate = cert
            } else {
                (merchantKey, paymentCertificate) = try MerchantServer.sandbox(
                    sandbox,
                    for: "tokens.certificateFile and tokens.keyFile are not set"
                ).merchantKey(dataFolder: data, merchantIdentifier: config.merchant.merchantIdentifier)
            }
            var roots: [Certificate] = []
            if config.tokens.trustApple { roots += TrustAnchors.apple.roots }
            if config.tokens.trustSandbox {
                roots.append(
                    try MerchantServer.sandbox(sandbox, for: "tokens.trustSandbox is on").tokenRoot(dataFolder: data)
                )
            }
            trust = TokenTrustDescription(
                sandboxDataFolder: config.tokens.trustSandbox ? data : nil,
                trustsApple: config.tokens.trustApple,
                paymentCertificateFile: paymentCertificate
            )
            decryptor = PaymentTokenDecryptor(
                keys: MerchantKeyring([merchantKey]),
                verifier: PaymentTokenVerifier(trust: TrustAnchors(roots)),
                replayGuard: nil
            )
        }
    }

    /// The UnionPay client, its credentials and trust, and (unless an external gateway is
    /// configured) the sandbox gateway it talks to; `sandbox` stands in for what is not configured.
    struct AcquirerParts {
        let client: UnionPayClient
        let acquirer: UnionPayAcquirer
        let gatewayURL: String
        /// The sandbox gateway's URL, when it runs here.
        let sandboxURL: String?
        /// The sandbox gateway's HTTP server, when it runs here.
        let services: [any Service]

        init(
            _ config: ServerConfiguration,
            data: String,
            publicURL: String,
            http: HTTPClient,
            connections: ConnectionSettings,
            sandbox: (any ServerSandbox)?,
            logger: Logger
        ) throws {
            // acquirer.signMethod is an ACPSignMethod: 01 or 11, nothing else can be configured.
            guard (-1...23).contains(config.acquirer.reconcileHour) else {
                throw ConfigurationError(
                    "acquirer.reconcileHour \(config.acquirer.reconcileHour) is neither -1 (off) nor an hour 0 to 23"
                )
            }
            // The sandbox stands in only for what is not configured (never in production).
            func sandboxFor(_ what: String) throws -> any ServerSandbox {
                try MerchantServer.sandbox(sandbox, for: what)
            }
            let merchantId = config.acquirer.merchantId
            let secureKey: String? =
                config.acquirer.signMethod == .secureKey
                ? try config.acquirer.secureKeyFile.map {
                    try KeyFile.readPrivateKeyText($0, policy: .refuse).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                    ?? sandboxFor("acquirer.signMethod is 11 without acquirer.secureKeyFile").acquirerSecureKey(
                        dataFolder: data,
                        merchantId: merchantId
                    )
                : nil
            let merchantACP: ACPCredentials
            if let key = config.acquirer.signingKeyFile, let cert = config.acquirer.signingCertificateFile {
                merchantACP = try ACPCredentials(keyFile: key, certificateFile: cert)
            } else {
                merchantACP = try sandboxFor(
                    "acquirer.signingKeyFile and acquirer.signingCertificateFile are not set"
                ).acquirerMerchantCredentials(dataFolder: data, merchantId: merchantId)
            }
            // The gateway is identified as UnionPay's SDKs identify it: root, middle certificate, owner.
            let configuredRoots = try Self.certificates(config.acquirer.trustedRootFiles)
            let configuredMiddles = try Self.certificates(config.acquirer.intermediateFiles)
            var gatewayRoots = configuredRoots ?? []
            var gatewayMiddles = configuredMiddles ?? []
            if configuredRoots == nil || configuredMiddles == nil {
                let trust = try sandboxFor(
                    "acquirer.trustedRootFiles and acquirer.intermediateFiles are not set"
                ).acquirerTrust(dataFolder: data)
                gatewayRoots = configuredRoots ?? trust.roots
                gatewayMiddles = configuredMiddles ?? trust.intermediates
            }
            // UnionPay's encryption certificate for card data: the configured file, or the sandbox's
            // (whose key the built-in sandbox gateway decrypts with), read once.
            let sandboxEncryption: ACPCredentials? =
                config.acquirer.encryptionCertificateFile == nil || config.acquirer.gatewayURL == nil
                ? try sandboxFor(
                    config.acquirer.gatewayURL == nil
                        ? "acquirer.gatewayURL is not set" : "acquirer.encryptionCertificateFile is not set"
                ).acquirerEncryption(dataFolder: data) : nil
            let encryptionCertificate: Certificate
            if let file = config.acquirer.encryptionCertificateFile {
                encryptionCertificate = try Certificate(pemEncoded: String(contentsOfFile: file, encoding: .utf8))
            } else if let sandboxEncryption {
                encryptionCertificate = sandboxEncryption.certificate
            } else {
                throw ConfigurationError("acquirer.encryptionCertificateFile is needed with an external gateway")
            }
            // As UnionPay's SDKs' ifValidateCNName: UnionPay's name only in production; in sandbox
            // mode, UnionPay's test environment's owners too.
            let gatewayOwners =
                config.acquirer.gatewayOwners.map { Set($0) }
                ?? ACPGatewayOwners.defaults(forProduction: config.mode == .production)

            if let external = config.acquirer.gatewayURL {
                gatewayURL = external
                sandboxURL = nil
                services = []
            } else {
                let (host, port) = try ServerConfiguration.hostPort(
                    config.acquirer.sandboxListen,
                    what: "sandbox acquirer listen address"
                )
                let url = "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
                gatewayURL = url
                sandboxURL = url
                services = [
                    try sandboxFor("acquirer.gatewayURL is not set").acquirerGateway(
                        dataFolder: data,
                        merchants: [merchantACP],
                        secureKeys: secureKey.map { [merchantId: $0] } ?? [:],
                        encryption: sandboxEncryption,
                        paymentDataField: config.acquirer.paymentDataField,
                        http: http,
                        server: .guarded(connections, name: "paysheet-acquirer-sandbox", logger: logger),
                        configuration: .init(
                            address: .hostname(host, port: port),
                            serverName: "paysheet-acquirer-sandbox",
                            backlog: config.connections.backlog
                        ),
                        logger: logger
                    )
                ]
            }
            var unionPay = UnionPayConfiguration(
                gatewayURL: gatewayURL,
                merchantId: config.acquirer.merchantId,
                notificationURL: publicURL + "/v1/notifications/unionpay",
                bizType: config.acquirer.bizType,
                paymentDataField: config.acquirer.paymentDataField,
                timeout: config.acquirer.timeout,
                fileDownloadURL: config.acquirer.fileDownloadURL
            )
            unionPay.tokenRequestorId = config.acquirer.tokenRequestorId
            if configuredRoots == nil, config.acquirer.gatewayURL != nil {
                // The sandbox's trust, and a gateway run apart: both must come from one data folder.
                unionPay.untrustedAnswerHint =
                    " (this server trusts the UnionPay sandbox PKI of its data folder \(data): run `paysheet acquirer-sandbox` with --data \(data), or set acquirer.trustedRootFiles and acquirer.intermediateFiles to the gateway's)"
            }
            client = UnionPayClient(
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
                encryptor: try SensitiveDataEncryptor(certificate: encryptionCertificate)
            )
            acquirer = UnionPayAcquirer(client: client)
        }

        /// The certificates in `files`; `nil` when none are configured.
        static func certificates(_ files: [String]?) throws -> [Certificate]? {
            guard let files, !files.isEmpty else { return nil }
            return try files.map { try Certificate(pemEncoded: String(contentsOfFile: $0, encoding: .utf8)) }
        }
    }

    /// The database: the data folder's SQLite, or PostgreSQL (whose pool is a service).
    struct StorageParts {
        let database: any SQLDatabase
        let postgres: PostgresDatabase?
        /// `sqlite:…` or the PostgreSQL URL without its password, and its TLS mode.
        let label: String
        let services: [any Service]

        init(_ config: ServerConfiguration, data: String, logger: Logger) async throws {
            let url = config.databaseURL ?? "sqlite:" + data + "/paysheet.sqlite"
            if url.hasPrefix("postgres") {
                let postgres = try PostgresDatabase(
                    url: url,
                    statementTimeout: config.databaseStatementTimeout,
                    logger: logger
                )
                database = postgres
                self.postgres = postgres
                services = [postgres.client]
                var label = url
                if var components = URLComponents(string: url), components.password != nil {
                    components.password = "***"
                    label = components.string ?? "postgres"
                }
                self.label = label + " (TLS: \(PostgresTLSMode(url: url).rawValue))"
            } else if url.hasPrefix("sqlite:") {
                database = try await SQLiteDatabase.open(path: String(url.dropFirst("sqlite:".count)), logger: logger)
                postgres = nil
                services = []
                label = url
            } else {
                throw ConfigurationError("database URL \(url) is neither sqlite:PATH nor postgres://…")
            }
        }
    }
}
