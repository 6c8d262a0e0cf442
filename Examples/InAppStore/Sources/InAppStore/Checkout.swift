import Foundation

#if canImport(PassKit)
import PassKit
#else
import PaysheetPassKit
#endif

/// Seed 004's store: the DJI items with the student discount, two couriers, UnionPay, Visa and
/// Mastercard, 3-D Secure and EMV. The merchant server prices every change; the delegate passes
/// the sheet's events to it with the order's client secret and gives its answers to the sheet.
public final class DJICheckout: NSObject, PKPaymentAuthorizationControllerDelegate, @unchecked Sendable {
    public let api: StoreAPI
    public let merchantIdentifier: String
    /// The last result the server gave for the authorization.
    public private(set) var lastResult: [String: Any]?
    /// Whether the sheet has finished.
    public private(set) var finished = false
    var summaryItems: [PKPaymentSummaryItem] = []
    var shippingMethods: [PKShippingMethod] = []

    public init(api: StoreAPI, merchantIdentifier: String) {
        self.api = api
        self.merchantIdentifier = merchantIdentifier
    }

    /// The networks the store takes.
    public static let networks: [PKPaymentNetwork] = [.chinaUnionPay, .visa, .masterCard]

    /// Whether to show a buy button (true) or a set-up button (false: no card of these networks).
    public static func canPay() -> Bool {
        PKPaymentAuthorizationController.canMakePayments(usingNetworks: networks)
    }

    /// The request for an order as the server priced it (its `paymentRequest`).
    public func request(for order: [String: Any]) -> PKPaymentRequest {
        let priced = order["paymentRequest"] as? [String: Any] ?? [:]
        let request = PKPaymentRequest()
        request.merchantIdentifier = merchantIdentifier
        request.countryCode = priced["countryCode"] as? String ?? "CN"
        request.currencyCode = priced["currencyCode"] as? String ?? "CNY"
        request.supportedNetworks = Self.networks
        request.merchantCapabilities = [.capability3DS, .capabilityEMV]
        summaryItems = Self.items(
            priced["lineItems"] as? [[String: Any]] ?? [],
            total: priced["total"] as? [String: Any]
        )
        request.paymentSummaryItems = summaryItems
        shippingMethods = Self.methods(priced["shippingMethods"] as? [[String: Any]] ?? [])
        request.shippingMethods = shippingMethods
        // Seed 004 asks for every field (`requiredShippingAddressFields = .all`, its iOS 8 form).
        request.requiredShippingContactFields = [.postalAddress, .name, .phoneNumber, .emailAddress]
        request.requiredBillingContactFields = [.postalAddress, .name]
        request.shippingType = .delivery
        if let data = priced["applicationData"] as? String { request.applicationData = Data(base64Encoded: data) }
        return request
    }

    static func item(_ json: [String: Any]) -> PKPaymentSummaryItem {
        PKPaymentSummaryItem(
            label: json["label"] as? String ?? "",
            amount: NSDecimalNumber(string: json["amount"] as? String ?? "0"),
            type: json["type"] as? String == "pending" ? .pending : .final
        )
    }

    static func items(_ lines: [[String: Any]], total: [String: Any]?) -> [PKPaymentSummaryItem] {
        lines.map(item) + (total.map { [item($0)] } ?? [])
    }

    static func methods(_ json: [[String: Any]]) -> [PKShippingMethod] {
        json.map { m in
            let method = PKShippingMethod(
                label: m["label"] as? String ?? "",
                amount: NSDecimalNumber(string: m["amount"] as? String ?? "0")
            )
            method.identifier = m["identifier"] as? String
            method.detail = m["detail"] as? String
            return method
        }
    }

    /// The errors of an answer, built as PassKit builds them.
    static func errors(_ json: [[String: Any]]?) -> [Error] {
        (json ?? []).map { e in
            let message = e["message"] as? String
            switch e["code"] as? String {
            case "addressUnserviceable":
                return PKPaymentRequest.paymentShippingAddressUnserviceableError(withLocalizedDescription: message)
            case "couponCodeInvalid":
                return PKPaymentRequest.paymentCouponCodeInvalidError(localizedDescription: message)
            case "couponCodeExpired":
                return PKPaymentRequest.paymentCouponCodeExpiredError(localizedDescription: message)
            case "shippingContactInvalid":
                switch e["contactField"] as? String {
                case "phoneNumber":
                    return PKPaymentRequest.paymentContactInvalidError(
                        withContactField: .phoneNumber,
                        localizedDescription: message
                    )
                case "emailAddress":
                    return PKPaymentRequest.paymentContactInvalidError(
                        withContactField: .emailAddress,
                        localizedDescription: message
                    )
                case "name":
                    return PKPaymentRequest.paymentContactInvalidError(
                        withContactField: .name,
                        localizedDescription: message
                    )
                case "postalCode":
                    return PKPaymentRequest.paymentShippingAddressInvalidError(
                        withKey: CNPostalAddressPostalCodeKey,
                        localizedDescription: message
                    )
                case "locality":
                    return PKPaymentRequest.paymentShippingAddressInvalidError(
                        withKey: CNPostalAddressCityKey,
                        localizedDescription: message
                    )
                case "administrativeArea":
                    return PKPaymentRequest.paymentShippingAddressInvalidError(
                        withKey: CNPostalAddressStateKey,
                        localizedDescription: message
                    )
                case "countryCode":
                    return PKPaymentRequest.paymentShippingAddressInvalidError(
                        withKey: CNPostalAddressISOCountryCodeKey,
                        localizedDescription: message
                    )
                default:
                    return PKPaymentRequest.paymentShippingAddressInvalidError(
                        withKey: CNPostalAddressStreetKey,
                        localizedDescription: message
                    )
                }
            default:
                return PKPaymentRequest.paymentContactInvalidError(
                    withContactField: .postalAddress,
                    localizedDescription: message
                )
            }
        }
    }

