import Foundation
import PaysheetModel
import PaysheetSheet
import PaysheetToken
import Testing

@testable import PaysheetBrowserBridge
@testable import PaysheetServer

/// Finding 9 of the audit: the sandbox's browser bridge. Pages of some client addresses took the
/// bridge from a new address (32 addresses filled the hub: 429 for everyone else), and one page
/// kept what its operations gave it without a bound (sessions of 1 MiB requests, ~2 MB and more).
/// Performed on loopback against a real `paysheet serve`, from several client addresses
/// (127.0.0.2 …), and on the hub itself with a small capacity.
@Suite(.serialized) struct BridgeAttackTests {
    struct Answer {
        var status: Int
        var body: String
        var json: JSONValue? { try? JSONParser.parse(Array(body.utf8)) }
        var code: String? { json?["error"]?["code"]?.stringValue }
    }

    static func port(_ url: String) -> Int { Int(url.split(separator: ":").last!)! }

    /// One HTTP/1.1 request's text (`close`: the last of its connection).
    static func request(_ path: String, _ body: String, close: Bool = false) -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain;charset=UTF-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\(close ? "Connection: close\r\n" : "")\r\n\(body)"
    }

    /// Sends `bodies` to `path`s on one connection from `source` (pipelined, the last closing it)
    /// and returns the answers in order.
    static func exchange(
        from source: String,
        port: Int,
        _ requests: [(path: String, body: String)]
    ) async throws
        -> [Answer]
    {
        let connection = try await RawConnection.open(from: source, to: port)
        var text = ""
        for (index, request) in requests.enumerated() {
            text += Self.request(request.path, request.body, close: index == requests.count - 1)
        }
        try await connection.send(text)
        _ = await connection.closedByServer(within: 120)
        let answers = Self.answers(connection.received)
        await connection.close()
        return answers
    }

    /// The answers in `text`: each `HTTP/1.1 NNN …`, its body after the blank line.
    static func answers(_ text: String) -> [Answer] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { part in
            let status = Int(part.prefix(3)) ?? 0
            let body = part.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            return Answer(status: status, body: body)
        }
    }

    static let pages = "/paysheet/v1/pages"

    /// A new page for `source`.
    static func newPage(_ server: TestServer, from source: String) async throws -> Answer {
        try await exchange(from: source, port: port(server.url), [(pages, "{}")])[0]
    }

    /// Operations `ops` on page `id` from `source`.
    static func operate(
        _ server: TestServer,
        _ id: String,
        from source: String,
        _ ops: [JSONValue]
    ) async throws
        -> [Answer]
    {
        try await exchange(from: source, port: port(server.url), ops.map { (pages + "/" + id, $0.compactText) })
    }

    static let request: JSONValue = [
        "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa"],
        "merchantCapabilities": ["supports3DS"],
        "total": ["label": "Shop", "amount": "10.00"],
    ]

    /// A valid request carrying `bytes` of application data (kept with the session it makes).
    static func request(carrying bytes: Int) -> JSONValue {
        var object = request.objectValue!
        object["applicationData"] = .string(String(repeating: "A", count: bytes))
        return .object(object)
    }

    @Test func aFloodFromManyAddressesLeavesEveryOtherAddressItsPages() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        // A shopper's page with a session in it, before the flood.
        let shopper = "127.0.0.250"
        let opened = try await Self.newPage(server, from: shopper)
        #expect(opened.status == 201, "\(opened.body)")
        let page = try #require(opened.json?["page"]?.stringValue)
        let setUp = try await Self.operate(
            server,
            page,
            from: shopper,
            [
                ["op": "configure", "requireUserGesture": false],
                ["op": "construct", "version": 3, "request": Self.request],
            ]
        )
        #expect(setUp.map(\.status) == [200, 200], "\(setUp.map(\.body))")
        // 33 addresses open 40 pages each: 1,320 pages asked of a hub that keeps 1,000.
        let flooders = (2...34).map { "127.0.0.\($0)" }
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for source in flooders {
                group.addTask {
                    try await Self.exchange(
                        from: source,
                        port: Self.port(server.url),
                        Array(repeating: (Self.pages, "{}"), count: 40)
                    ).map(\.status)
                }
            }
            return try await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(statuses.count == 33 * 40)
        // Every address still gets a page: the flood is served from its own pages.
        #expect(statuses.allSatisfy { $0 == 201 }, "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        // A new address gets a page, and it works.
        let newcomer = try await Self.newPage(server, from: "127.0.0.251")
        #expect(newcomer.status == 201, "a new address was refused: \(newcomer.status) \(newcomer.body)")
        if let id = newcomer.json?["page"]?.stringValue {
            let state = try await Self.operate(server, id, from: "127.0.0.251", [["op": "state"]])
            #expect(state.first?.status == 200)
        }
        // The shopper's page survived the flood, session and all.
        let after = try await Self.operate(server, page, from: shopper, [["op": "state"]])
        #expect(after.first?.status == 200, "\(after.first?.body ?? "")")
        #expect(after.first?.json?["sessions"] == ["idle"])
        // A second wave from the same addresses does not take it either.
        _ = try await Self.exchange(
            from: "127.0.0.2",
            port: Self.port(server.url),
            Array(repeating: (Self.pages, "{}"), count: 40)
        )
        #expect(try await Self.operate(server, page, from: shopper, [["op": "state"]]).first?.status == 200)
    }

    @Test func aPageKeepsLittleAndSaysSoWith413FromEveryAddress() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let sources = ["127.0.0.40", "127.0.0.41", "127.0.0.42"]
        // A bystander's page on another address.
        let bystander = try #require(
            try await Self.newPage(server, from: "127.0.0.43").json?["page"]?.stringValue
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            for source in sources {
                group.addTask {
                    let page = try #require(
                        try await Self.newPage(server, from: source).json?["page"]?.stringValue
                    )
                    // One operation of 100 KiB: refused whole (413), the page unchanged.
                    let big = try await Self.operate(
                        server,
                        page,
                        from: source,
                        [["op": "construct", "version": 3, "request": Self.request(carrying: 100 * 1024)]]
                    )
                    #expect(big.first?.status == 413, "\(source): \(big.first?.status ?? 0)")
                    #expect(big.first?.code == "body_too_large")
                    // Sessions of 20 KiB each, 100 of them (2 MB): the page stops taking them.
                    var ops: [JSONValue] = [["op": "configure", "requireUserGesture": false]]
                    ops += Array(
                        repeating: ["op": "construct", "version": 3, "request": Self.request(carrying: 20 * 1024)],
                        count: 100
                    )
                    let answers = try await Self.operate(server, page, from: source, ops)
                    #expect(answers.count == ops.count)
                    let accepted = answers.dropFirst().filter { $0.status == 200 }.count
                    let refused = answers.dropFirst().filter { $0.status == 413 }
                    #expect(refused.count == 100 - accepted, "\(source): every other answer is a 413")
                    #expect(
                        accepted * 20 * 1024 <= 320 * 1024,
                        "\(source): the page kept \(accepted) sessions of 20 KiB"
                    )
                    #expect(refused.first?.code == "page_full", "\(source): \(refused.first?.body ?? "none refused")")
                    // The page still answers, with the sessions it kept.
                    let state = try await Self.operate(server, page, from: source, [["op": "state"]])
                    #expect(state.first?.status == 200)
                    #expect(state.first?.json?["sessions"]?.arrayValue?.count == accepted)
                }
            }
            try await group.waitForAll()
        }
        let other = try await Self.operate(
            server,
            bystander,
            from: "127.0.0.43",
            [
                ["op": "configure", "requireUserGesture": false],
                ["op": "construct", "version": 3, "request": Self.request],
            ]
        )
        #expect(other.map(\.status) == [200, 200])
    }

    // MARK: - The hub's rule, with a small capacity

    static let pki: SandboxPKI = {
        let folder = NSTemporaryDirectory() + "paysheet-bridge-attack-" + UUID().uuidString
        return try! SandboxPKI.loadOrCreate(folder: folder)
    }()

    func hub(capacity: Int, perClient: Int) throws -> SheetHub {
        let credentials = try MerchantCredentials.create(merchantIdentifier: "merchant.test.attack", pki: Self.pki)
        return SheetHub(
            pki: Self.pki,
            recipient: TokenRecipient(credentials.merchantKey),
            capacity: capacity,
            pagesPerClient: perClient
        )
    }

    func alive(_ hub: SheetHub, _ id: String, at wall: Double) async -> Bool {
        do throws(ServiceError) {
            _ = try await hub.handle(page: id, body: ["op": "state"], wall: wall)
            return true
        } catch {
            return false
        }
    }

    /// A page's id goes into the bridge's URLs (and so into logs): `pg_` and 32 hexadecimal
    /// digits, never 13 decimal digits in a row (what scanners take for a card number: `IDs`).
    @Test func pageIdsNeverLookLikeACardNumber() async throws {
        let h = try hub(capacity: 4_000, perClient: 4_000)
        for wall in 0..<2_000 {
            let id = await h.create(client: "10.0.0.9", wall: Double(wall) / 1_000)
            #expect(id.hasPrefix("pg_") && id.count == 35 && id.dropFirst(3).allSatisfy(\.isHexDigit), "\(id)")
            #expect(IDs.longestRunOfDigits(id) <= IDs.longestDigitRun, "\(id)")
        }
    }

    @Test func aFullHubTakesFromTheAddressWithMostPagesNeverFromAPoorerOne() async throws {
        let h = try hub(capacity: 6, perClient: 4)
        let a1 = await h.create(client: "10.0.0.1", wall: 1)
        let b1 = await h.create(client: "10.0.0.2", wall: 2)
        // The flooder fills the hub.
        var flood: [String] = []
        for wall in 3...6 { flood.append(await h.create(client: "10.0.0.66", wall: Double(wall))) }
        #expect(await h.count == 6)
        // A new address gets a page: the flooder's least recently used goes.
        let d1 = await h.create(client: "10.0.0.4", wall: 7)
        #expect(await !alive(h, flood[0], at: 8))
        // The flooder asking for more replaces its own pages (it has the most).
        for wall in 8...20 { flood.append(await h.create(client: "10.0.0.66", wall: Double(wall))) }
        for id in [a1, b1, d1] { #expect(await alive(h, id, at: 21)) }
        #expect(await h.count == 6)
        // Another address's second page also comes from the flooder, which has more.
        let b2 = await h.create(client: "10.0.0.2", wall: 22)
        for id in [a1, b1, b2, d1] { #expect(await alive(h, id, at: 23)) }
        // A new address: the flooder and 10.0.0.2 have two pages each; the flooder's have been
        // idle longer, so one of them goes.
        let e1 = await h.create(client: "10.0.1.1", wall: 24)
        for id in [a1, b1, b2, d1, e1] { #expect(await alive(h, id, at: 25)) }
        // Another: now 10.0.0.2 alone has the most (two), and gives one; every other address keeps its own.
        let f1 = await h.create(client: "10.0.1.2", wall: 26)
        #expect(await h.count == 6)
        for id in [a1, d1, e1, f1] { #expect(await alive(h, id, at: 27)) }
        #expect([await alive(h, b1, at: 27), await alive(h, b2, at: 27)].filter { $0 }.count == 1)
    }

    @Test func addressesOfOneIPv6SlashSixtyFourAreOneClient() async throws {
        let h = try hub(capacity: 100, perClient: 2)
        let first = await h.create(client: "2001:db8:1:2::1", wall: 1)
        _ = await h.create(client: "2001:db8:1:2::2", wall: 2)
        _ = await h.create(client: "2001:db8:1:2:ffff::3", wall: 3)
        // Three addresses of one /64 keep two pages together: the oldest went.
        #expect(await !alive(h, first, at: 4))
        #expect(await h.count == 2)
        // Another /64, and an IPv4 address written as IPv6, are others.
        _ = await h.create(client: "2001:db8:1:3::1", wall: 5)
        _ = await h.create(client: "::ffff:10.0.0.1", wall: 6)
        #expect(await h.count == 4)
    }
}
