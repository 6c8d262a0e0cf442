import Foundation
import PaysheetModel

/// PassKit's objects as the sheet engine's JSON (Apple Pay JS's wire names), and back.
enum PassKitBridge {
    /// The currency of the request being converted (its minor digits format the amounts).
    @TaskLocal static var minorDigits: Int?

    static func amount(_ number: NSDecimalNumber) -> String {
        var value = number.decimalValue
        var rounded = Decimal()
        // A Double-made amount (`NSDecimalNumber(value: 10.8)`) carries binary noise past the
        // eighth digit; PassKit reads it to the currency's digits. Eight digits keep every real one.
        NSDecimalRound(&rounded, &value, 8, .plain)
        var text = NSDecimalNumber(decimal: rounded).stringValue
        // Written with the currency's digits (9 → 9.00), as the sheet shows it; an amount with more
        // digits than the currency has is left as it is, for the sheet's validation to refuse.
        if let digits = minorDigits, digits > 0, !text.contains("e") {
            let fraction =
                text.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first.map(String.init) ?? ""
            if fraction.count < digits {
                text = (fraction.isEmpty ? text + "." : text) + String(repeating: "0", count: digits - fraction.count)
            }
        }
        return text
    }

    static func isoDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    static func unitName(_ unit: NSCalendar.Unit) -> String {
        switch unit {
        case .year: return "year"
        case .month: return "month"
        case .day: return "day"
        case .hour: return "hour"
        case .minute: return "minute"
        default: return "month"
        }
    }

