/// A merchant token's state as its lifecycle notifications last told the merchant (Apple Pay's
/// `tokenNotificationURL`): usable, suspended until resumed, or deleted for good (by the user in
/// Wallet or by the card issuer).
public enum MerchantTokenStatus: String, Sendable, Codable, Equatable, CaseIterable {
    /// Usable: no notification said otherwise.
    case active
    /// Not usable until a later notification resumes it.
    case suspended
    /// Gone for good: the agreement it served ends with it.
    case deleted
}
