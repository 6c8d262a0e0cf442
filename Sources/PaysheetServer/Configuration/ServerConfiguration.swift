import PaysheetPayments
import Foundation
import Logging
import UnionPay

/// Every setting of `paysheet serve`. Embedded defaults need nothing; a JSON file (`--config`)
/// and then environment variables (`PAYSHEET_…`) override them.
public struct ServerConfiguration: Sendable, Codable, Equatable {
    /// `sandbox` (the default) or `production`, which refuses to start with any sandbox part
    /// (see ``ProductionCheck``). `PAYSHEET_MODE`, `paysheet serve --mode`.
    public var mode: ServerMode = .sandbox
    /// Serve `paysheet.js`, its browser bridge, the demo store and `/v1/sandbox/*` (sandbox only;
    /// they also need ``TokenSettings/trustSandbox``). `PAYSHEET_SANDBOX_TOOLS`.
    public var sandboxTools: Bool = true
    /// Where the merchant server listens (`host:port`). `PAYSHEET_LISTEN`.
    public var listen: String = "127.0.0.1:8080"
    /// The server's URL as the acquirer reaches it (notifications). `PAYSHEET_PUBLIC_URL`; by
    /// default `http://` + ``listen``.
    public var publicURL: String?
    /// The data folder (keys, certificates, the SQLite file). `PAYSHEET_DATA`.
    public var dataFolder: String = ".paysheet"
    /// `sqlite:PATH` (default `sqlite:<data>/paysheet.sqlite`) or `postgres://user:pass@host:port/db`,
    /// with `?sslmode=disable|prefer|require|verify-ca|verify-full&sslrootcert=CA_FILE` as libpq
    /// reads them (default `prefer`). `PAYSHEET_DATABASE_URL`.
    public var databaseURL: String?
    /// Seconds a PostgreSQL statement may take before the database is taken to be out of reach
    /// (the statement given up, its connection closed, the request answered 503).
    /// `PAYSHEET_DATABASE_STATEMENT_TIMEOUT`.
    public var databaseStatementTimeout: Double = PostgresDatabase.defaultStatementTimeout
    /// The key that seals stored merchant tokens (agreements): a file holding 32 bytes in Base64,
    /// mode 600; made when absent. By default `<data>/credential-key`; several servers on one
    /// database need the same file. `PAYSHEET_CREDENTIAL_KEY`.
    public var credentialKeyFile: String?

