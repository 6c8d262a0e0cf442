/// WebKit's session states (`ApplePaySession.cpp`).
public enum SessionState: String, Sendable, Hashable, CaseIterable {
    case idle, active, paymentMethodSelected, shippingContactSelected, shippingMethodSelected
    case couponCodeChanged, authorized, cancelRequested, completed, aborted, canceled

    /// The state as a page can tell it: `idle`, `active`, `completed`, `aborted` or `canceled`.
    public var pageVisible: String {
        switch self {
        case .idle: return "idle"
        case .completed: return "completed"
        case .aborted: return "aborted"
        case .canceled: return "canceled"
        default: return "active"
        }
    }

    /// Whether the session has ended.
    public var isFinal: Bool { self == .completed || self == .aborted || self == .canceled }
}