    /// An update's new summary and methods, remembered for the next answer.
    func apply(_ update: [String: Any]) {
        if let total = update["newTotal"] as? [String: Any] {
            summaryItems = Self.items(update["newLineItems"] as? [[String: Any]] ?? [], total: total)
        }
        if let methods = update["newShippingMethods"] as? [[String: Any]], !methods.isEmpty {
            shippingMethods = Self.methods(methods)
        }
    }

    static func contact(_ contact: PKContact?) -> [String: Any] {
        guard let contact else { return [:] }
        var json: [String: Any] = [:]
        if let name = contact.name {
            json["givenName"] = name.givenName
            json["familyName"] = name.familyName
        }
        if let email = contact.emailAddress { json["emailAddress"] = email }
        if let phone = contact.phoneNumber?.stringValue { json["phoneNumber"] = phone }
        if let address = contact.postalAddress {
            json["addressLines"] = address.street.isEmpty ? [] : address.street.components(separatedBy: "\n")
            json["subLocality"] = address.subLocality
            json["locality"] = address.city
            json["subAdministrativeArea"] = address.subAdministrativeArea
            json["administrativeArea"] = address.state
            json["postalCode"] = address.postalCode
            json["country"] = address.country
            json["countryCode"] = address.isoCountryCode
        }
        return json
    }

    static func typeName(_ type: PKPaymentMethodType) -> String {
        switch type {
        case .debit: return "debit"
        case .credit: return "credit"
        case .prepaid: return "prepaid"
        case .store: return "store"
        default: return "unknown"
        }
    }

    static func method(_ method: PKPaymentMethod) -> [String: Any] {
        [
            "displayName": method.displayName ?? "", "network": method.network?.rawValue ?? "",
            "type": typeName(method.type),
        ]
    }

    // MARK: PKPaymentAuthorizationControllerDelegate

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact,
        handler completion: @escaping (PKPaymentRequestShippingContactUpdate) -> Void
    ) {
        Task {
            do {
                let update = try await api.post("shipping-contact", ["shippingContact": Self.contact(contact)])
                apply(update)
                completion(
                    PKPaymentRequestShippingContactUpdate(
                        errors: Self.errors(update["errors"] as? [[String: Any]]),
                        paymentSummaryItems: summaryItems,
                        shippingMethods: shippingMethods
                    )
                )
            } catch {
                completion(
                    PKPaymentRequestShippingContactUpdate(
                        errors: [
                            PKPaymentRequest.paymentShippingAddressUnserviceableError(
                                withLocalizedDescription: "\(error)"
                            )
                        ],
                        paymentSummaryItems: summaryItems,
                        shippingMethods: shippingMethods
                    )
                )
            }
        }
    }

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingMethod shippingMethod: PKShippingMethod,
        handler completion: @escaping (PKPaymentRequestShippingMethodUpdate) -> Void
    ) {
        Task {
            let update = try? await api.post(
                "shipping-method",
                ["shippingMethod": ["identifier": shippingMethod.identifier ?? ""]]
            )
            if let update { apply(update) }
            completion(PKPaymentRequestShippingMethodUpdate(paymentSummaryItems: summaryItems))
        }
    }

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectPaymentMethod paymentMethod: PKPaymentMethod,
        handler completion: @escaping (PKPaymentRequestPaymentMethodUpdate) -> Void
    ) {
        Task {
            let update = try? await api.post("payment-method", ["paymentMethod": Self.method(paymentMethod)])
            if let update { apply(update) }
            completion(PKPaymentRequestPaymentMethodUpdate(errors: nil, paymentSummaryItems: summaryItems))
        }
    }

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didChangeCouponCode couponCode: String,
        handler completion: @escaping (PKPaymentRequestCouponCodeUpdate) -> Void
    ) {
        Task {
            let update = (try? await api.post("coupon-code", ["couponCode": couponCode])) ?? [:]
            apply(update)
            completion(
                PKPaymentRequestCouponCodeUpdate(
                    errors: Self.errors(update["errors"] as? [[String: Any]]),
                    paymentSummaryItems: summaryItems,
                    shippingMethods: shippingMethods
                )
            )
        }
    }

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment,
        handler completion: @escaping (PKPaymentAuthorizationResult) -> Void
    ) {
        Task {
            do {
                let token = try JSONSerialization.jsonObject(with: payment.token.paymentData)
                let body: [String: Any] = [
                    "payment": [
                        "token": [
                            "paymentMethod": Self.method(payment.token.paymentMethod),
                            "transactionIdentifier": payment.token.transactionIdentifier,
                            "paymentData": token,
                        ],
                        "shippingContact": Self.contact(payment.shippingContact),
                        "billingContact": Self.contact(payment.billingContact),
                    ]
                ]
                let answer = try await api.post("authorize", body)
                lastResult = answer["result"] as? [String: Any]
                let status = (lastResult?["status"] as? NSNumber)?.intValue ?? 1
                completion(
                    PKPaymentAuthorizationResult(
                        status: status == 0 ? .success : .failure,
                        errors: Self.errors(lastResult?["errors"] as? [[String: Any]])
                    )
                )
            } catch {
                completion(PKPaymentAuthorizationResult(status: .failure, errors: nil))
            }
        }
    }

    public func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController) {
        finished = true
        controller.dismiss(completion: nil)
    }
}