    /// The acquirer.
    public struct AcquirerSettings: Sendable, Codable, Equatable {
        /// The gateway URL; `nil` starts the sandbox gateway beside the server. `PAYSHEET_ACQUIRER_URL`.
        public var gatewayURL: String?
        /// Where the built-in sandbox gateway listens. `PAYSHEET_SANDBOX_ACQUIRER_LISTEN`.
        public var sandboxListen: String = "127.0.0.1:8081"
        /// `merId`. `PAYSHEET_ACQUIRER_MERCHANT_ID`.
        public var merchantId: String = "777290058110048"
        /// The merchant's ACP signing key and certificate (PEM); by default issued by the sandbox
        /// PKI in the data folder. `PAYSHEET_ACQUIRER_KEY`, `PAYSHEET_ACQUIRER_CERTIFICATE`.
        public var signingKeyFile: String?
        /// See ``signingKeyFile``.
        public var signingCertificateFile: String?
        /// Roots that sign the gateway's certificates (PEM); by default the sandbox root.
        /// `PAYSHEET_ACQUIRER_ROOTS` (comma-separated).
        public var trustedRootFiles: [String]?
        /// The middle certificates that issue the gateway's signing certificate (PEM; UnionPay's
        /// `acp_…_middle.cer`); by default the sandbox's. `PAYSHEET_ACQUIRER_INTERMEDIATES`.
        public var intermediateFiles: [String]?
        /// The owner fields (third `@` part of the CN) a gateway signing certificate may have; by
        /// default, as UnionPay's SDKs' `ifValidateCNName`, `中国银联股份有限公司` only in production
        /// mode, and in sandbox mode that or `00040000:SIGN` (UnionPay's test environment, whose
        /// current gateway certificate names `中国银联股份有限公司`; Paysheet's sandbox).
        /// `PAYSHEET_ACQUIRER_OWNERS`.
        public var gatewayOwners: [String]?
        /// `signMethod`: `01` (SHA256withRSA with the signing certificate) or `11` (SHA-256 with
        /// the secure key shared with UnionPay: no RSA). `PAYSHEET_ACQUIRER_SIGN_METHOD`.
        public var signMethod: ACPSignMethod = .rsa
        /// The secure key for `signMethod` `11` (a file holding it; by default the sandbox's,
        /// made in the data folder). `PAYSHEET_ACQUIRER_SECURE_KEY`.
        public var secureKeyFile: String?
        /// The request field for the payment data (see `UnionPayConfiguration`). `PAYSHEET_ACQUIRER_PAYMENT_DATA_FIELD`.
        public var paymentDataField: String = "cardTransData"
        /// `bizType`.
        public var bizType: String = "000802"
        /// `trId`: the token requestor id UnionPay assigns for its token payment product, sent with
        /// merchant-initiated charges of stored merchant tokens (UnionPay's demo value by default).
        /// `PAYSHEET_ACQUIRER_TOKEN_REQUESTOR_ID`.
        public var tokenRequestorId: String = "62000000001"
        /// Seconds to wait for a synchronous answer. `PAYSHEET_ACQUIRER_TIMEOUT`.
        public var timeout: Double = 10
        /// UnionPay's encryption certificate (PEM; `acp_prod_enc.cer`): card data is encrypted to it
        /// (`encryptCertId`); replaced daily by the gateway's current one (`txnType=95`). By default
        /// the sandbox's. `PAYSHEET_ACQUIRER_ENCRYPTION_CERTIFICATE`.
        public var encryptionCertificateFile: String?
        /// Where file transfers go (UnionPay's `https://filedownload.95516.com/`); by default the
        /// gateway URL. `PAYSHEET_ACQUIRER_FILE_URL`.
        public var fileDownloadURL: String?
        /// The Beijing hour after which the previous clearing day is reconciled (UnionPay's file is
        /// ready in the morning); `-1`: never by itself (`POST /v1/reconciliations` still does it).
        /// `PAYSHEET_RECONCILE_HOUR`.
        public var reconcileHour: Int = 10
    }

    /// The acquirer (UnionPay ACP 5.1.0).
    public var acquirer = AcquirerSettings()

    /// Payment processing keys (token decryption).
    public struct TokenSettings: Sendable, Codable, Equatable {
        /// Payment processing certificate and key (PEM); by default the sandbox merchant's in the
        /// data folder. `PAYSHEET_PAYMENT_CERTIFICATE`, `PAYSHEET_PAYMENT_KEY`.
        public var certificateFile: String?
        /// See ``certificateFile``.
        public var keyFile: String?
        /// Accept tokens signed by the sandbox PKI (on by default; turn off in production). `PAYSHEET_TRUST_SANDBOX`.
        public var trustSandbox: Bool = true
        /// Accept tokens signed under Apple Root CA - G3.
        public var trustApple: Bool = true
    }

    /// Token settings.
    public var tokens = TokenSettings()

    /// Merchant validation: the sandbox's sessions, or Apple's with the merchant identity.
    /// `PAYSHEET_MERCHANT_VALIDATION` (`sandbox`, `apple`).
    public var merchantValidation: MerchantValidationMode = .sandbox
    /// Merchant identity certificate and key (PEM) for `apple` validation.
    /// `PAYSHEET_IDENTITY_CERTIFICATE`, `PAYSHEET_IDENTITY_KEY`.
    public var identityCertificateFile: String?
    /// See ``identityCertificateFile``.
    public var identityKeyFile: String?

