import Foundation

/// What a shopper agreed to on the sheet for a plan, and the merchant token to charge it with.
///
/// The merchant token (MPAN, its expiry and `merchantTokenIdentifier`) is stored only sealed
/// (``CredentialVault``); the record shows its last four digits. The agreement becomes usable
/// when its first payment succeeds; each later charge is an order of its own, charged through
/// the acquirer with the same lifecycle as a shopper's payment.
public struct AgreementRecord: Sendable, Codable, Equatable {
    /// Our id (`agr_…`, derived from the first order's).
    public var id: String
    /// The order whose payment started it.
    public var orderId: String
    /// The plan (a copy of it as agreed: later changes of the merchant's settings do not change it).
    public var plan: SubscriptionPlan
    /// The first payment (the shopper's authorization).
    public var firstPaymentId: String
    /// When the shopper authorized.
    public var startedAt: Date
    /// The sealed merchant token (Base64 of AES-GCM nonce, ciphertext and tag).
    public var credential: String
    /// Last four digits of the merchant token.
    public var tokenSuffix: String
    /// The funding card's last four digits, from `merchantTokenMetadata`.
    public var cardSuffix: String?
    /// The card network.
    public var network: String?
    /// The last merchant-initiated charge: its payment and the period it pays (1 = the first after the start).
    public var lastChargePaymentId: String?
    /// See ``lastChargePaymentId``.
    public var lastChargePeriod: Int?
    /// The orders of its merchant-initiated charges, oldest first.
    public var chargeOrderIds: [String] = []
    /// When it was canceled (by the shopper's management page or the merchant), or ended with its
    /// first payment (voided, refunded in full, or its order canceled).
    public var canceledAt: Date?
    /// Why it ended, when it ended by itself rather than by a cancel request: "its first payment was voided", …
    public var canceledBecause: String?
    /// Optimistic-concurrency version.
    public var version: Int = 0

    /// The id of the agreement a plan order `orderId` starts.
    static func id(forOrder orderId: String) -> String { "agr_" + orderId.dropFirst(4) }
}

/// The plaintext of an agreement's credential.
struct MerchantTokenCredential: Codable, Sendable {
    /// The MPAN.
    var accountNumber: String
    /// `YYMMDD`.
    var expiration: String
    /// `merchantTokenIdentifier`.
    var tokenIdentifier: String
}
