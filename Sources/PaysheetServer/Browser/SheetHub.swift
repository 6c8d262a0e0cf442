import Foundation
import PaysheetModel
import PaysheetSheet
import PaysheetSheetTokens
import PaysheetToken
import X509

/// The sheet engines of the browser pages using `paysheet.js`, one per page, keyed by an id the
/// server issues (`pg_` and 128 random bits): a page is reached only by whoever was given its id.
/// Pages idle for ``idleSeconds`` are dropped. One client address keeps at most
/// ``pagesPerClient`` (a new page replaces that client's own least recently used one); all
/// clients together at most ``capacity`` (a new page is then refused, and no one else's page is
/// dropped). Each operation's body is bounded by the route, each page's event log by
/// `BrowserPage/logLimit`.
public actor SheetHub {
    /// Most pages kept at once.
    public let capacity: Int
    /// Most pages one client address keeps.
    public let pagesPerClient: Int
    /// Seconds after which an idle page is dropped.
    public let idleSeconds: Double
    let pki: SandboxPKI
    let defaultRecipient: TokenRecipient
    /// Tells the sandbox's merchant sessions from others (pages that check sessions).
    let merchantSessions: SandboxMerchantSessions
    var pages: [String: (page: BrowserPage, used: Double, client: String)] = [:]

    /// A hub whose pages' tokens are issued by `pki` and encrypted to `recipient` (the merchant
    /// server's own payment processing certificate), unless a page configures another certificate.
    public init(
        pki: SandboxPKI,
        recipient: TokenRecipient,
        merchantSessions: SandboxMerchantSessions = SandboxMerchantSessions(),
        capacity: Int = 1_000,
        pagesPerClient: Int = 32,
        idleSeconds: Double = 3_600
    ) {
        self.pki = pki
        self.merchantSessions = merchantSessions
        self.defaultRecipient = recipient
        self.capacity = capacity
        self.pagesPerClient = pagesPerClient
        self.idleSeconds = idleSeconds
    }

    /// A new page for `client` (its address) at wall-clock time `wall`; returns its id.
    func create(client: String, wall: Double) throws(ServiceError) -> String {
        expire(now: wall)
        let own = pages.filter { $0.value.client == client }
        if own.count >= pagesPerClient, let oldest = own.min(by: { $0.value.used < $1.value.used }) {
            pages[oldest.key] = nil
        }
        guard pages.count < capacity else {
            throw ServiceError(
                .tooManyRequests,
                code: "too_many_pages",
                message: "the sandbox keeps \(capacity) simulated pages at most; try again later"
            )
        }
        let id = "pg_" + Secrets.hex(32)
        pages[id] = (
            BrowserPage(
                configuration: pageConfiguration(SheetConfiguration(tokenFactory: defaultFactory), wall: wall),
                wall: wall
            ), wall, client
        )
        return id
    }

    /// How many pages are kept (tests).
    var count: Int { pages.count }

    /// Keys a `configure` operation accepts.
    static let configureKeys: Set<String> = [
        "op", "wallet", "options", "requireUserGesture", "clock", "merchantCertificate", "merchantSessions",
    ]

    /// `configuration` with what every page of this hub has: the session verifier and the page's epoch.
    func pageConfiguration(_ configuration: SheetConfiguration, wall: Double) -> SheetConfiguration {
        var configured = configuration
        configured.merchantSessionVerifier = merchantSessions
        configured.epochMs = wall * 1000
        return configured
    }

    /// Runs the operation `body` for page `id` at wall-clock time `wall` (seconds).
    func handle(page id: String, body: JSONValue, wall: Double) throws(ServiceError) -> JSONValue {
        expire(now: wall)
        guard let entry = pages[id] else {
            throw ServiceError(
                .notFound,
                code: "not_found",
                message:
                    "page \(id.prefix(80)) does not exist: pages are created by POST /paysheet/v1/pages and dropped after \(Int(idleSeconds)) s idle"
            )
        }
        guard case .object(let operation) = body else {
            throw ServiceError.invalid(nil, "the body must be a JSON object (an operation)")
        }
        var page: BrowserPage
        if operation["op"]?.stringValue == "configure" {
            page = try configured(operation, wall: wall)
            return try run(&page, id: id, client: entry.client, ["op": "state"], wall: wall)
        }
        page = entry.page
        return try run(&page, id: id, client: entry.client, operation, wall: wall)
    }

    private func run(
        _ page: inout BrowserPage,
        id: String,
        client: String,
        _ op: JSONObject,
        wall: Double
    ) throws(ServiceError) -> JSONValue {
        do throws(BrowserPage.BridgeError) {
            let answer = try page.handle(op, wall: wall)
            pages[id] = (page, wall, client)
            return .object(answer)
        } catch {
            throw ServiceError.invalid(error.field, error.message)
        }
    }

    var defaultFactory: SandboxTokenFactory { SandboxTokenFactory(pki: pki, recipient: defaultRecipient) }

    private func configured(_ op: JSONObject, wall: Double) throws(ServiceError) -> BrowserPage {
        for key in op.keys where !Self.configureKeys.contains(key) {
            throw ServiceError.invalid(
                key,
                "unknown configuration key (known: \(Self.configureKeys.subtracting(["op"]).sorted().joined(separator: ", ")))"
            )
        }
        var configuration: SheetConfiguration
        do throws(SheetInputError) {
            configuration = try SheetInput.configuration(wallet: op["wallet"], options: op["options"])
        } catch {
            throw ServiceError.invalid(error.field, error.message)
        }
        configuration.tokenFactory = defaultFactory
        if let pem = op["merchantCertificate"], !pem.isNull {
            guard let text = pem.stringValue else {
                throw ServiceError.invalid("merchantCertificate", "must be a PEM certificate (a string)")
            }
            do {
                let recipient = try TokenRecipient(certificate: Certificate(pemEncoded: text))
                configuration.tokenFactory = SandboxTokenFactory(pki: pki, recipient: recipient)
            } catch {
                throw ServiceError.invalid(
                    "merchantCertificate",
                    "not a usable payment processing certificate: \(error)"
                )
            }
        }
        if let sessionsValue = op["merchantSessions"], !sessionsValue.isNull {
            guard let policy = sessionsValue.stringValue.flatMap(MerchantSessionPolicy.init(rawValue:)) else {
                throw ServiceError.invalid("merchantSessions", "must be \"any\" or \"checked\"")
            }
            configuration.merchantSessions = policy
        }
        var page = BrowserPage(configuration: pageConfiguration(configuration, wall: wall), wall: wall)
        if let gestureValue = op["requireUserGesture"], !gestureValue.isNull {
            guard let required = gestureValue.boolValue else {
                throw ServiceError.invalid("requireUserGesture", "must be true or false")
            }
            page.requireUserGesture = required
        }
        if let clockValue = op["clock"], !clockValue.isNull {
            guard let clockName = clockValue.stringValue, clockName == "real" || clockName == "virtual" else {
                throw ServiceError.invalid("clock", "must be \"real\" or \"virtual\"")
            }
            page.virtualClock = clockName == "virtual"
        }
        return page
    }

    /// Drops idle pages.
    private func expire(now: Double) {
        if pages.contains(where: { now - $0.value.used > idleSeconds }) {
            pages = pages.filter { now - $0.value.used <= idleSeconds }
        }
    }
}