    /// The store: name, coupons, taxes, surcharges, shipping policy, networks.
    public var merchant = MerchantSettings()
    /// The query schedule.
    public var lifecycle = LifecycleConfiguration()
    /// Seconds an authorization waits for a certain outcome (the sheet allows 30). `PAYSHEET_AUTHORIZE_WAIT`.
    public var authorizeWait: Double = 20
    /// Seconds after its charge during which a shopper may still cancel a paid order (then only
    /// the merchant's key may). `PAYSHEET_SHOPPER_CANCEL_WINDOW`.
    public var shopperCancelWindow: Double = 120
    /// Seconds `/health` answers 503 after SIGTERM while requests are still served, before the
    /// server stops (a load balancer's checks take it out of rotation meanwhile). `PAYSHEET_DRAIN_SECONDS`.
    public var drainSeconds: Double = 0
    /// Seconds between scans for due queries. `PAYSHEET_POLL_INTERVAL`.
    public var pollInterval: Double = 0.25
    /// Seconds between an authorization's own reads of its payment while this server hears the
    /// other servers' settlement announcements (PostgreSQL's `LISTEN`): the safety net for an
    /// announcement that was lost (without the announcements, 0.5 s). Above 0, at most 3,600.
    /// `PAYSHEET_ANNOUNCED_READ_INTERVAL`.
    public var announcedReadInterval: Double = 10
    /// Log level (`info`, `debug`, …). `PAYSHEET_LOG_LEVEL`.
    public var logLevel: Logger.Level = .info

    /// What one client may hold of the server: connections and how long each may take. The same
    /// caps and deadlines guard the built-in sandbox gateway. docs/server.md ("Connections") says
    /// what to set on a proxy in front.
    public struct ConnectionLimits: Sendable, Codable, Equatable {
        /// Open connections at most (lowered to what the process's file limit allows). At the cap a
        /// new connection closes the one that has waited longest with no request in progress, or is
        /// answered 503 when every connection is in a request. `PAYSHEET_MAX_CONNECTIONS`.
        public var maxConnections: Int = 4096
        /// Open connections from one client address at most; more are answered 503. Behind a proxy
        /// every connection comes from the proxy: set this to at least its connections to this
        /// server. `PAYSHEET_MAX_CONNECTIONS_PER_ADDRESS`.
        public var maxConnectionsPerAddress: Int = 128
        /// Seconds a keep-alive connection may wait for its next request. `PAYSHEET_IDLE_TIMEOUT`.
        public var idleTimeout: Double = 60
        /// Seconds from a connection's opening (or a request's first byte) to its complete head.
        /// `PAYSHEET_HEADER_TIMEOUT`.
        public var headerTimeout: Double = 10
        /// Seconds from a request's head to the end of its body. `PAYSHEET_BODY_TIMEOUT`.
        public var bodyTimeout: Double = 30
        /// Seconds at most the rest of a body is read and thrown away after an answer that did not
        /// wait for it (a 413), so that a client that sends its whole body before reading gets the
        /// answer; a pause of a second ends it sooner (nginx's lingering close). `PAYSHEET_DRAIN_TIMEOUT`.
        public var drainTimeout: Double = 10
        /// Connections the kernel may hold before the server accepts them (the listen backlog; the
        /// system caps it, `net.core.somaxconn` on Linux). A flood must not fill it: a connection
        /// that waits there is not yet under the caps and deadlines above. `PAYSHEET_BACKLOG`.
        public var backlog: Int = 4096

        /// The defaults.
        public init() {}
    }

    /// Connection caps and deadlines.
    public var connections = ConnectionLimits()

    /// What callers without a merchant key may make the server keep, and how fast.
    public struct RequestLimits: Sendable, Codable, Equatable {
        /// Orders one client address may create without a merchant key, a minute (429 with
        /// `Retry-After` above). `PAYSHEET_ANONYMOUS_ORDERS_PER_MINUTE`.
        public var anonymousOrdersPerMinute: Int = 30
        /// Coupon codes one client address may try, a minute. `PAYSHEET_COUPON_ATTEMPTS_PER_MINUTE`.
        public var couponAttemptsPerMinute: Int = 20
        /// Codes that are not valid one order may be sent; then its coupon route answers 429 for good.
        /// `PAYSHEET_COUPON_ATTEMPTS_PER_ORDER`.
        public var couponAttemptsPerOrder: Int = 10
        /// Seconds an order with no payment is kept: then it takes none and is deleted.
        /// `PAYSHEET_ORDER_LIFETIME`.
        public var orderLifetime: Double = 86_400
        /// Seconds between deletions of expired orders (and of old idempotency keys).
        /// `PAYSHEET_PURGE_INTERVAL`.
        public var purgeInterval: Double = 3_600
        /// Stored bytes of one order at most (its lines, methods and request); larger orders are
        /// refused (413 `order_too_large`). `PAYSHEET_MAX_ORDER_BYTES`.
        public var maxOrderBytes: Int = 32_768
        /// Proxies whose `X-Forwarded-For` names the client (its last address): behind one, every
        /// caller would otherwise be the proxy. `PAYSHEET_TRUSTED_PROXIES` (comma-separated).
        public var trustedProxies: [String] = []

