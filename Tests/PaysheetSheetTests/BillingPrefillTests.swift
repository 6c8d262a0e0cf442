import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// A request's `billingContact` prefills the billing address the payment carries.
@Suite struct BillingPrefillTests {
    @Test func theRequestsBillingContactIsTheOnePaid() throws {
        var m = SheetMachine(configuration: SheetConfiguration(listeners: [.validatemerchant, .paymentauthorized]))
        let request: JSONValue = [
            "countryCode": "CN", "currencyCode": "CNY", "supportedNetworks": ["visa"],
            "merchantCapabilities": ["supports3DS"], "total": ["label": "Shop", "amount": "1.00"],
            "requiredBillingContactFields": ["postalAddress", "name"],
            "billingContact": [
                "givenName": "Li", "familyName": "Lei", "addressLines": ["1 Nanjing Rd"], "locality": "Shanghai",
                "postalCode": "200000", "countryCode": "CN",
            ],
        ]
        #expect(m.construct(version: 14, request: request).threw == nil)
        _ = m.call(.begin, session: 1)
        let validated = m.call(.completeMerchantValidation(["merchantSessionIdentifier": "x"]), session: 1)
        #expect(validated.threw == nil)
        let events = m.perform(.authorize)
        guard case .paymentAuthorized(let payment)? = events.first?.event else {
            Issue.record("no payment: \(events)")
            return
        }
        #expect(payment.billingContact?.locality == "Shanghai")
        #expect(payment.billingContact?.givenName == "Li")
    }
}
