import PaysheetModel

/// Whether the sheet checks the merchant session a page completes merchant validation with.
public enum MerchantSessionPolicy: String, Sendable, CaseIterable {
    /// Any object completes validation, as in WebKit alone (the wallet's checks are not simulated).
    case any
    /// The session is checked as Safari and the wallet check it: well formed, issued by the
    /// merchant-validation service (here: signed by the sandbox issuer), not expired (five
    /// minutes), for the page's domain, used once. A session that fails ends the payment.
    case checked
}

/// Tells the sandbox issuer's merchant sessions from others and remembers which were used
/// (implemented by the server that issues them).
public protocol MerchantSessionVerifier: Sendable {
    /// Whether `session` carries the sandbox issuer's signature over its members.
    func isSigned(_ session: JSONObject) -> Bool
    /// Records that the session `identifier` (valid until `expiresAt`, milliseconds) was used;
    /// `false` when it was used before.
    func use(_ identifier: String, expiresAt: Double) -> Bool
}

/// The wallet's checks of a merchant session, in the order they are reported.
enum MerchantSessionCheck {
    /// The members of Apple's merchant session object and their JSON types.
    static let members: [(name: String, type: String)] = [
        ("displayName", "string"), ("domainName", "string"), ("epochTimestamp", "number"), ("expiresAt", "number"),
        ("merchantIdentifier", "string"), ("merchantSessionIdentifier", "string"), ("nonce", "string"),
        ("signature", "string"),
    ]

    /// Why `session` ends the payment, or `nil` when it may be used (and is then recorded as used).
    static func problem(
        _ session: JSONObject,
        verifier: (any MerchantSessionVerifier)?,
        pageDomain: String?,
        nowMs: Double
    ) -> String? {
        for (name, type) in members {
            let ok: Bool
            switch session[name] {
            case .string?: ok = type == "string"
            case .number?: ok = type == "number"
            default: ok = false
            }
            if !ok { return "The merchant session is malformed: \(name) is missing or not a \(type)." }
        }
        guard let verifier, verifier.isSigned(session) else {
            // The two ways a newcomer gets here: the page's merchant validation went to another
            // server than the one whose sheet checks it (or to Apple's, with a merchant identity
            // certificate), or the server restarted (its session key is drawn at start).
            return
                "The merchant session was not issued by merchant validation (its signature is not the sandbox issuer's): "
                + "validate the merchant through the same running sandbox server that serves this sheet (paysheet.js), "
                + "with its merchantValidation \"sandbox\" (a merchant identity certificate's Apple sessions cannot be checked here), "
                + "and ask for a new session after it restarts."
        }
        let expires = session["expiresAt"]?.doubleValue ?? 0
        if nowMs > expires { return "The merchant session has expired (a session is valid for 5 minutes)." }
        let domain = session["domainName"]?.stringValue ?? ""
        if let pageDomain, domain.lowercased() != pageDomain.lowercased() {
            return "The merchant session is for \(domain), not for this page's domain \(pageDomain)."
        }
        let identifier = session["merchantSessionIdentifier"]?.stringValue ?? ""
        if !verifier.use(identifier, expiresAt: expires) {
            return "The merchant session was already used; each payment needs a new one."
        }
        return nil
    }
}