        /// The defaults.
        public init() {}
    }

    /// Request limits.
    public var limits = RequestLimits()

    /// Orders in Wallet (`WalletOrderSettings`).
    public var walletOrders = WalletOrderSettings()

    /// Traces (OTLP export, off by default) and the log's format (`TelemetrySettings`).
    public var telemetry = TelemetrySettings()

    /// The defaults.
    public init() {}

    /// Applies `PAYSHEET_…` variables from `environment`.
    public mutating func apply(environment: [String: String]) throws {
        func double(_ name: String) throws -> Double? {
            guard let value = environment[name] else { return nil }
            guard let number = Double(value) else { throw ConfigurationError("\(name)=\(value) is not a number") }
            return number
        }
        func bool(_ value: String) -> Bool { ["1", "true", "yes", "on"].contains(value.lowercased()) }
        if let value = environment["PAYSHEET_MODE"] {
            guard let chosen = ServerMode(rawValue: value) else {
                throw ConfigurationError("PAYSHEET_MODE=\(value) is neither sandbox nor production")
            }
            mode = chosen
        }
        if let value = environment["PAYSHEET_SANDBOX_TOOLS"] { sandboxTools = bool(value) }
        func count(_ name: String) throws -> Int? {
            guard let value = environment[name] else { return nil }
            guard let number = Int(value), number > 0 else {
                throw ConfigurationError("\(name)=\(value) is not a positive whole number")
            }
            return number
        }
        func seconds(_ name: String) throws -> Double? {
            guard let number = try double(name) else { return nil }
            guard number > 0, number.isFinite else {
                throw ConfigurationError("\(name)=\(number) is not a positive number of seconds")
            }
            return number
        }
        if let value = try count("PAYSHEET_MAX_CONNECTIONS") { connections.maxConnections = value }
        if let value = try count("PAYSHEET_MAX_CONNECTIONS_PER_ADDRESS") {
            connections.maxConnectionsPerAddress = value
        }
        if let value = try seconds("PAYSHEET_IDLE_TIMEOUT") { connections.idleTimeout = value }
        if let value = try seconds("PAYSHEET_HEADER_TIMEOUT") { connections.headerTimeout = value }
        if let value = try seconds("PAYSHEET_BODY_TIMEOUT") { connections.bodyTimeout = value }
        if let value = try seconds("PAYSHEET_DRAIN_TIMEOUT") { connections.drainTimeout = value }
        if let value = try count("PAYSHEET_BACKLOG") { connections.backlog = value }
        if let value = environment["PAYSHEET_ANONYMOUS_ORDERS_PER_MINUTE"] {
            guard let number = Int(value), number >= 0 else {
                throw ConfigurationError("PAYSHEET_ANONYMOUS_ORDERS_PER_MINUTE=\(value) is not a whole number")
            }
            limits.anonymousOrdersPerMinute = number
        }
        if let value = try count("PAYSHEET_COUPON_ATTEMPTS_PER_MINUTE") { limits.couponAttemptsPerMinute = value }
        if let value = try count("PAYSHEET_COUPON_ATTEMPTS_PER_ORDER") { limits.couponAttemptsPerOrder = value }
        if let value = try seconds("PAYSHEET_ORDER_LIFETIME") { limits.orderLifetime = value }
        if let value = try seconds("PAYSHEET_PURGE_INTERVAL") { limits.purgeInterval = value }
        if let value = try count("PAYSHEET_MAX_ORDER_BYTES") { limits.maxOrderBytes = value }
        if let value = environment["PAYSHEET_TRUSTED_PROXIES"] {
            limits.trustedProxies = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let value = environment["PAYSHEET_LISTEN"] { listen = value }
        if let value = environment["PAYSHEET_PUBLIC_URL"] { publicURL = value }
        if let value = environment["PAYSHEET_CREDENTIAL_KEY"] { credentialKeyFile = value }
        if let value = environment["PAYSHEET_DATA"] { dataFolder = value }
        if let value = environment["PAYSHEET_DATABASE_URL"] { databaseURL = value }
        if let value = environment["PAYSHEET_ACQUIRER_URL"] { acquirer.gatewayURL = value }
        if let value = environment["PAYSHEET_SANDBOX_ACQUIRER_LISTEN"] { acquirer.sandboxListen = value }
        if let value = environment["PAYSHEET_ACQUIRER_MERCHANT_ID"] { acquirer.merchantId = value }
        if let value = environment["PAYSHEET_ACQUIRER_KEY"] { acquirer.signingKeyFile = value }
        if let value = environment["PAYSHEET_ACQUIRER_CERTIFICATE"] { acquirer.signingCertificateFile = value }
        if let value = environment["PAYSHEET_ACQUIRER_ROOTS"] {
            acquirer.trustedRootFiles = value.split(separator: ",").map(String.init)
        }
        if let value = environment["PAYSHEET_ACQUIRER_SIGN_METHOD"] {
            guard let method = ACPSignMethod(rawValue: value) else {
                throw ConfigurationError(
                    "PAYSHEET_ACQUIRER_SIGN_METHOD=\(value) is neither 01 (RSA certificate) nor 11 (secure key)"
                )
            }
            acquirer.signMethod = method
        }
        if let value = environment["PAYSHEET_ACQUIRER_SECURE_KEY"] { acquirer.secureKeyFile = value }
        if let value = environment["PAYSHEET_ACQUIRER_INTERMEDIATES"] {
            acquirer.intermediateFiles = value.split(separator: ",").map(String.init)
        }
        if let value = environment["PAYSHEET_ACQUIRER_OWNERS"] {
            acquirer.gatewayOwners = value.split(separator: ",").map(String.init)
        }
        if let value = environment["PAYSHEET_ACQUIRER_PAYMENT_DATA_FIELD"] { acquirer.paymentDataField = value }
        if let value = try double("PAYSHEET_ACQUIRER_TIMEOUT") { acquirer.timeout = value }
        if let value = environment["PAYSHEET_ACQUIRER_FILE_URL"] { acquirer.fileDownloadURL = value }
        if let value = environment["PAYSHEET_ACQUIRER_TOKEN_REQUESTOR_ID"] { acquirer.tokenRequestorId = value }
        if let value = environment["PAYSHEET_ACQUIRER_ENCRYPTION_CERTIFICATE"] {
            acquirer.encryptionCertificateFile = value
        }
        if let value = environment["PAYSHEET_RECONCILE_HOUR"] {
            guard let hour = Int(value), (-1...23).contains(hour) else {
                throw ConfigurationError("PAYSHEET_RECONCILE_HOUR=\(value) is not -1 or an hour 0 to 23")
            }
            acquirer.reconcileHour = hour
        }
        if let value = environment["PAYSHEET_PAYMENT_CERTIFICATE"] { tokens.certificateFile = value }
        if let value = environment["PAYSHEET_PAYMENT_KEY"] { tokens.keyFile = value }
        if let value = environment["PAYSHEET_TRUST_SANDBOX"] { tokens.trustSandbox = bool(value) }
        if let value = environment["PAYSHEET_MERCHANT_VALIDATION"] {
            guard let chosen = MerchantValidationMode(rawValue: value) else {
                throw ConfigurationError("PAYSHEET_MERCHANT_VALIDATION=\(value) is neither sandbox nor apple")
            }
            merchantValidation = chosen
        }
        if let value = environment["PAYSHEET_IDENTITY_CERTIFICATE"] { identityCertificateFile = value }
        if let value = environment["PAYSHEET_IDENTITY_KEY"] { identityKeyFile = value }
        if let value = try double("PAYSHEET_AUTHORIZE_WAIT") { authorizeWait = value }
        if let value = try seconds("PAYSHEET_DATABASE_STATEMENT_TIMEOUT") { databaseStatementTimeout = value }
        if let value = try double("PAYSHEET_POLL_INTERVAL") { pollInterval = value }
        if let value = try double("PAYSHEET_ANNOUNCED_READ_INTERVAL") { announcedReadInterval = value }
        if let value = try double("PAYSHEET_SHOPPER_CANCEL_WINDOW") { shopperCancelWindow = value }
        if let value = try double("PAYSHEET_DRAIN_SECONDS") { drainSeconds = value }
        try walletOrders.apply(environment: environment)
        try telemetry.apply(environment: environment)
        if let value = environment["PAYSHEET_LOG_LEVEL"] {
            guard let level = Logger.Level(rawValue: value) else {
                throw ConfigurationError(
                    "PAYSHEET_LOG_LEVEL=\(value) is not a level (\(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            logLevel = level
        }
    }

    /// Reads `file` (JSON) over the defaults, then the environment.
    public static func load(file: String?, environment: [String: String]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError("cannot read configuration file \(file)")
            }
            // Every member is optional: the file is laid over the defaults, member by member.
            guard let given = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ConfigurationError("configuration file \(file) is not a JSON object")
            }
            let defaults = try JSONSerialization.jsonObject(with: JSONEncoder().encode(configuration)) as! [String: Any]
            let merged = try merge(given, over: defaults, path: "")
            do {
                configuration = try JSONDecoder().decode(
                    ServerConfiguration.self,
                    from: JSONSerialization.data(withJSONObject: merged)
                )
            } catch {
                throw ConfigurationError("configuration file \(file): \(error)")
            }
        }
        try configuration.apply(environment: environment)
        guard PaymentService.acceptsAnnouncedReadInterval(configuration.announcedReadInterval) else {
            throw ConfigurationError(
                "announcedReadInterval \(configuration.announcedReadInterval) is not a number of seconds above 0 and at most 3600"
            )
        }
        guard PostgresDatabase.acceptsStatementTimeout(configuration.databaseStatementTimeout) else {
            throw ConfigurationError(
                "databaseStatementTimeout \(configuration.databaseStatementTimeout) is not a number of seconds above 0 and at most 86400"
            )
        }
        return configuration
    }

