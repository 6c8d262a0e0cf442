import Foundation
import PaysheetModel
import PaysheetScenario
import PaysheetSheet
import PaysheetToken
import X509

/// The sheet engines of the browser pages using `paysheet.js`, one per page, keyed by the id the
/// page picked. Pages idle for an hour are dropped; at most ``capacity`` are kept (the least
/// recently used goes first).
public actor SheetHub {
    /// Most pages kept at once.
    public let capacity: Int
    /// Seconds after which an idle page is dropped.
    public let idleSeconds: Double
    let pki: SandboxPKI
    let defaultRecipient: TokenRecipient
    var pages: [String: (page: BrowserPage, used: Double)] = [:]

    /// A hub whose pages' tokens are issued by `pki` and encrypted to `recipient` (the merchant
    /// server's own payment processing certificate), unless a page configures another certificate.
    public init(pki: SandboxPKI, recipient: TokenRecipient, capacity: Int = 1_000, idleSeconds: Double = 3_600) {
        self.pki = pki
        self.defaultRecipient = recipient
        self.capacity = capacity
        self.idleSeconds = idleSeconds
    }

    /// Keys a `configure` operation accepts.
    static let configureKeys: Set<String> = ["op", "wallet", "options", "requireUserGesture", "clock", "merchantCertificate"]

    /// Runs the operation `body` for page `id` at wall-clock time `wall` (seconds).
    func handle(page id: String, body: JSONValue, wall: Double) throws(APIError) -> JSONValue {
        guard id.count >= 8, id.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw APIError.invalid("id", "a page id is 8 to 64 letters, digits, - or _")
        }
        guard case .object(let op) = body else { throw APIError.invalid(nil, "the body must be a JSON object (an operation)") }
        expire(now: wall, making: pages[id] == nil)
        var page: BrowserPage
        if op["op"]?.stringValue == "configure" {
            page = try configured(op, wall: wall)
            return try run(&page, id: id, ["op": "state"], wall: wall)
        }
        page = pages[id]?.page ?? BrowserPage(configuration: SheetConfiguration(tokenFactory: defaultFactory), wall: wall)
        return try run(&page, id: id, op, wall: wall)
    }

    private func run(_ page: inout BrowserPage, id: String, _ op: JSONObject, wall: Double) throws(APIError) -> JSONValue {
        do throws(BrowserPage.BridgeError) {
            let answer = try page.handle(op, wall: wall)
            pages[id] = (page, wall)
            return .object(answer)
        } catch {
            throw APIError.invalid(error.field, error.message)
        }
    }

    var defaultFactory: SandboxTokenFactory { SandboxTokenFactory(pki: pki, recipient: defaultRecipient) }

    private func configured(_ op: JSONObject, wall: Double) throws(APIError) -> BrowserPage {
        for k in op.keys where !Self.configureKeys.contains(k) {
            throw APIError.invalid(k, "unknown configuration key (known: \(Self.configureKeys.subtracting(["op"]).sorted().joined(separator: ", ")))")
        }
        var configuration: SheetConfiguration
        do throws(ScenarioError) {
            configuration = try ScenarioParser.configuration(wallet: op["wallet"], options: op["options"], file: "configure")
        } catch {
            throw APIError.invalid(error.field, error.message)
        }
        configuration.tokenFactory = defaultFactory
        if let pem = op["merchantCertificate"], !pem.isNull {
            guard let text = pem.stringValue else { throw APIError.invalid("merchantCertificate", "must be a PEM certificate (a string)") }
            do {
                let recipient = try TokenRecipient(certificate: Certificate(pemEncoded: text))
                configuration.tokenFactory = SandboxTokenFactory(pki: pki, recipient: recipient)
            } catch {
                throw APIError.invalid("merchantCertificate", "not a usable payment processing certificate: \(error)")
            }
        }
        var page = BrowserPage(configuration: configuration, wall: wall)
        if let g = op["requireUserGesture"], !g.isNull {
            guard let b = g.boolValue else { throw APIError.invalid("requireUserGesture", "must be true or false") }
            page.requireUserGesture = b
        }
        if let c = op["clock"], !c.isNull {
            guard let s = c.stringValue, s == "real" || s == "virtual" else { throw APIError.invalid("clock", "must be \"real\" or \"virtual\"") }
            page.virtualClock = s == "virtual"
        }
        return page
    }

    /// Drops idle pages, and the least recently used ones when a new page would exceed the capacity.
    private func expire(now: Double, making new: Bool) {
        if (new && pages.count >= capacity) || pages.contains(where: { now - $0.value.used > idleSeconds }) {
            pages = pages.filter { now - $0.value.used <= idleSeconds }
            while new, pages.count >= capacity, let oldest = pages.min(by: { $0.value.used < $1.value.used }) {
                pages[oldest.key] = nil
            }
        }
    }
}
