/// What the simulated wallet concluded about the order a payment gave it
/// (`ApplePayPaymentOrderDetails`): whether the order would appear in Wallet, and if not, the
/// first check that failed, in words.
public struct WalletOrderVerdict: Sendable, Hashable {
    /// The checks, in the order the simulated wallet makes them.
    public enum Check: String, Sendable, Hashable, CaseIterable {
        /// The web service URL is one Wallet calls (HTTPS; plain HTTP only on this machine).
        case webServiceURL
        /// `GET {webServiceURL}/v1/orders/{orderTypeIdentifier}/{orderIdentifier}` answered 200
        /// with a package.
        case fetch
        /// The package is a ZIP archive holding `order.json`, `manifest.json` and `signature`.
        case package
        /// The signature is a valid detached signature over `manifest.json` whose certificate
        /// chains to a trusted root and names the order's type identifier.
        case signature
        /// `manifest.json` lists the SHA-256 of every other file, and each matches.
        case manifest
        /// `order.json` is an order of the schema, for the type and identifier the payment named.
        case order
    }

    /// The first check that failed; `nil` when the order would appear.
    public var failedCheck: Check?
    /// Why not, in words (`nil` when the order would appear).
    public var reason: String?

    /// The order would appear in Wallet.
    public static let appears = WalletOrderVerdict(failedCheck: nil, reason: nil)

    /// The order would not appear: `check` failed for `reason`.
    public static func refused(_ check: Check, _ reason: String) -> WalletOrderVerdict {
        WalletOrderVerdict(failedCheck: check, reason: reason)
    }

    /// Whether the order would appear in Wallet.
    public var appears: Bool { failedCheck == nil }

    /// The sentence the simulated sheet shows.
    public var message: String {
        guard let reason else { return "This order would appear in Wallet" }
        return "This order would not appear in Wallet: \(reason)"
    }
}
