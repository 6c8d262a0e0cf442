import AsyncHTTPClient
import Foundation

/// A sandbox that stands in for Apple Pay's merchant-token life-cycle service, for a server whose
/// merchant sessions are the sandbox's: it makes the events, sends their notifications to the
/// tokens' `tokenNotificationURL`, and is the token gateway the server asks about them.
/// `PaysheetSandboxServer`'s `BuiltInSandbox` is one; a production server links none.
package protocol MerchantTokenEventSandbox: Sendable {
    /// The sandbox's events for the merchant `merchantIdentifier` of a server whose own
    /// notifications go to `notificationURL`: the source the server confirms notifications with,
    /// and the routes (sandbox tools) that make and send events, stamped with `clock`'s time and
    /// sent through `http`.
    func merchantTokenEvents(
        merchantIdentifier: String,
        notificationURL: String?,
        clock: @escaping @Sendable () -> Date,
        http: HTTPClient
    ) -> (source: any MerchantTokenEventSource, routes: ExtraRoutes)
}

extension MerchantServer {
    /// Where the server confirms merchant-token notifications and, in the sandbox, the routes that
    /// send them: Apple's gateway (the certification one outside production) through the merchant
    /// identity client when merchant sessions are Apple's; otherwise the sandbox's, when it has
    /// one (no route is served without a source).
    static func merchantTokenEvents(
        _ config: ServerConfiguration,
        validation: MerchantValidator.Mode,
        sandbox: (any ServerSandbox)?,
        clock: @escaping @Sendable () -> Date,
        http: HTTPClient
    ) -> (source: any MerchantTokenEventSource, routes: ExtraRoutes?)? {
        if case .apple(let client) = validation {
            let gateway =
                config.mode == .production
                ? AppleMerchantTokenGateway.apple : "https://apple-pay-gateway-cert.apple.com"
            return (AppleMerchantTokenGateway(baseURL: gateway, client: client), nil)
        }
        guard let events = sandbox as? any MerchantTokenEventSandbox else { return nil }
        let parts = events.merchantTokenEvents(
            merchantIdentifier: config.merchant.merchantIdentifier,
            notificationURL: config.merchant.tokenNotificationURL,
            clock: clock,
            http: http
        )
        return (parts.source, parts.routes)
    }
}
