import PaysheetModel

/// How a simulated sheet behaves: the user's wallet, the deadlines, the initial events, which
/// events the page listens to, and which Safari's rules apply.
public struct SheetConfiguration: Sendable {
    /// What the simulated user has.
    public var wallet: Wallet
    /// Seconds the sheet waits for each outstanding completion (30 in Safari).
    public var timeoutSeconds: Double
    /// The events the sheet fires after merchant validation, in order.
    public var initialEvents: [SheetEventType]
    /// The events the page has listeners for; selection events without a listener are completed
    /// by the sheet itself with no update, as WebKit does.
    public var listeners: Set<SheetEventType>
    /// Which Safari's rules apply.
    public var profile: SafariProfile
    /// The URL of the `validatemerchant` event.
    public var validationURL: String
    /// Whether `canMakePayments()` answers true (default: the wallet has a card).
    public var canMakePayments: Bool?
    /// Whether `canMakePaymentsWithActiveCard()` answers true (default: as `canMakePayments`);
    /// WebKit's mock sets it apart (`setCanMakePaymentsWithActiveCard`).
    public var activeCard: Bool?
    /// Whether the page runs in a third-party browser (iOS 18's Apple Pay by code): the wallet's
    /// contents are unknown to the page (`applePayCapabilities` answers
    /// `paymentCredentialStatusUnknown`, `canMakePaymentsWithActiveCard` false).
    public var thirdPartyBrowser = false
    /// Makes the token of an authorized payment.
    public var tokenFactory: any PaymentTokenFactory
    /// Whether the page runs under WebKit's test runner, whose `MockPaymentCoordinator` stands in
    /// for the wallet's sheet: `validatemerchant` carries `https://webkit.org/`; after merchant
    /// validation the mock reports its shipping contact (the request's `shippingContact`, or an
    /// empty one) whether or not an address was asked for, and nothing else; `acceptPayment`
    /// authorizes with that contact, whatever the sheet would have required
    /// (`MockPaymentCoordinator.cpp`). Off for every ordinary page.
    public var webKitMock = false
    /// Whether merchant sessions are checked as the wallet checks them (``MerchantSessionPolicy``).
    public var merchantSessions: MerchantSessionPolicy = .any
    /// Tells the sandbox issuer's sessions from others (``MerchantSessionPolicy/checked``).
    public var merchantSessionVerifier: (any MerchantSessionVerifier)?
    /// The page's domain (its host), for the merchant session's `domainName`.
    public var pageDomain: String?
    /// The wall-clock time when the page loaded (milliseconds since 1970): the engine's time
    /// ``SheetMachine/now`` counts from there, for the merchant session's `expiresAt`.
    public var epochMs: Double = 0
    /// Where the page's document sits (its frame and those above it); `nil` for a top-level
    /// document served securely, as scenarios and Swift tests assume.
    public var frame: FrameContext?
    /// The language of the sheet's own words (its statuses, module titles and fixed error texts);
    /// what the page gives is shown as given. `SheetLanguage(locale:)` and
    /// ``SheetLanguage/preferred(_:)`` choose it from a locale or a preference list.
    public var language: SheetLanguage

    /// A configuration; every argument has the scenario format's default.
    public init(
        wallet: Wallet = .default,
        timeoutSeconds: Double = 30,
        initialEvents: [SheetEventType] = [.paymentmethodselected, .shippingcontactselected],
        listeners: Set<SheetEventType> = Set(SheetEventType.allCases),
        profile: SafariProfile = .current,
        validationURL: String = "https://apple-pay-gateway.apple.com/paymentservices/startSession",
        canMakePayments: Bool? = nil,
        tokenFactory: any PaymentTokenFactory = PlaceholderTokenFactory(),
        language: SheetLanguage = .english
    ) {
        self.wallet = wallet
        self.timeoutSeconds = timeoutSeconds
        self.initialEvents = initialEvents
        self.listeners = listeners
        self.profile = profile
        self.validationURL = validationURL
        self.canMakePayments = canMakePayments
        self.tokenFactory = tokenFactory
        self.language = language
    }
}
