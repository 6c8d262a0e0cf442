import Foundation
import PaysheetModel
import PaysheetServer
import PaysheetSheet
import PaysheetSheetTokens
import PaysheetToken
import X509

/// The sheet engines of the browser pages using `paysheet.js`, one per page, keyed by an id the
/// server issues (`pg_` and 128 random bits): a page is reached only by whoever was given its id.
/// Pages idle for ``idleSeconds`` are dropped.
///
/// Bounds, so that no client takes the bridge from another: one client (an IPv4 address, or an
/// IPv6 /64, which one host may hold whole) keeps at most ``pagesPerClient`` pages, a new one
/// replacing that client's own least recently used. All clients together keep at most
/// ``capacity``; when the hub is full, a new page takes the place of a page of the client with the
/// most pages (of those, the page idle longest), which is the asking client itself when no other
/// has more. So a new page is never refused, a client's page is never dropped for a client with as
/// many pages or more, and a flood from some addresses is served from their own pages: an address
/// with fewer pages than the heaviest keeps them all. (Only when every client holds a single page,
/// as many clients as the capacity, does a newcomer take the longest idle of them.) What one page
/// keeps is bounded by `BrowserPage` (`BrowserPage.keptLimit`, its logs), each operation's body
/// by the route (`BrowserPage.operationLimit`).
public actor SheetHub {
    /// Most pages kept at once.
    public let capacity: Int
    /// Most pages one client keeps.
    public let pagesPerClient: Int
    /// Seconds after which an idle page is dropped.
    public let idleSeconds: Double
    let pki: SandboxPKI
    let defaultRecipient: TokenRecipient
    /// Tells the sandbox's merchant sessions from others (pages that check sessions).
    let merchantSessions: SandboxMerchantSessions
    /// Told of each merchant token a page's sheet issues, with the page's id (the sandbox's
    /// token events, `SandboxMerchantTokenEvents`); `nil`: nobody is told.
    let onMerchantToken: (@Sendable (_ page: String, SandboxIssuedMerchantToken) -> Void)?
    /// A kept page: its engine, when it was last used (wall-clock seconds) and its client.
    struct Entry {
        var page: BrowserPage
        var used: Double
        var client: String
    }
    var pages: [String: Entry] = [:]
    /// The ids of each client's pages.
    var byClient: [String: Set<String>] = [:]
    /// The simulated wallet's check of the orders payments give it (`SheetHub+WalletOrders.swift`).
    let walletOrderChecker: WalletOrderChecker
    /// Pages whose order is being fetched now.
    var checkingWalletOrders: Set<String> = []

    /// A hub whose pages' tokens are issued by `pki` and encrypted to `recipient` (the merchant
    /// server's own payment processing certificate), unless a page configures another certificate.
    public init(
        pki: SandboxPKI,
        recipient: TokenRecipient,
        merchantSessions: SandboxMerchantSessions = SandboxMerchantSessions(),
        capacity: Int = 1_000,
        pagesPerClient: Int = 32,
        idleSeconds: Double = 3_600,
        onMerchantToken: (@Sendable (_ page: String, SandboxIssuedMerchantToken) -> Void)? = nil
    ) {
        self.onMerchantToken = onMerchantToken
        self.pki = pki
        self.merchantSessions = merchantSessions
        self.defaultRecipient = recipient
        self.capacity = max(1, capacity)
        self.pagesPerClient = max(1, pagesPerClient)
        self.idleSeconds = idleSeconds
        // The wallet trusts the sandbox's root, which issues the sandbox's Order Type ID certificates.
        self.walletOrderChecker = WalletOrderChecker(trust: pki.trustAnchors)
    }

    /// A new page for the client at `address` at wall-clock time `wall`; returns its id. Never
    /// refused: it takes the place of another page when the client or the hub is full (see above).
    func create(client address: String, wall: Double) -> String {
        expire(now: wall)
        let client = Self.client(address)
        let own = byClient[client] ?? []
        if own.count >= pagesPerClient {
            drop(leastRecentlyUsed(of: own))
        } else if pages.count >= capacity, let victim = victim(for: client, owning: own.count) {
            drop(victim)
        }
        let id = IDs.drawn { "pg_" + Secrets.hex(32) }  // in URLs: never card-like
        pages[id] = Entry(
            page: BrowserPage(
                configuration: pageConfiguration(SheetConfiguration(tokenFactory: factory(page: id)), wall: wall),
                wall: wall
            ),
            used: wall,
            client: client
        )
        byClient[client, default: []].insert(id)
        return id
    }

    /// The page to drop for a new page of `client`, which has `owned` pages, in a full hub: the
    /// least recently used page of the client with the most pages (ties: the one whose page has
    /// been idle longest); `client`'s own when no other client has more than it.
    private func victim(for client: String, owning owned: Int) -> String? {
        var best: (id: String, count: Int, used: Double)?
        for (other, ids) in byClient where other != client && ids.count > owned {
            let id = leastRecentlyUsed(of: ids)
            let used = pages[id]?.used ?? 0
            if let current = best, current.count > ids.count || (current.count == ids.count && current.used <= used) {
                continue
            }
            best = (id, ids.count, used)
        }
        if let best { return best.id }
        if let own = byClient[client], !own.isEmpty { return leastRecentlyUsed(of: own) }
        // Every page is another client's, each with no more pages than this one (none): the longest idle.
        return pages.min { $0.value.used < $1.value.used }?.key
    }

    /// The least recently used of `ids` (not empty).
    private func leastRecentlyUsed(of ids: Set<String>) -> String {
        ids.min { (pages[$0]?.used ?? 0, $0) < (pages[$1]?.used ?? 0, $1) }!
    }

    private func drop(_ id: String) {
        guard let entry = pages.removeValue(forKey: id) else { return }
        byClient[entry.client]?.remove(id)
        if byClient[entry.client]?.isEmpty == true { byClient[entry.client] = nil }
    }

    /// The client an address counts as: an IPv4 address itself (also written as IPv6,
    /// `::ffff:a.b.c.d`); an IPv6 address's /64, which one host or customer is usually given whole.
    static func client(_ address: String) -> String {
        guard address.contains(":"), let bytes = ipv6Bytes(address) else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":") + "::/64"
    }

    /// The 16 bytes of IPv6 address `text` (with an embedded IPv4 tail, `::ffff:10.0.0.1`), or `nil`.
    static func ipv6Bytes(_ text: String) -> [UInt8]? {
        var address = Substring(text)
        if let zone = address.firstIndex(of: "%") { address = address[..<zone] }
        var tail: [UInt8] = []
        if let lastColon = address.lastIndex(of: ":"), address[lastColon...].contains(".") {
            let parts = address[address.index(after: lastColon)...].split(
                separator: ".",
                omittingEmptySubsequences: false
            )
            guard parts.count == 4 else { return nil }
            for part in parts {
                guard let byte = UInt8(part) else { return nil }
                tail.append(byte)
            }
            address = address[...lastColon]
            if address.hasSuffix("::") == false { address = address.dropLast() }
        }
        func groups(_ text: Substring) -> [UInt16]? {
            if text.isEmpty { return [] }
            var out: [UInt16] = []
            for group in text.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                out.append(value)
            }
            return out
        }
        let wanted = 8 - tail.count / 2
        var words: [UInt16]
        if let gap = address.range(of: "::") {
            guard let head = groups(address[..<gap.lowerBound]), let rest = groups(address[gap.upperBound...]),
                head.count + rest.count < wanted
            else { return nil }
            words = head + Array(repeating: 0, count: wanted - head.count - rest.count) + rest
        } else {
            guard let all = groups(address), all.count == wanted else { return nil }
            words = all
        }
        return words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + tail
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
        if operation["op"]?.stringValue == "gestureRule" {
            // Only the user-gesture rule changes: the page keeps its sessions and requests.
            guard let required = operation["requireUserGesture"]?.boolValue else {
                throw ServiceError.invalid("requireUserGesture", "must be true or false")
            }
            page = entry.page
            page.requireUserGesture = required
            return try run(&page, id: id, client: entry.client, ["op": "state"], wall: wall)
        }
        if operation["op"]?.stringValue == "configure" {
            page = try configured(operation, page: id, wall: wall)
            page.configured(size: body.compactText.utf8.count)
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
            pages[id] = Entry(page: page, used: wall, client: client)
            return .object(answer)
        } catch {
            switch error.kind {
            case .invalid: throw ServiceError.invalid(error.field, error.message)
            case .pageFull: throw ServiceError(.tooLarge, code: "page_full", message: error.message)
            }
        }
    }

    /// The token factory of page `id`: encrypting to `recipient` (by default the merchant
    /// server's), and telling ``onMerchantToken`` of the merchant tokens it issues.
    func factory(page id: String, recipient: TokenRecipient? = nil) -> SandboxTokenFactory {
        var factory = SandboxTokenFactory(pki: pki, recipient: recipient ?? defaultRecipient)
        if let onMerchantToken { factory.onMerchantToken = { onMerchantToken(id, $0) } }
        return factory
    }

    private func configured(_ op: JSONObject, page id: String, wall: Double) throws(ServiceError) -> BrowserPage {
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
        configuration.tokenFactory = factory(page: id)
        if let pem = op["merchantCertificate"], !pem.isNull {
            guard let text = pem.stringValue else {
                throw ServiceError.invalid("merchantCertificate", "must be a PEM certificate (a string)")
            }
            do {
                let recipient = try TokenRecipient(certificate: Certificate(pemEncoded: text))
                configuration.tokenFactory = factory(page: id, recipient: recipient)
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
        page.languageChosen = op["options"]?["language"] != nil
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
        for (id, entry) in pages where now - entry.used > idleSeconds { drop(id) }
    }
}
