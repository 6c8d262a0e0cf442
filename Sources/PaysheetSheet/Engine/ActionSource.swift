/// Who takes a user action on the sheet.
public enum ActionSource: Sendable, Hashable {
    /// The simulated shopper at the sheet: an action waits for merchant validation and for the
    /// page's outstanding completion.
    case user
    /// The stand-in for WebKit's `MockPaymentCoordinator` (WebKit's own tests): it reports the
    /// user's choices to the page without waiting for merchant validation, and authorizes
    /// whatever the sheet would require.
    case webKitMock
}
