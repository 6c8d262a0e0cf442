import Foundation
import PaysheetModel
import PaysheetSheet
import Testing

@testable import PaysheetPassKit

extension PassKitCheckoutTests {
    /// The simulated iPhone's language is the sheet's: its own words in Japanese, the app's as given.
    @Test func theSimulatedIPhonesLanguageIsTheSheets() async throws {
        PaysheetSimulator.shared.language = SheetLanguage(locale: Locale(identifier: "ja_JP"))
        defer { PaysheetSimulator.shared.language = .english }
        PaysheetSimulator.shared.shopper = [.cancel]
        let checkout = LegacyStatusCheckout(contactStatus: .invalidShippingPostalAddress, paymentStatus: .success)
        let controller = PKPaymentAuthorizationController(paymentRequest: legacyRequest())
        controller.delegate = checkout
        #expect(await controller.present())
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        let shown = session.shown.map(\.compactText).joined(separator: "\n")
        #expect(shown.contains("連絡先情報を確認してください"), "\(session.log)")
        #expect(!shown.contains("Verify Contact Information"))
        #expect(session.shown.last?["language"] == "ja")
        PaysheetSimulator.shared.reset()
        #expect(PaysheetSimulator.shared.language == .english)
    }
}
