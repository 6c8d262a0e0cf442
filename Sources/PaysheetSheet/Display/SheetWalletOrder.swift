import PaysheetModel

/// The order a payment completed with `STATUS_SUCCESS` gave the wallet, and what the wallet
/// concluded of it once its driver checked it (``WalletOrderVerdict``).
struct SheetWalletOrder: Sendable, Hashable {
    /// The page's order details (its token included: the driver fetches the order with it).
    var details: ApplePayPaymentOrderDetails
    /// `nil` until the driver has fetched and checked the order.
    var verdict: WalletOrderVerdict?

    /// The snapshot's `order` member: the details without the authentication token, and the
    /// wallet's state (`unchecked`, `appears` or `refused`, the failed check and the sentence).
    var json: JSONValue {
        var wallet = JSONObject()
        if let verdict {
            wallet["status"] = .string(verdict.appears ? "appears" : "refused")
            wallet["check"] = verdict.failedCheck.map { .string($0.rawValue) } ?? .null
            wallet["message"] = .string(verdict.message)
        } else {
            wallet["status"] = "unchecked"
            wallet["check"] = .null
            wallet["message"] = "The simulated wallet has not fetched this order yet"
        }
        return [
            "orderTypeIdentifier": .string(details.orderTypeIdentifier),
            "orderIdentifier": .string(details.orderIdentifier),
            "webServiceURL": .string(details.webServiceURL),
            "wallet": .object(wallet),
        ]
    }
}
