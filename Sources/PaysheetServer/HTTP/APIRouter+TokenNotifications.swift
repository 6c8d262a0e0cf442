import Hummingbird

extension APIRouter {
    /// Where Apple Pay (or the sandbox) sends merchant-token life-cycle notifications: the plans'
    /// `tokenNotificationURL` is `{publicURL}/v1/merchant-token-events`, to which Apple Pay appends
    /// `/notification/merchantToken/{eventId}`.
    static let tokenNotificationPath = "/v1/merchant-token-events"

    /// Anyone may knock: the notification is an event identifier only, and only an event the token
    /// gateway confirms for this merchant changes anything (`MerchantTokenNotifications`).
    func addTokenNotificationRoutes(_ router: Router<APIRequestContext>) {
        guard let tokenNotifications else { return }
        router.get(RouterPath(stringLiteral: Self.tokenNotificationPath + "/notification/merchantToken/:eventId")) {
            _,
            context -> Response in
            let receipt = try await tokenNotifications.receive(eventId: context.parameters.get("eventId") ?? "")
            return try JSONBody.response(receipt)
        }
    }
}
