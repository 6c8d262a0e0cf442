import PaysheetTokenFormat

/// Why the server refused a payment token, for the one who sent it (the page, `paysheet pay`):
/// a stable code — `token_` and the token error's code (`token_chain`, `token_key_mismatch`,
/// `token_signing_time`, …) — and a message that names the cause and, where the server's own
/// parts are what the token does not match, what to pass. It never carries the token, its card
/// data or a key.
public struct TokenRefusal: Sendable, Equatable, Encodable {
    /// The stable code.
    public var code: String
    /// What was wrong and what to do about it.
    public var message: String

    /// A refusal with `code` and `message`.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// What a server verifies and decrypts tokens with, as its refusals name it: the sandbox data
/// folder whose CA it trusts, whether it trusts Apple's roots, the payment processing
/// certificate tokens must be encrypted to. Paths only: nothing secret.
public struct TokenTrustDescription: Sendable, Equatable {
    /// The (absolute) data folder whose sandbox CA signs the tokens this server trusts; `nil`
    /// when it trusts no sandbox tokens.
    public var sandboxDataFolder: String?
    /// Whether tokens signed under Apple's roots are trusted.
    public var trustsApple: Bool
    /// The file of the payment processing certificate that tokens must be encrypted to.
    public var paymentCertificateFile: String?

    /// A description; the defaults name nothing.
    public init(sandboxDataFolder: String? = nil, trustsApple: Bool = false, paymentCertificateFile: String? = nil) {
        self.sandboxDataFolder = sandboxDataFolder
        self.trustsApple = trustsApple
        self.paymentCertificateFile = paymentCertificateFile
    }

    /// What the sender of a token refused with `error` is told.
    public func refusal(for error: PaymentTokenError) -> TokenRefusal {
        TokenRefusal(code: "token_" + Self.snakeCase(error.code.rawValue), message: message(for: error))
    }

    func message(for error: PaymentTokenError) -> String {
        switch error.code {
        case .chain: untrustedSigner(error.message)
        case .keyMismatch: otherMerchantKey(error.message)
        case .signingTime:
            "the token's signing time is outside the accepted window (\(error.message)): make a new token"
        case .replayed: "this token was already used for a payment (a token pays once): make a new token"
        case .signature: "the token's signature does not verify (\(error.message))"
        case .unsupportedVersion: "the token's version is not one this server reads (\(error.message))"
        case .malformed: "the token is not a well-formed payment token"
        case .decryption: "the token's payment data did not decrypt with this server's payment processing key"
        case .invalidKey: "this server's payment processing key or certificate is unusable"
        }
    }

    /// The trusted roots, in words.
    var trusted: String {
        var roots: [String] = []
        if trustsApple { roots.append("Apple's roots") }
        if let folder = sandboxDataFolder { roots.append("the sandbox CA of the data folder \(folder)") }
        return roots.isEmpty ? "no root" : roots.joined(separator: " and ")
    }

    func untrustedSigner(_ detail: String) -> String {
        var text = "the token's signer is not trusted by this server, which trusts \(trusted)."
        if let folder = sandboxDataFolder {
            text +=
                " A sandbox token made with another data folder (another sandbox CA) is refused: run `paysheet pay` with --data \(folder) (the server's data folder; `paysheet token issue` takes the same)."
        }
        return text + " The verifier said: \(detail)"
    }

    func otherMerchantKey(_ detail: String) -> String {
        var text = "the token is encrypted to another payment processing key than this server's"
        if let file = paymentCertificateFile { text += " (its certificate: \(file))" }
        text += "."
        if let folder = sandboxDataFolder {
            text +=
                " Sandbox tokens must be made for this server's merchant: `paysheet pay` fetches its certificate (GET /v1/sandbox/merchant); `paysheet token issue` needs --data \(folder)."
        }
        return text + " The decryptor said: \(detail.prefix { $0 != ";" })"
    }

    /// `keyMismatch` → `key_mismatch`.
    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { out, c in
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
    }
}
