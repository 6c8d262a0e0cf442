import Foundation

/// What a shopper agreed to on the sheet for a plan, and the merchant token to charge it with.
///
/// The merchant token (MPAN, its expiry and `merchantTokenIdentifier`) is stored only sealed
/// (the server's `CredentialVault`); the record shows its last four digits. The agreement becomes usable
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
    /// The merchant token's state as its lifecycle notifications last said (`nil`: none received,
    /// usable). A deleted or suspended token takes no charge (``AgreementLifecycle``).
    public var tokenStatus: MerchantTokenStatus?
    /// When the last lifecycle event applied to the token was issued (the gateway's time when it
    /// tells it, otherwise when the server applied it): an event issued before it is stale.
    public var tokenEventAt: Date?
    /// The ids of the lifecycle events applied to it, oldest first (the last
    /// ``AgreementLifecycle/keptTokenEvents``): a notification of one of them changes nothing.
    public var tokenEventIds: [String]?
    /// The funding card's expiration date, from the token's metadata when an event updated it.
    public var cardExpiration: String?
    /// Optimistic-concurrency version.
    public var version: Int = 0

    /// The merchant token's state: ``tokenStatus``, or active when no notification said otherwise.
    public var merchantTokenStatus: MerchantTokenStatus { tokenStatus ?? .active }

    /// An agreement (the shape of the memberwise initializer, for the package's own targets).
    package init(
        id: String,
        orderId: String,
        plan: SubscriptionPlan,
        firstPaymentId: String,
        startedAt: Date,
        credential: String,
        tokenSuffix: String,
        cardSuffix: String? = nil,
        network: String? = nil,
        lastChargePaymentId: String? = nil,
        lastChargePeriod: Int? = nil,
        chargeOrderIds: [String] = [],
        canceledAt: Date? = nil,
        canceledBecause: String? = nil,
        version: Int = 0
    ) {
        self.id = id
        self.orderId = orderId
        self.plan = plan
        self.firstPaymentId = firstPaymentId
        self.startedAt = startedAt
        self.credential = credential
        self.tokenSuffix = tokenSuffix
        self.cardSuffix = cardSuffix
        self.network = network
        self.lastChargePaymentId = lastChargePaymentId
        self.lastChargePeriod = lastChargePeriod
        self.chargeOrderIds = chargeOrderIds
        self.canceledAt = canceledAt
        self.canceledBecause = canceledBecause
        self.version = version
    }

    /// The id of the agreement a plan order `orderId` starts.
    package static func id(forOrder orderId: String) -> String { "agr_" + orderId.dropFirst(4) }
}
