import PaysheetModel

/// What WebKit's `MockPaymentCoordinator` holds for a test page to read: the request's members as
/// the platform received them when the sheet was shown, then the total, lines, shipping methods,
/// errors and payment kinds of each update the page's completions sent (`showPaymentUI`,
/// `complete*Selection`, `completeCouponCodeChange`, `completePaymentSession`).
///
/// The total and lines are not set when the sheet is shown, only by updates, as in WebKit.
public struct MockCoordinatorView: Sendable, Hashable {
    /// The members, by the mock's attribute names (JSON as the engine keeps them).
    public private(set) var members = JSONObject()

    /// The request-level members `showPaymentUI` copies.
    static let shownMembers = [
        "supportedCountries", "shippingMethods", "installmentConfiguration", "supportsCouponCode", "couponCode",
        "shippingContactEditingMode", "recurringPaymentRequest", "automaticReloadPaymentRequest",
        "multiTokenContexts", "deferredPaymentRequest", "disbursementRequest", "applePayLaterAvailability",
        "merchantCategoryCode", "isDelegatedRequest",
    ]

    mutating func shown(_ request: ApplePayPaymentRequest) {
        let json = request.jsonValue.objectValue ?? JSONObject()
        for key in Self.shownMembers { members[key] = json[key] ?? .null }
        members["requiredBillingContactFields"] = Self.contactFields(request.requiredBillingContactFields)
        members["requiredShippingContactFields"] = Self.contactFields(request.requiredShippingContactFields)
    }

    mutating func updated(_ update: ApplePayUpdate, kind: UpdateValidator.Kind) {
        members["total"] = update.newTotal?.jsonValue ?? .null
        members["lineItems"] = .array((update.newLineItems ?? []).map(\.jsonValue))
        if let methods = update.newShippingMethods { members["shippingMethods"] = .array(methods.map(\.jsonValue)) }
        // The shipping method's update carries no errors to the mock.
        if kind != .shippingMethod { members["errors"] = .array((update.errors ?? []).map(\.jsonValue)) }
        members["recurringPaymentRequest"] = update.newRecurringPaymentRequest?.jsonValue ?? .null
        members["automaticReloadPaymentRequest"] = update.newAutomaticReloadPaymentRequest?.jsonValue ?? .null
        members["multiTokenContexts"] = update.newMultiTokenContexts.map { .array($0.map(\.jsonValue)) } ?? .null
        members["deferredPaymentRequest"] = update.newDeferredPaymentRequest?.jsonValue ?? .null
        // WebKit's `completeCouponCodeChange` leaves the disbursement request as it was.
        if kind != .couponCode {
            members["disbursementRequest"] = update.newDisbursementRequest?.jsonValue ?? .null
        }
    }

    mutating func completed(errors: [ApplePayError]) {
        members["errors"] = .array(errors.map(\.jsonValue))
    }

    /// `MockPaymentContactFields`: a boolean per field.
    static func contactFields(_ fields: [ApplePayContactField]?) -> JSONValue {
        let set = Set(fields ?? [])
        var object = JSONObject()
        for field in [ApplePayContactField.postalAddress, .phone, .email, .name, .phoneticName] {
            object[field.rawValue] = .bool(set.contains(field))
        }
        return .object(object)
    }
}
