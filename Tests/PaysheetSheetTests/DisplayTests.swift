import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

@Suite struct DisplayTests {
    @Test func theTableHasTheSeedsTwentyOneRowsAndEachKeyOnce() {
        let rules = DisplayRules.authorization
        #expect(rules.map(\.row) == Array(1...21))
        // No two rows claim the same (status, code, contactField) input.
        var seen = Set<String>()
        for r in rules {
            for c in r.codes {
                for f in r.contactField.map({ [$0] }) ?? [true, false] {
                    let key = "\(r.status)-\(c?.rawValue ?? "none")-\(f)"
                    #expect(!seen.contains(key), "duplicate \(key)")
                    seen.insert(key)
                }
            }
        }
    }

    @Test(arguments: [
        ("95014-2083", "US", "95014"), ("SW1A 1AA", "GB", "SW1A"), ("K1A 0B1", "CA", "K1A"),
        ("100-0005", "JP", "100-0005"), ("10115", "DE", "10115"),
    ])
    func postalCodeRedaction(code: String, country: String, expected: String) {
        #expect(Redaction.redactedPostalCode(code, countryCode: country, country: nil) == expected)
    }

    @Test func redactedContactHasOnlyFiveFields() {
        let c = Wallet.default.shippingContacts[0]
        let r = Redaction.redacted(c)
        #expect(r.addressLines == nil && r.givenName == nil && r.phoneNumber == nil && r.emailAddress == nil)
        #expect(r.postalCode == "95014" && r.locality == "Cupertino" && r.countryCode == "US")
    }

    @Test func authorizedContactHasOnlyRequestedFields() {
        let c = ApplePayPaymentContact(
            phoneNumber: "1",
            emailAddress: "e",
            givenName: "G",
            phoneticGivenName: "P",
            postalCode: "9"
        )
        let v2 = Redaction.authorized(c, fields: [.phoneticName, .email], email: "x@y", phone: nil, version: 2)
        #expect(
            v2?.phoneticGivenName == nil && v2?.emailAddress == "x@y" && v2?.postalCode == nil && v2?.givenName == nil
        )
        let v3 = Redaction.authorized(c, fields: [.phoneticName], email: nil, phone: nil, version: 3)
        #expect(v3?.phoneticGivenName == "P")
        #expect(Redaction.authorized(c, fields: [], email: nil, phone: nil, version: 3) == nil)
    }
}
