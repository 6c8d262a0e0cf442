import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// Issue 36's sheet: the cards a request accepts (credit/debit, issuing countries), the shipping
/// module's heading and a store pickup's read-only address, Pay Later and a payout.
@Suite struct SheetParityTests {
    static let base: JSONObject = [
        "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa", "chinaUnionPay"],
        "merchantCapabilities": ["supports3DS"], "total": ["label": "Shop", "amount": "1.00"],
    ]

    static let wallet = Wallet(
        cards: [
            WalletCard(network: "visa", type: .credit, displayName: "Visa 1234", billingContact: nil),
            {
                var card = WalletCard(network: "chinaUnionPay", type: .debit, displayName: "UnionPay 8888")
                card.issuerCountryCode = "CN"
                return card
            }(),
        ],
        shippingContacts: Wallet.default.shippingContacts
    )

    func shown(_ members: JSONObject, version: Int = 14) -> SheetMachine {
        var request = Self.base
        for (key, value) in members { request[key] = value }
        var m = SheetMachine(configuration: SheetConfiguration(wallet: Self.wallet))
        #expect(m.construct(version: version, request: .object(request)).threw == nil)
        _ = m.call(.begin, session: 1)
        return m
    }

    func usable(_ m: SheetMachine) -> [Int] { m.sheet?.usableCards ?? [] }

    @Test func creditOrDebitAloneFiltersTheCards() {
        #expect(usable(shown([:])) == [0, 1])
        #expect(usable(shown(["merchantCapabilities": ["supports3DS", "supportsDebit"]])) == [1])
        #expect(usable(shown(["merchantCapabilities": ["supports3DS", "supportsCredit"]])) == [0])
        #expect(usable(shown(["merchantCapabilities": ["supports3DS", "supportsCredit", "supportsDebit"]])) == [0, 1])
    }

    @Test func supportedCountriesRefuseCardsIssuedElsewhere() {
        // The Visa card has no issuer country and no billing address: no country to accept.
        #expect(usable(shown(["supportedCountries": ["CN"]])) == [1])
        #expect(usable(shown(["supportedCountries": ["US"]])) == [])
        let m = shown(["supportedCountries": ["CN"]])
        #expect(m.sheet?.selectedCard?.displayName == "UnionPay 8888")
    }

    @Test func aStorePickupShowsItsAddressReadOnlyUnderItsHeading() throws {
        let m = shown([
            "requiredShippingContactFields": ["postalAddress"], "shippingType": "storePickup",
            "shippingContactEditingMode": "storePickup",
        ])
        let shipping = try #require(m.snapshot().objectValue?["modules"]?.objectValue?["shipping"]?.objectValue)
        #expect(shipping["titleId"] == "module.pickup")
        #expect(shipping["editable"] == .bool(false))
        let texts = try #require(m.sheetTexts().objectValue)
        #expect(texts["module.pickup"] == "PICKUP")
        let delivery = shown(["requiredShippingContactFields": ["postalAddress"], "shippingType": "delivery"])
        #expect(
            delivery.snapshot().objectValue?["modules"]?.objectValue?["shipping"]?.objectValue?["titleId"]
                == "module.delivery"
        )
    }

    @Test func payLaterAndAPayoutAreOnTheSheet() throws {
        let m = shown([
            "applePayLaterAvailability": "unavailableRecurringTransaction",
            "merchantCapabilities": ["supports3DS", "supportsInstantFundsOut"],
            "disbursementRequest": ["requiredRecipientContactFields": ["name", "email"]],
        ])
        let sheet = try #require(m.snapshot().objectValue)
        #expect(sheet["payLater"]?.objectValue?["textId"] == "payLater.unavailableRecurringTransaction")
        #expect(sheet["disbursement"]?.objectValue?["instantFundsOut"] == .bool(true))
        #expect(sheet["disbursement"]?.objectValue?["requiredRecipientContactFields"] == ["name", "email"])
        #expect(shown([:]).snapshot().objectValue?["payLater"] == .null)
    }
}
