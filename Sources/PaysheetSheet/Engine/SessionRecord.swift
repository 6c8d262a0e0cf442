import PaysheetModel

/// One `ApplePaySession` (or the session a `PaymentRequest` showed its sheet with): what the page
/// constructed it with, and where it is.
struct SessionRecord: Sendable {
    /// The API version the page constructed it with.
    let version: Int
    /// The validated request.
    let request: ApplePayPaymentRequest
    /// Where the session is, with what is valid there.
    private(set) var phase: SessionPhase = .idle
    /// The `PaymentRequest` (its index) that showed this session, if it was not an `ApplePaySession`.
    var paymentRequest: Int?

    init(version: Int, request: ApplePayPaymentRequest, paymentRequest: Int? = nil) {
        self.version = version
        self.request = request
        self.paymentRequest = paymentRequest
    }

    /// WebKit's state, as the public API and the method × state table name it.
    var state: SessionState { phase.state }

    /// Whether `begin()` was called and the session has not ended.
    var isBegun: Bool {
        if case .begun = phase { return true }
        return false
    }

    /// Whether the merchant's session was accepted (only a begun session has one).
    var isMerchantValidated: Bool {
        if case .begun(let begun) = phase { return begun.merchantValidated }
        return false
    }

    /// `begin()`: the session is active and validates its merchant.
    mutating func begin() { phase = .begun(.init(merchantValidated: false, step: .active)) }

    /// The merchant's session was accepted (or refused; either way validation is over).
    mutating func merchantValidationEnded() {
        guard case .begun(var begun) = phase else { return }
        begun.merchantValidated = true
        phase = .begun(begun)
    }

    /// The begun session moves to `step`; an idle or ended session does not move.
    mutating func step(to step: SessionPhase.Step) {
        guard case .begun(var begun) = phase else { return }
        begun.step = step
        phase = .begun(begun)
    }

    /// The session ends (from any phase: a page may abort or navigate at any time).
    mutating func end(_ ending: SessionPhase.Ending) { phase = .ended(ending) }
}

/// Where a session is. Each case carries what is valid in it: only a begun session has a
/// merchant validation and a step (what the page owes the sheet); only an ended one has how it
/// ended.
enum SessionPhase: Sendable, Hashable {
    /// Constructed; `begin()` not called.
    case idle
    /// Begun and not ended.
    case begun(Begun)
    /// Ended; no call changes it again.
    case ended(Ending)

    /// A begun session.
    struct Begun: Sendable, Hashable {
        /// Whether merchant validation is over (`completeMerchantValidation` was accepted).
        var merchantValidated: Bool
        /// What the session waits for.
        var step: Step
    }

    /// A begun session's step: `active` (waiting for the user), waiting for the page to complete
    /// a selection event or the payment, or told to cancel while its sheet was not shown.
    enum Step: Sendable, Hashable {
        case active, paymentMethodSelected, shippingContactSelected, shippingMethodSelected, couponCodeChanged
        case authorized, cancelRequested
    }

    /// How a session ended.
    enum Ending: Sendable, Hashable {
        case completed, aborted, canceled
    }

    /// WebKit's state for this phase.
    var state: SessionState {
        switch self {
        case .idle: return .idle
        case .ended(.completed): return .completed
        case .ended(.aborted): return .aborted
        case .ended(.canceled): return .canceled
        case .begun(let begun):
            switch begun.step {
            case .active: return .active
            case .paymentMethodSelected: return .paymentMethodSelected
            case .shippingContactSelected: return .shippingContactSelected
            case .shippingMethodSelected: return .shippingMethodSelected
            case .couponCodeChanged: return .couponCodeChanged
            case .authorized: return .authorized
            case .cancelRequested: return .cancelRequested
            }
        }
    }
}