    static func item(_ item: PKPaymentSummaryItem) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("label", .string(item.label)), ("amount", .string(amount(item.amount))),
            ("type", .string(item.type == .pending ? "pending" : "final")),
        ]
        if let recurring = item as? PKRecurringPaymentSummaryItem {
            members.append(("paymentTiming", "recurring"))
            if let start = recurring.startDate {
                members.append(("recurringPaymentStartDate", .string(isoDate(start))))
            }
            members.append(("recurringPaymentIntervalUnit", .string(unitName(recurring.intervalUnit))))
            members.append(("recurringPaymentIntervalCount", .number(String(recurring.intervalCount))))
            if let end = recurring.endDate { members.append(("recurringPaymentEndDate", .string(isoDate(end)))) }
        } else if let deferred = item as? PKDeferredPaymentSummaryItem {
            members.append(("paymentTiming", "deferred"))
            members.append(("deferredPaymentDate", .string(isoDate(deferred.deferredDate))))
        } else if let reload = item as? PKAutomaticReloadPaymentSummaryItem {
            members.append(("paymentTiming", "automaticReload"))
            members.append(("automaticReloadPaymentThresholdAmount", .string(amount(reload.thresholdAmount))))
        }
        return .object(JSONObject(members))
    }

    static func components(_ c: DateComponents) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let year = c.year { members.append(("years", .number(String(year)))) }
        if let month = c.month { members.append(("months", .number(String(month)))) }
        if let day = c.day { members.append(("days", .number(String(day)))) }
        if let hour = c.hour { members.append(("hours", .number(String(hour)))) }
        return .object(JSONObject(members))
    }

    static func method(_ method: PKShippingMethod) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("label", .string(method.label)), ("detail", .string(method.detail ?? "")),
            ("amount", .string(amount(method.amount))), ("identifier", .string(method.identifier ?? "")),
        ]
        if let range = method.dateComponentsRange {
            members.append(
                (
                    "dateComponentsRange",
                    [
                        "startDateComponents": components(range.startDateComponents),
                        "endDateComponents": components(range.endDateComponents),
                    ]
                )
            )
        }
        return .object(JSONObject(members))
    }

    static func contact(_ contact: PKContact) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let name = contact.name {
            if let given = name.givenName { members.append(("givenName", .string(given))) }
            if let family = name.familyName { members.append(("familyName", .string(family))) }
            if let phonetic = name.phoneticRepresentation {
                if let given = phonetic.givenName { members.append(("phoneticGivenName", .string(given))) }
                if let family = phonetic.familyName { members.append(("phoneticFamilyName", .string(family))) }
            }
        }
        if let email = contact.emailAddress { members.append(("emailAddress", .string(email))) }
        if let phone = contact.phoneNumber { members.append(("phoneNumber", .string(phone.stringValue))) }
        if let address = contact.postalAddress {
            let lines = address.street.split(separator: "\n", omittingEmptySubsequences: false).map {
                JSONValue.string(String($0))
            }
            members += [
                ("addressLines", .array(address.street.isEmpty ? [] : lines)),
                ("subLocality", .string(address.subLocality)),
                ("locality", .string(address.city)), ("subAdministrativeArea", .string(address.subAdministrativeArea)),
                ("administrativeArea", .string(address.state)), ("postalCode", .string(address.postalCode)),
                ("country", .string(address.country)), ("countryCode", .string(address.isoCountryCode)),
            ]
        }
        return .object(JSONObject(members))
    }

    static func contact(_ contact: ApplePayPaymentContact) -> PKContact {
        let result = PKContact()
        if contact.givenName != nil || contact.familyName != nil || contact.phoneticGivenName != nil
            || contact.phoneticFamilyName != nil
        {
            var name = PersonNameComponents()
            name.givenName = contact.givenName
            name.familyName = contact.familyName
            if contact.phoneticGivenName != nil || contact.phoneticFamilyName != nil {
                var phonetic = PersonNameComponents()
                phonetic.givenName = contact.phoneticGivenName
                phonetic.familyName = contact.phoneticFamilyName
                name.phoneticRepresentation = phonetic
            }
            result.name = name
        }
        result.emailAddress = contact.emailAddress
        result.phoneNumber = contact.phoneNumber.map { CNPhoneNumber(stringValue: $0) }
        if contact.hasPostalAddress || contact.locality != nil || contact.postalCode != nil
            || contact.countryCode != nil
        {
            let address = CNMutablePostalAddress()
            address.street = (contact.addressLines ?? []).joined(separator: "\n")
            address.subLocality = contact.subLocality ?? ""
            address.city = contact.locality ?? ""
            address.subAdministrativeArea = contact.subAdministrativeArea ?? ""
            address.state = contact.administrativeArea ?? ""
            address.postalCode = contact.postalCode ?? ""
            address.country = contact.country ?? ""
            address.isoCountryCode = contact.countryCode ?? ""
            result.postalAddress = address
        }
        return result
    }

    static func fields(_ fields: Set<PKContactField>) -> JSONValue {
        .array(fields.map(\.pageName).sorted().map { .string($0) })
    }

    static func merchantTokenRequest(
        description: String,
        billing: PKPaymentSummaryItem,
        billingKey: String,
        agreement: String?,
        management: URL,
        notification: URL?,
        extra: [(String, JSONValue)] = []
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("paymentDescription", .string(description)), (billingKey, item(billing)),
            ("managementURL", .string(management.absoluteString)),
        ]
        if let agreement { members.append(("billingAgreement", .string(agreement))) }
        if let notification { members.append(("tokenNotificationURL", .string(notification.absoluteString))) }
        return .object(JSONObject(members + extra))
    }

    /// `request` as the engine's request JSON.
    static func request(_ request: PKPaymentRequest) -> JSONValue {
        let items = request.paymentSummaryItems
        var members: [(String, JSONValue)] = [
            ("countryCode", .string(request.countryCode)), ("currencyCode", .string(request.currencyCode)),
            ("supportedNetworks", .array(request.supportedNetworks.map { .string($0.pageName) })),
            ("merchantCapabilities", .array(request.merchantCapabilities.pageNames.map { .string($0) })),
        ]
        if let total = items.last { members.append(("total", item(total))) }
        if items.count > 1 { members.append(("lineItems", .array(items.dropLast().map(item)))) }
        if !request.requiredBillingContactFields.isEmpty {
            members.append(("requiredBillingContactFields", fields(request.requiredBillingContactFields)))
        }
        if !request.requiredShippingContactFields.isEmpty {
            members.append(("requiredShippingContactFields", fields(request.requiredShippingContactFields)))
        }
        if let billing = request.billingContact { members.append(("billingContact", contact(billing))) }
        if let shipping = request.shippingContact { members.append(("shippingContact", contact(shipping))) }
        if let methods = request.shippingMethods, !methods.isEmpty {
            members.append(("shippingMethods", .array(methods.map(method))))
        }
        members.append(("shippingType", .string(request.shippingType.pageName)))
        if let data = request.applicationData {
            members.append(("applicationData", .string(data.base64EncodedString())))
        }
        if let countries = request.supportedCountries {
            members.append(("supportedCountries", .array(countries.sorted().map { .string($0) })))
        }
        if request.supportsCouponCode { members.append(("supportsCouponCode", true)) }
        if let code = request.couponCode { members.append(("couponCode", .string(code))) }
        if case .unavailable(let reason) = request.applePayLaterAvailability {
            members.append(
                (
                    "applePayLaterAvailability",
                    reason == .itemIneligible ? "unavailableItemIneligible" : "unavailableRecurringTransaction"
                )
            )
        }
        if let code = request.merchantCategoryCode {
            members.append(("merchantCategoryCode", .string(String(format: "%04d", Int(code.rawValue)))))
        }
        if request.shippingContactEditingMode == .storePickup {
            members.append(("shippingContactEditingMode", "storePickup"))
        }
        if let r = request.recurringPaymentRequest {
            var extra: [(String, JSONValue)] = []
            if let trial = r.trialBilling { extra.append(("trialBilling", item(trial))) }
            members.append(
                (
                    "recurringPaymentRequest",
                    merchantTokenRequest(
                        description: r.paymentDescription,
                        billing: r.regularBilling,
                        billingKey: "regularBilling",
                        agreement: r.billingAgreement,
                        management: r.managementURL,
                        notification: r.tokenNotificationURL,
                        extra: extra
                    )
                )
            )
        }
        if let r = request.automaticReloadPaymentRequest {
            members.append(
                (
                    "automaticReloadPaymentRequest",
                    merchantTokenRequest(
                        description: r.paymentDescription,
                        billing: r.automaticReloadBilling,
                        billingKey: "automaticReloadBilling",
                        agreement: r.billingAgreement,
                        management: r.managementURL,
                        notification: r.tokenNotificationURL
                    )
                )
            )
        }
        if let r = request.deferredPaymentRequest {
            var extra: [(String, JSONValue)] = []
            if let date = r.freeCancellationDate { extra.append(("freeCancellationDate", .string(isoDate(date)))) }
            if let zone = r.freeCancellationDateTimeZone {
                extra.append(("freeCancellationDateTimeZone", .string(zone.identifier)))
            }
            members.append(
                (
                    "deferredPaymentRequest",
                    merchantTokenRequest(
                        description: r.paymentDescription,
                        billing: r.deferredBilling,
                        billingKey: "deferredBilling",
                        agreement: r.billingAgreement,
                        management: r.managementURL,
                        notification: r.tokenNotificationURL,
                        extra: extra
                    )
                )
            )
        }
        if !request.multiTokenContexts.isEmpty {
            members.append(
                (
                    "multiTokenContexts",
                    .array(
                        request.multiTokenContexts.map { c in
                            var context: [(String, JSONValue)] = [
                                ("merchantIdentifier", .string(c.merchantIdentifier)),
                                ("externalIdentifier", .string(c.externalIdentifier)),
                                ("merchantName", .string(c.merchantName)), ("amount", .string(amount(c.amount))),
                            ]
                            if let domain = c.merchantDomain { context.append(("merchantDomain", .string(domain))) }
                            return .object(JSONObject(context))
                        }
                    )
                )
            )
        }
        return .object(JSONObject(members))
    }

    // MARK: Answers

    static let postalKeys: [String: String] = [
        CNPostalAddressStreetKey: "addressLines", CNPostalAddressSubLocalityKey: "subLocality",
        CNPostalAddressCityKey: "locality", CNPostalAddressSubAdministrativeAreaKey: "subAdministrativeArea",
        CNPostalAddressStateKey: "administrativeArea", CNPostalAddressPostalCodeKey: "postalCode",
        CNPostalAddressCountryKey: "country", CNPostalAddressISOCountryCodeKey: "countryCode",
    ]

    /// A PassKit error as Apple Pay JS's `ApplePayError`.
    static func error(_ error: Error) -> JSONValue {
        guard let error = error as? PKPaymentError else {
            return ["code": "unknown", "message": .string((error as NSError).localizedDescription)]
        }
        let code: String
        switch error.code {
        case .shippingContactInvalidError: code = "shippingContactInvalid"
        case .billingContactInvalidError: code = "billingContactInvalid"
        case .shippingAddressUnserviceableError: code = "addressUnserviceable"
        case .couponCodeInvalidError: code = "couponCodeInvalid"
        case .couponCodeExpiredError: code = "couponCodeExpired"
        case .unknownError: code = "unknown"
        }
        var members: [(String, JSONValue)] = [("code", .string(code))]
        if let key = error.postalAddressField {
            members.append(("contactField", .string(postalKeys[key] ?? "postalAddress")))
        } else if let field = error.contactField {
            members.append(
                ("contactField", .string(field == .postalAddress ? "postalAddress" : contactErrorField(field)))
            )
        }
        members.append(("message", .string(error.localizedDescription ?? "")))
        return .object(JSONObject(members))
    }

    static func contactErrorField(_ field: PKContactField) -> String {
        switch field {
        case .phoneNumber: return "phoneNumber"
        case .emailAddress: return "emailAddress"
        case .name: return "name"
        case .phoneticName: return "phoneticName"
        default: return "postalAddress"
        }
    }

    /// An update's JSON: the new total and lines, methods, errors.
    static func update(_ update: PKPaymentRequestUpdate, errors: [Error]?, methods: [PKShippingMethod]?) -> JSONValue {
        var members: [(String, JSONValue)] = []
        let items = update.paymentSummaryItems
        if let total = items.last { members.append(("newTotal", item(total))) }
        members.append(("newLineItems", .array(items.dropLast().map(item))))
        if let methods, !methods.isEmpty { members.append(("newShippingMethods", .array(methods.map(method)))) }
        if let errors, !errors.isEmpty { members.append(("errors", .array(errors.map(error)))) }
        return .object(JSONObject(members))
    }

    static func legacyArguments(
        status: PKPaymentAuthorizationStatus,
        methods: [PKShippingMethod]?,
        items: [PKPaymentSummaryItem]
    ) -> [JSONValue] {
        var arguments: [JSONValue] = [.number(String(status.rawValue))]
        if let methods { arguments.append(.array(methods.map(method))) }
        arguments.append(items.last.map(item) ?? .null)
        arguments.append(.array(items.dropLast().map(item)))
        return arguments
    }

    /// An authorization result's JSON.
    static func result(_ result: PKPaymentAuthorizationResult) -> JSONValue {
        var members: [(String, JSONValue)] = [("status", .number(String(result.status.rawValue)))]
        if let errors = result.errors, !errors.isEmpty { members.append(("errors", .array(errors.map(error)))) }
        if let order = result.orderDetails {
            members.append(
                (
                    "orderDetails",
                    [
                        "orderTypeIdentifier": .string(order.orderTypeIdentifier),
                        "orderIdentifier": .string(order.orderIdentifier),
                        "webServiceURL": .string(order.webServiceURL.absoluteString),
                        "authenticationToken": .string(order.authenticationToken),
                    ]
                )
            )
        }
        return .object(JSONObject(members))
    }

    /// The engine's card as PassKit's.
    static func paymentMethod(_ method: ApplePayPaymentMethod) -> PKPaymentMethod {
        let result = PKPaymentMethod()
        result.displayName = method.displayName
        result.network = method.network.map(PKPaymentNetwork.init(pageName:))
        result.type = PKPaymentMethodType(pageName: method.type?.rawValue)
        return result
    }
}
