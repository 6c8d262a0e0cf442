import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// Versions 1–2 complete a payment with a status alone: the sheet shows what seed 000's status
/// table says for that status (`docs/payment-sheet.md` §4).
@Suite struct LegacyStatusTests {
    static let request: JSONValue = [
        "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa"],
        "merchantCapabilities": ["supports3DS"], "total": ["label": "Shop", "amount": "1.00"],
        "requiredShippingContactFields": ["postalAddress", "email"],
    ]

    /// A version 2 session authorized and completed with `status`; the sheet as it then shows.
    func completed(with status: Int) throws -> JSONObject {
        var m = SheetMachine(configuration: SheetConfiguration(listeners: [.validatemerchant, .paymentauthorized]))
        m.setWebKitMock(true)
        _ = m.construct(version: 2, request: Self.request)
        _ = m.call(.begin, session: 1)
        _ = m.call(.completeMerchantValidation([:]), session: 1)
        _ = m.perform(.authorize, from: .webKitMock)
        #expect(m.state(of: 1) == .authorized)
        let call = try #require(PageCall(.completePayment, arguments: [.number(String(status))]))
        let done = m.call(call, session: 1)
        #expect(done.threw == nil)
        return m.snapshot().objectValue ?? JSONObject()
    }

    func moduleError(_ sheet: JSONObject, _ module: String) -> String? {
        guard let error = sheet["modules"]?.objectValue?[module]?.objectValue?["error"]?.objectValue else { return nil }
        return [error["title"]?.stringValue, error["message"]?.stringValue].compactMap { $0 }.joined(separator: ", ")
    }

    @Test func invalidShippingPostalAddressShowsTheSeedsRow() throws {
        let sheet = try completed(with: 3)
        #expect(sheet["status"]?.stringValue == "Shipping Address Invalid")
        #expect(moduleError(sheet, "shipping") == "SHIPPING ADDRESS INVALID, invalid address")
        #expect(sheet["visible"]?.boolValue == true)
    }

    @Test func invalidShippingContactShowsTheSeedsRow() throws {
        let sheet = try completed(with: 4)
        #expect(sheet["status"]?.stringValue == "Verify Contact Information")
        #expect(moduleError(sheet, "contact") == "VERIFY CONTACT INFORMATION, invalid contact information")
    }

    @Test func theOtherStatusesKeepTheirWords() throws {
        #expect(try completed(with: 1)["status"]?.stringValue == "Payment Not Completed")
        #expect(try completed(with: 2)["status"]?.stringValue == "Billing Address Invalid")
        #expect(try completed(with: 5)["status"]?.stringValue == "PIN Required")
        #expect(try completed(with: 6)["status"]?.stringValue == "Incorrect PIN")
        #expect(try completed(with: 7)["status"]?.stringValue == "PIN Locked")
    }
}
