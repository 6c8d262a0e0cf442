import Foundation
import PaysheetModel
import Testing

@testable import PaysheetPassKit

/// Seed 000's table of `completePayment` results (its 21 rows, the conformance files
/// `Conformance/generated/complete-payment-row-NN.json`, which the web API runs) run again through
/// PassKit: the row's result built as app code builds it (`PKPaymentAuthorizationResult` with
/// `PKPaymentError`s) must show on the sheet what the row says. (In the serialized suite of the
/// other PassKit tests: they share the simulator.)
enum SeedTableRows {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Conformance/generated")

    static var rows: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasPrefix("complete-payment-row-") }.sorted()
    }

    /// The app's delegate: every selection keeps the summary; the authorization answers the row's result.
    final class RowCheckout: NSObject, PKPaymentAuthorizationControllerDelegate, @unchecked Sendable {
        let result: PKPaymentAuthorizationResult
        init(result: PKPaymentAuthorizationResult) { self.result = result }
        func paymentAuthorizationController(
            _ controller: PKPaymentAuthorizationController,
            didAuthorizePayment payment: PKPayment,
            handler completion: @escaping (PKPaymentAuthorizationResult) -> Void
        ) { completion(result) }
        func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController) {}
    }

    static let postalKeys: [String: String] = [
        "postalCode": CNPostalAddressPostalCodeKey, "locality": CNPostalAddressCityKey,
        "administrativeArea": CNPostalAddressStateKey, "addressLines": CNPostalAddressStreetKey,
        "countryCode": CNPostalAddressISOCountryCodeKey, "country": CNPostalAddressCountryKey,
        "subLocality": CNPostalAddressSubLocalityKey, "subAdministrativeArea": CNPostalAddressSubAdministrativeAreaKey,
    ]

    /// An `ApplePayError` of the row as app code builds it with PassKit.
    static func error(_ json: JSONValue) -> Error {
        let message = json["message"]?.stringValue
        let field = json["contactField"]?.stringValue
        switch json["code"]?.stringValue {
        case "shippingContactInvalid":
            if let field, let key = postalKeys[field] {
                return PKPaymentRequest.paymentShippingAddressInvalidError(withKey: key, localizedDescription: message)
            }
            return PKPaymentError(.shippingContactInvalidError, userInfo: [NSLocalizedDescriptionKey: message ?? ""])
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
        default:
            var info: [String: Any] = [NSLocalizedDescriptionKey: message ?? ""]
            if let field, let key = postalKeys[field] {
                info[PKPaymentErrorKey.postalAddressUserInfoKey.rawValue] = key
            }
            return PKPaymentError(.unknownError, userInfo: info)
        }
    }

    /// Whether every member of `expected` is in `actual` with the same value (objects recursively).
    static func contains(_ actual: JSONValue?, _ expected: JSONValue) -> Bool {
        guard case .object(let members) = expected else { return actual == expected }
        return members.members.allSatisfy { contains(actual?[$0.key], $0.value) }
    }

}

extension PassKitCheckoutTests {
    @Test func everyRowOfSeedZerosTableShowsTheSameThroughPassKit() async throws {
        #expect(SeedTableRows.rows.count == 21)
        for row in SeedTableRows.rows {
            let json = try JSONParser.parse(
                Array(try Data(contentsOf: SeedTableRows.folder.appendingPathComponent(row)))
            )
            let steps = json["steps"]?.arrayValue ?? []
            guard let index = steps.firstIndex(where: { $0["page"]?.stringValue == "completePayment" }),
                let result = steps[index]["result"], let expected = steps.dropFirst(index + 1).first?["expect"]
            else {
                Issue.record("\(row): no completePayment and expectation")
                continue
            }
            let request = PKPaymentRequest()
            let r = json["request"]
            request.merchantIdentifier = "merchant.dev.paysheet.sandbox"
            request.countryCode = r?["countryCode"]?.stringValue ?? ""
            request.currencyCode = r?["currencyCode"]?.stringValue ?? ""
            request.supportedNetworks = (r?["supportedNetworks"]?.arrayValue ?? []).compactMap {
                $0.stringValue.map(PKPaymentNetwork.init(pageName:))
            }
            request.merchantCapabilities = .threeDSecure
            request.paymentSummaryItems = [
                PKPaymentSummaryItem(
                    label: r?["total"]?["label"]?.stringValue ?? "",
                    amount: NSDecimalNumber(string: r?["total"]?["amount"]?.stringValue ?? "0")
                )
            ]
            let fields: [String: PKContactField] = [
                "postalAddress": .postalAddress, "email": .emailAddress, "phone": .phoneNumber, "name": .name,
            ]
            request.requiredShippingContactFields = Set(
                (r?["requiredShippingContactFields"]?.arrayValue ?? []).compactMap {
                    $0.stringValue.flatMap { fields[$0] }
                }
            )
            let status = PKPaymentAuthorizationStatus(rawValue: Int(result["status"]?.doubleValue ?? 1)) ?? .failure
            let answer = PKPaymentAuthorizationResult(
                status: status,
                errors: (result["errors"]?.arrayValue ?? []).map(SeedTableRows.error)
            )
            let controller = PKPaymentAuthorizationController(paymentRequest: request)
            let checkout = SeedTableRows.RowCheckout(result: answer)
            controller.delegate = checkout
            #expect(await controller.present(), "\(row)")
            let session = try #require(await PaysheetSimulator.shared.finishedSession())
            let shown = session.shownAfter.last { $0.cause == "completePayment" }?.sheet
            if let sheet = expected["sheet"] {
                #expect(
                    SeedTableRows.contains(shown, sheet),
                    "\(row): \(shown?.compactText ?? "nothing shown") is not \(sheet.compactText)"
                )
            }
            if let paid = expected["paid"]?.boolValue { #expect((session.outcome == .paid) == paid, "\(row)") }
        }
    }
}