    /// `given` over `defaults`; members that are not settings are refused by name.
    static func merge(_ given: [String: Any], over defaults: [String: Any], path: String) throws -> [String: Any] {
        var out = defaults
        for (key, value) in given {
            let name = path.isEmpty ? key : path + "." + key
            // Optional settings are absent from the encoded defaults; dictionaries (coupons, tax rates) are open.
            if let inner = value as? [String: Any], let base = defaults[key] as? [String: Any],
                !Self.openDictionaries.contains(name)
            {
                out[key] = try merge(inner, over: base, path: name)
            } else if defaults[key] != nil || Self.optionalSettings.contains(name)
                || Self.openDictionaries.contains(name)
            {
                out[key] = value
            } else {
                throw ConfigurationError("\(name) is not a setting")
            }
        }
        return out
    }

    static let optionalSettings: Set<String> = [
        "publicURL", "databaseURL", "credentialKeyFile", "merchant.managementURL", "merchant.tokenNotificationURL",
        "identityCertificateFile",
        "identityKeyFile", "acquirer.gatewayURL", "acquirer.signingKeyFile",
        "acquirer.signingCertificateFile", "acquirer.trustedRootFiles", "acquirer.intermediateFiles",
        "acquirer.gatewayOwners", "acquirer.secureKeyFile", "acquirer.fileDownloadURL",
        "acquirer.encryptionCertificateFile", "tokens.certificateFile", "tokens.keyFile",
        "merchant.shipping.countries", "merchant.shipping.regions", "walletOrders.orderTypeIdentifier",
        "walletOrders.certificateFile", "walletOrders.keyFile", "walletOrders.intermediateFile",
        "walletOrders.orderManagementURL",
    ]
    static let openDictionaries: Set<String> = [
        "merchant.coupons", "merchant.taxRates", "merchant.surcharges", "merchant.shipping.regions",
    ]

    /// `host` and `port` of `text` (`host:port`); `what` names the setting in the error.
    public static func hostPort(_ text: String, what: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else {
            throw ConfigurationError("\(what) \(text) is not host:port")
        }
        return (String(text[..<colon]), port)
    }
}

/// A setting that cannot be used.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public var description: String
    package init(_ description: String) { self.description = description }
}

/// Where merchant sessions come from.
public enum MerchantValidationMode: String, Sendable, Codable, CaseIterable {
    /// The sandbox's merchant sessions (sandbox mode only).
    case sandbox
    /// Apple's, requested with the merchant identity certificate.
    case apple
}
