/// Orders in Wallet: the order type the server's paid orders are issued under, the Order Type ID
/// certificate that signs their packages, and how long an order's authentication token lasts.
public struct WalletOrderSettings: Sendable, Codable, Equatable {
    /// Issue Wallet orders for paid orders and serve the order web service (`/wallet-orders/v1/…`).
    /// `PAYSHEET_WALLET_ORDERS`.
    public var enabled: Bool = true
    /// The order type identifier (`order.com.example`); by default the merchant identifier with
    /// `order.` in place of its `merchant.`. `PAYSHEET_ORDER_TYPE_IDENTIFIER`.
    public var orderTypeIdentifier: String?
    /// The Order Type ID certificate, its private key (mode 0600) and the certificate that issued
    /// it (Apple's WWDR intermediate), PEM; by default the sandbox issues a certificate from its CA
    /// (sandbox mode only; a production server without them issues no Wallet orders).
    /// `PAYSHEET_ORDER_CERTIFICATE`, `PAYSHEET_ORDER_KEY`, `PAYSHEET_ORDER_INTERMEDIATE`.
    public var certificateFile: String?
    /// See ``certificateFile``.
    public var keyFile: String?
    /// See ``certificateFile``.
    public var intermediateFile: String?
    /// Where a shopper manages an order (`order.json`'s `orderManagementURL`), `{orderIdentifier}`
    /// standing for the order's id; by default the demo store's order page on the public URL.
    /// `PAYSHEET_ORDER_MANAGEMENT_URL`.
    public var orderManagementURL: String?
    /// Seconds an order's authentication token is accepted after it was issued (400 days).
    /// `PAYSHEET_ORDER_TOKEN_LIFETIME`.
    public var tokenLifetime: Double = 34_560_000

    /// The defaults.
    public init() {}

    /// The order type identifier in use for `merchant`.
    public func typeIdentifier(merchant: MerchantSettings) -> String {
        if let orderTypeIdentifier { return orderTypeIdentifier }
        let id = merchant.merchantIdentifier
        return "order." + (id.hasPrefix("merchant.") ? String(id.dropFirst("merchant.".count)) : id)
    }

    /// Applies the `PAYSHEET_…` variables of these settings from `environment`.
    mutating func apply(environment: [String: String]) throws {
        if let value = environment["PAYSHEET_WALLET_ORDERS"] {
            enabled = ["1", "true", "yes", "on"].contains(value.lowercased())
        }
        if let value = environment["PAYSHEET_ORDER_TYPE_IDENTIFIER"] { orderTypeIdentifier = value }
        if let value = environment["PAYSHEET_ORDER_CERTIFICATE"] { certificateFile = value }
        if let value = environment["PAYSHEET_ORDER_KEY"] { keyFile = value }
        if let value = environment["PAYSHEET_ORDER_INTERMEDIATE"] { intermediateFile = value }
        if let value = environment["PAYSHEET_ORDER_MANAGEMENT_URL"] { orderManagementURL = value }
        if let value = environment["PAYSHEET_ORDER_TOKEN_LIFETIME"] {
            guard let seconds = Double(value), seconds > 0, seconds.isFinite else {
                throw ConfigurationError("PAYSHEET_ORDER_TOKEN_LIFETIME=\(value) is not a positive number of seconds")
            }
            tokenLifetime = seconds
        }
    }
}
