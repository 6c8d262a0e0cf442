import PaysheetModel

/// Where the page's document sits: its own origin, its ancestors' origins, and whether the
/// permissions policy lets it use the `payment` feature. Safari checks these before any
/// `ApplePaySession` API, `ApplePaySetup` or a `PaymentRequest` may run
/// (`PaymentSession::canCreateSession`).
public struct FrameContext: Sendable, Equatable {
    /// The document's origin first, then its parent's, …, the top-level document's last;
    /// `nil` where the browser does not tell (a sandboxed ancestor's origin is `"null"`).
    public var origins: [String?]
    /// Whether the permissions policy of the document and of every frame above it allows
    /// `payment` (`allow="payment"` on a cross-origin iframe); `nil` when the browser cannot say.
    public var paymentAllowed: Bool?

    /// A context; `origins` lists the document first and the top-level document last.
    public init(origins: [String?], paymentAllowed: Bool? = nil) {
        self.origins = origins
        self.paymentAllowed = paymentAllowed
    }

    /// Whether the document is the top-level document.
    public var isTopLevel: Bool { origins.count <= 1 }

    /// Why Safari (of `profile`) refuses to start a payment from this document, or `nil`.
    ///
    /// Safari 15 and later (`PaymentSession.cpp`): a document the permissions policy does not
    /// allow `payment` gets a `SecurityError`; one not served over HTTPS, or with an ancestor not
    /// served over HTTPS, an `InvalidAccessError`. Safari 11–14 knew no permissions policy and
    /// refused every document of another origin than the top-level one.
    ///
    /// One deviation, so that a merchant can try a page on their own machine: an `http:` origin on
    /// a loopback host (`localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`) counts as secure, as
    /// browsers count it for secure contexts. Safari wants `https:` there too.
    public func refusal(profile: SafariProfile) -> ScriptError? {
        guard let own = origins.first else { return nil }
        let parents = origins.dropFirst()
        if profile == .current {
            if paymentAllowed == false {
                return ScriptError(.securityError, Self.thirdPartyMessage)
            }
            if !Self.isSecure(own) { return .invalidAccess(Self.insecureMessage) }
            if parents.contains(where: { !Self.isSecure($0) }) { return .invalidAccess(Self.insecureParentMessage) }
            return nil
        }
        if !Self.isSecure(own) { return .invalidAccess(Self.insecureMessage) }
        guard let top = origins.last, !isTopLevel else { return nil }
        if !Self.sameOrigin(own, top) { return .invalidAccess(Self.otherOriginMessage) }
        for parent in parents.dropLast() {
            if !Self.isSecure(parent) { return .invalidAccess(Self.insecureParentMessage) }
            if !Self.sameOrigin(parent, top) { return .invalidAccess(Self.otherOriginMessage) }
        }
        return nil
    }

    static let thirdPartyMessage =
        "Third-party iframes are not allowed to request payments unless explicitly allowed via Feature-Policy (payment)"
    static let insecureMessage = "Trying to start an Apple Pay session from an insecure document."
    static let insecureParentMessage =
        "Trying to start an Apple Pay session from a document with an insecure parent frame."
    static let otherOriginMessage =
        "Trying to start an Apple Pay session from a document with an different security origin than its top-level frame."

    /// Whether two origins are the same; an unknown origin is taken as the same (nothing to refuse on).
    static func sameOrigin(_ first: String?, _ second: String?) -> Bool {
        guard let first, let second, first != "null", second != "null" else { return true }
        return first.lowercased() == second.lowercased()
    }

    /// Whether `origin` (`scheme://host[:port]`) is served securely; an unknown origin counts as secure.
    static func isSecure(_ origin: String?) -> Bool {
        guard let origin, origin != "null" else { return true }
        let lower = origin.lowercased()
        if lower.hasPrefix("https://") { return true }
        guard lower.hasPrefix("http://") else { return false }
        var host = Substring(lower.dropFirst("http://".count))
        if let slash = host.firstIndex(of: "/") { host = host[..<slash] }
        if host.hasPrefix("[") {
            return host.hasPrefix("[::1]")
        }
        if let colon = host.firstIndex(of: ":") { host = host[..<colon] }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

extension FrameContext {
    /// The context as the page describes it: `{"origins": [...], "paymentAllowed": true|false|null}`.
    public init?(json: JSONValue) {
        guard case .object(let members) = json, let list = members["origins"]?.arrayValue, !list.isEmpty,
            list.count <= 64
        else {
            return nil
        }
        var origins: [String?] = []
        for entry in list {
            if entry.isNull {
                origins.append(nil)
            } else if let origin = entry.stringValue, origin.utf8.count <= 2048 {
                origins.append(origin)
            } else {
                return nil
            }
        }
        let allowed = members["paymentAllowed"]
        if let allowed, !allowed.isNull, allowed.boolValue == nil { return nil }
        self.init(origins: origins, paymentAllowed: allowed?.boolValue)
    }

    /// The context as JSON (the shape ``init(json:)`` reads).
    public var jsonValue: JSONValue {
        .object([
            "origins": .array(origins.map { $0.map(JSONValue.string) ?? .null }),
            "paymentAllowed": paymentAllowed.map(JSONValue.bool) ?? .null,
        ])
    }
}
