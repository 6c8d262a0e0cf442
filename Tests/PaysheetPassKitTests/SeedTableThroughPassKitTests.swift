import Foundation
import PaysheetModel
import Testing

@testable import PaysheetPassKit

/// Scenario files that name `"passkit"` in their `surfaces` (the conformance suite's seed 000
/// table of `completePayment` results, its 21 rows) run again through PassKit: the page's answers
/// built as app code builds them — `PKPaymentRequest…Update`s and `PKPaymentAuthorizationResult`
/// with `PKPaymentError`s — must show on the sheet what the scenario says the web shows.
enum PassKitScenarios {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Conformance")

    /// Every scenario file that names the PassKit surface, by path relative to `Conformance/`.
    static var files: [String] {
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".json"),
                let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path),
                let json = try? JSONParser.parse(Array(data)),
                json["surfaces"]?.arrayValue?.contains(.string("passkit")) == true
            else { continue }
            found.append(path)
        }
        return found.sorted()
    }

    /// The app's delegate: each answer is the scenario's next page step of that kind.
    final class ScenarioCheckout: NSObject, PKPaymentAuthorizationControllerDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var pages: [JSONValue]
        init(pages: [JSONValue]) { self.pages = pages }

        func next(_ method: String) -> JSONValue? {
            lock.lock()
            defer { lock.unlock() }
            guard let index = pages.firstIndex(where: { $0["page"]?.stringValue == method }) else { return nil }
            return pages.remove(at: index)
        }

        func update(
            _ method: String,
            _ controller: PKPaymentAuthorizationController
        ) -> (
            items: [PKPaymentSummaryItem], errors: [Error]
        ) {
            guard let json = next(method)?["update"] else { return (controller.currentSummaryItems, []) }
            let lines = (json["newLineItems"]?.arrayValue ?? []).map(PassKitScenarios.item)
            let total = json["newTotal"].map(PassKitScenarios.item)
            return (
                total.map { lines + [$0] } ?? controller.currentSummaryItems,
                (json["errors"]?.arrayValue ?? []).map(PassKitScenarios.error)
            )
        }

        func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController,
            didSelectPaymentMethod paymentMethod: PKPaymentMethod
        ) async -> PKPaymentRequestPaymentMethodUpdate {
            let (items, errors) = update("completePaymentMethodSelection", controller)
            return PKPaymentRequestPaymentMethodUpdate(errors: errors, paymentSummaryItems: items)
        }

        func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController,
            didSelectShippingContact contact: PKContact
        ) async -> PKPaymentRequestShippingContactUpdate {
            let (items, errors) = update("completeShippingContactSelection", controller)
            return PKPaymentRequestShippingContactUpdate(
                errors: errors,
                paymentSummaryItems: items,
                shippingMethods: []
            )
        }

        func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController,
            didAuthorizePayment payment: PKPayment
        ) async -> PKPaymentAuthorizationResult {
            let result = next("completePayment")?["result"] ?? ["status": 0]
            let status = PKPaymentAuthorizationStatus(rawValue: Int(result["status"]?.doubleValue ?? 1)) ?? .failure
            return PKPaymentAuthorizationResult(
                status: status,
                errors: (result["errors"]?.arrayValue ?? []).map(PassKitScenarios.error)
            )
        }

        func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController) {}
    }

    static func item(_ json: JSONValue) -> PKPaymentSummaryItem {
        PKPaymentSummaryItem(
            label: json["label"]?.stringValue ?? "",
            amount: NSDecimalNumber(string: json["amount"]?.stringValue ?? "0"),
            type: json["type"]?.stringValue == "pending" ? .pending : .final
        )
    }

    static let postalKeys: [String: String] = [
        "postalCode": CNPostalAddressPostalCodeKey, "locality": CNPostalAddressCityKey,
        "administrativeArea": CNPostalAddressStateKey, "addressLines": CNPostalAddressStreetKey,
        "countryCode": CNPostalAddressISOCountryCodeKey, "country": CNPostalAddressCountryKey,
        "subLocality": CNPostalAddressSubLocalityKey, "subAdministrativeArea": CNPostalAddressSubAdministrativeAreaKey,
    ]

    /// An `ApplePayError` as app code builds it with PassKit.
    static func error(_ json: JSONValue) -> Error {
        let message = json["message"]?.stringValue
        let field = json["contactField"]?.stringValue
        let contactFields: [String: PKContactField] = [
            "phoneNumber": .phoneNumber, "emailAddress": .emailAddress, "name": .name, "phoneticName": .phoneticName,
        ]
        switch json["code"]?.stringValue {
        case "shippingContactInvalid":
            if let field, let key = postalKeys[field] {
                return PKPaymentRequest.paymentShippingAddressInvalidError(withKey: key, localizedDescription: message)
            }
            if let field, let contactField = contactFields[field] {
                return PKPaymentRequest.paymentContactInvalidError(
                    withContactField: contactField,
                    localizedDescription: message
                )
            }
            return PKPaymentError(.shippingContactInvalidError, userInfo: [NSLocalizedDescriptionKey: message ?? ""])
        case "billingContactInvalid":
            return PKPaymentRequest.paymentBillingAddressInvalidError(
                withKey: field.flatMap { postalKeys[$0] } ?? CNPostalAddressStreetKey,
                localizedDescription: message
            )
        case "addressUnserviceable":
            guard let field, let key = postalKeys[field] else {
                return PKPaymentRequest.paymentShippingAddressUnserviceableError(withLocalizedDescription: message)
            }
            return PKPaymentError(
                .shippingAddressUnserviceableError,
                userInfo: [
                    NSLocalizedDescriptionKey: message ?? "", PKPaymentErrorKey.postalAddressUserInfoKey.rawValue: key,
                ]
            )
        case "couponCodeInvalid": return PKPaymentRequest.paymentCouponCodeInvalidError(localizedDescription: message)
        case "couponCodeExpired": return PKPaymentRequest.paymentCouponCodeExpiredError(localizedDescription: message)
        default:
            var info: [String: Any] = [NSLocalizedDescriptionKey: message ?? ""]
            if let field, let key = postalKeys[field] {
                info[PKPaymentErrorKey.postalAddressUserInfoKey.rawValue] = key
            }
            return PKPaymentError(.unknownError, userInfo: info)
        }
    }

    /// The scenario's request as app code writes it.
    static func request(_ r: JSONValue?) -> PKPaymentRequest {
        let request = PKPaymentRequest()
        request.merchantIdentifier = "merchant.dev.paysheet.sandbox"
        request.countryCode = r?["countryCode"]?.stringValue ?? ""
        request.currencyCode = r?["currencyCode"]?.stringValue ?? ""
        request.supportedNetworks = (r?["supportedNetworks"]?.arrayValue ?? []).compactMap {
            $0.stringValue.map(PKPaymentNetwork.init(pageName:))
        }
        request.merchantCapabilities = .threeDSecure
        let lines = (r?["lineItems"]?.arrayValue ?? []).map(item)
        request.paymentSummaryItems = lines + [r?["total"].map(item) ?? PKPaymentSummaryItem()]
        let fields: [String: PKContactField] = [
            "postalAddress": .postalAddress, "email": .emailAddress, "phone": .phoneNumber, "name": .name,
            "phoneticName": .phoneticName,
        ]
        request.requiredShippingContactFields = Set(
            (r?["requiredShippingContactFields"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap { fields[$0] } }
        )
        request.requiredBillingContactFields = Set(
            (r?["requiredBillingContactFields"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap { fields[$0] } }
        )
        return request
    }

    /// Whether every member of `expected` is in `actual` with the same value (objects recursively).
    static func contains(_ actual: JSONValue?, _ expected: JSONValue) -> Bool {
        guard case .object(let members) = expected else { return actual == expected }
        return members.members.allSatisfy { contains(actual?[$0.key], $0.value) }
    }
}

extension PassKitCheckoutTests {
    @Test func theScenariosThatNamePassKitShowTheSameThroughIt() async throws {
        let files = PassKitScenarios.files
        #expect(files.count >= 21)  // seed 000's rows at least
        for file in files {
            let json = try JSONParser.parse(
                Array(try Data(contentsOf: PassKitScenarios.root.appendingPathComponent(file)))
            )
            let steps = json["steps"]?.arrayValue ?? []
            // The shopper does what the scenario's user steps do; the delegate answers its page steps.
            PaysheetSimulator.shared.shopper = steps.compactMap { step -> PaysheetShopperStep? in
                switch step["user"]?.stringValue {
                case "authorize": return .authorize
                case "selectShippingContact": return .selectShippingContact(Int(step["index"]?.doubleValue ?? 0))
                case "selectPaymentMethod": return .selectCard(Int(step["index"]?.doubleValue ?? 0))
                case "editContact":
                    return .editContact(email: step["email"]?.stringValue, phone: step["phone"]?.stringValue)
                case "cancel": return .cancel
                case "selectShippingMethod": return step["identifier"]?.stringValue.map { .selectShippingMethod($0) }
                case "enterCouponCode": return step["code"]?.stringValue.map { .enterCouponCode($0) }
                default: return nil
                }
            }
            let controller = PKPaymentAuthorizationController(paymentRequest: PassKitScenarios.request(json["request"]))
            let checkout = PassKitScenarios.ScenarioCheckout(pages: steps.filter { $0["page"] != nil })
            controller.delegate = checkout
            #expect(await controller.present(), "\(file)")
            let session = try #require(await PaysheetSimulator.shared.finishedSession())
            // What the scenario expects right after each of its completePayment steps (the n-th
            // answer's sheet), and whether it ends paid.
            let shown = session.shownAfter.filter { $0.cause == "completePayment" }.map(\.sheet)
            var answered = 0
            for (index, step) in steps.enumerated() where step["page"]?.stringValue == "completePayment" {
                defer { answered += 1 }
                guard let sheet = steps.dropFirst(index + 1).first?["expect"]?["sheet"] else { continue }
                let actual = answered < shown.count ? shown[answered] : nil
                #expect(
                    PassKitScenarios.contains(actual, sheet),
                    "\(file) (answer \(answered + 1)): \(actual?.compactText ?? "nothing shown") is not \(sheet.compactText)"
                )
            }
            if let paid = steps.last(where: { $0["expect"]?["paid"] != nil })?["expect"]?["paid"]?.boolValue {
                #expect((session.outcome == .paid) == paid, "\(file)")
            }
        }
    }
}
