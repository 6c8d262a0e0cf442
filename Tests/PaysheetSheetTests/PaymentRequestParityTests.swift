import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// Issue 36's Payment Request parity on the engine: modifiers at `show()` and in updates, coupon
/// codes through `paymentmethodchange`, the Apple Pay data checked in the constructor (current
/// WebKit), what WebKit's mock coordinator holds, and the wallet's capability answers.
@Suite struct PaymentRequestParityTests {
    static let method = PaymentRequestTests.method
    static func usd(_ v: String) -> JSONValue { PaymentRequestTests.usd(v) }
    static let recurring: JSONValue = [
        "paymentDescription": "Plan", "managementURL": "https://shop.example/manage",
        "regularBilling": ["label": "Monthly", "amount": "5.00", "paymentTiming": "recurring"],
    ]

    func details(modifierData: JSONValue) -> JSONValue {
        [
            "total": ["label": "Shop", "amount": Self.usd("10.00")],
            "modifiers": [["supportedMethods": "https://apple.com/apple-pay", "data": modifierData]],
        ]
    }

    func shown(
        _ details: JSONValue,
        listeners: Set<SheetEventType> = Set(SheetEventType.allCases)
    ) -> (
        SheetMachine, PageResult
    ) {
        var m = SheetMachine(configuration: SheetConfiguration(listeners: listeners))
        _ = m.constructPaymentRequest(methodData: Self.method, details: details, options: nil)
        let result = m.call(.show(userGesture: true), paymentRequest: 1)
        return (m, result)
    }

    @Test func aModifiersLinesAndPaymentKindsJoinTheRequestAtShow() {
        let extra: JSONValue = [["label": "Setup", "amount": "1.00"]]
        let (m, shownResult) = shown(
            details(modifierData: ["additionalLineItems": extra, "recurringPaymentRequest": Self.recurring])
        )
        #expect(shownResult.threw == nil)
        #expect(m.shownRequest?.lineItems == [ApplePayLineItem(label: "Setup", amount: "1.00")])
        #expect(m.shownRequest?.recurringPaymentRequest?.paymentDescription == "Plan")
        // The mock holds the request's kinds from show() on, and no total before an update.
        #expect(m.mockView.members["recurringPaymentRequest"]?.objectValue?["paymentDescription"] == "Plan")
        #expect(m.mockView.members["total"] == nil)
    }

    @Test func aBadModifierRejectsShowWithWebKitsMessage() {
        var bad = Self.recurring.objectValue!
        bad["regularBilling"] = ["label": "Monthly", "amount": "5.00"]
        let (_, result) = shown(details(modifierData: ["recurringPaymentRequest": .object(bad)]))
        #expect(result.threw == .typeError("'regularBilling' must be a 'recurring' line item."))
    }

    @Test func aTypedModifierAppliesOnlyOnceTheCardsTypeMatches() throws {
        let data: JSONValue = [
            "paymentMethodType": "debit", "total": ["label": "Debit total", "amount": "9.00"],
            "additionalLineItems": [["label": "Debit", "amount": "-1.00"]],
        ]
        var (m, _) = shown(details(modifierData: data))
        #expect(m.shownRequest?.lineItems ?? [] == [])
        _ = m.call(.completeMerchantValidation, paymentRequest: 1)
        _ = m.call(.merchantSessionSettled(["s": 1]), paymentRequest: 1)
        _ = m.call(.notUpdated, paymentRequest: 1)
        let changed = m.mockChangePaymentMethod(ApplePayPaymentMethod(displayName: nil, network: nil, type: .debit))
        #expect(changed.map(\.event.type) == ["paymentmethodchange"])
        #expect(m.call(.notUpdated, paymentRequest: 1).threw == nil)
        #expect(m.summary?.total == ApplePayLineItem(label: "Debit total", amount: "9.00"))
        #expect(m.mockView.members["total"]?.objectValue?["label"] == "Debit total")
        #expect(m.mockView.members["lineItems"]?.arrayValue?.count == 1)
    }

    @Test func anUpdateReplacesOnlyTheMembersItHas() {
        let data: JSONValue = ["additionalLineItems": [["label": "Kept", "amount": "1.00"]]]
        var (m, _) = shown(details(modifierData: data))
        _ = m.call(.completeMerchantValidation, paymentRequest: 1)
        _ = m.call(.merchantSessionSettled(["s": 1]), paymentRequest: 1)
        _ = m.call(.notUpdated, paymentRequest: 1)
        _ = m.mockChangePaymentMethod(ApplePayPaymentMethod(displayName: nil, network: nil, type: .credit))
        _ = m.call(.updateWith, paymentRequest: 1)
        _ = m.call(.detailsSettled([:]), paymentRequest: 1)
        // `{}` keeps the modifiers: their line is still there.
        #expect(m.summary?.lineItems == [ApplePayLineItem(label: "Kept", amount: "1.00")])
    }

    @Test func aCouponCodeReachesThePageAsAPaymentMethodChange() throws {
        var methodData = Self.method.arrayValue![0].objectValue!
        var data = methodData["data"]!.objectValue!
        data["supportsCouponCode"] = true
        methodData["data"] = .object(data)
        var m = SheetMachine(configuration: SheetConfiguration(listeners: Set(SheetEventType.allCases)))
        _ = m.constructPaymentRequest(
            methodData: [.object(methodData)],
            details: ["total": ["label": "Shop", "amount": Self.usd("10.00")]],
            options: nil
        )
        _ = m.call(.show(userGesture: true), paymentRequest: 1)
        _ = m.call(.completeMerchantValidation, paymentRequest: 1)
        _ = m.call(.merchantSessionSettled(["s": 1]), paymentRequest: 1)
        _ = m.call(.notUpdated, paymentRequest: 1)
        let entered = m.perform(.enterCouponCode("SAVE"))
        let event = try #require(entered.first?.event)
        guard case .paymentRequest(1, .couponCodeChange("SAVE")) = event else {
            Issue.record("expected the coupon code as paymentmethodchange, got \(event)")
            return
        }
        #expect(event.json.objectValue?["methodDetails"] == ["couponCode": "SAVE"])
        _ = m.call(.updateWith, paymentRequest: 1)
        let settled = m.call(
            .detailsSettled(["total": ["label": "Shop", "amount": Self.usd("8.00")]]),
            paymentRequest: 1
        )
        #expect(settled.threw == nil)
        #expect(m.summary?.total.amount == "8.00")
        #expect(m.state(of: 1) == .active)
    }

    @Test func theConstructorChecksTheApplePayDataInCurrentSafariOnly() {
        var bad = Self.method.arrayValue![0].objectValue!
        var data = bad["data"]!.objectValue!
        data["applePayLaterAvailability"] = "sometimes"
        bad["data"] = .object(data)
        var current = SheetMachine()
        #expect(
            current.constructPaymentRequest(
                methodData: [.object(bad)],
                details: PaymentRequestTests.details,
                options: nil
            )
            .threw == .typeError("Type error")
        )
        data["applePayLaterAvailability"] = nil
        data["version"] = 0
        bad["data"] = .object(data)
        #expect(
            current.constructPaymentRequest(
                methodData: [.object(bad)],
                details: PaymentRequestTests.details,
                options: nil
            )
            .threw == .invalidAccess("\"0\" is not a supported version.")
        )
        var older = SheetMachine(configuration: SheetConfiguration(profile: .safari14))
        let constructed = older.constructPaymentRequest(
            methodData: [.object(bad)],
            details: PaymentRequestTests.details,
            options: nil
        )
        #expect(constructed.threw == nil)
        #expect(
            older.call(.show(userGesture: true), paymentRequest: 1).threw
                == .invalidAccess("\"0\" is not a supported version.")
        )
    }

    @Test func unknownFeaturesAreTypeErrors() {
        var bad = Self.method.arrayValue![0].objectValue!
        var data = bad["data"]!.objectValue!
        data["features"] = ["lineItemPaymentTiming", "paymentRequestDisbursements", "paymentRequestDelegation"]
        bad["data"] = .object(data)
        var m = SheetMachine()
        #expect(
            m.constructPaymentRequest(methodData: [.object(bad)], details: PaymentRequestTests.details, options: nil)
                .threw == nil
        )
        data["features"] = ["teleport"]
        bad["data"] = .object(data)
        #expect(
            m.constructPaymentRequest(methodData: [.object(bad)], details: PaymentRequestTests.details, options: nil)
                .threw
                == .typeError("Type error")
        )
    }

    @Test func applePayCapabilitiesAnswersItsFourStatuses() {
        func status(_ c: SheetConfiguration) -> String? {
            SheetMachine(configuration: c).applePayCapabilities().returned?.objectValue?["paymentCredentialStatus"]?
                .stringValue
        }
        var c = SheetConfiguration()
        #expect(status(c) == "paymentCredentialsAvailable")
        c.thirdPartyBrowser = true
        #expect(status(c) == "paymentCredentialStatusUnknown")
        #expect(SheetMachine(configuration: c).canMakePaymentsWithActiveCard().returned == .bool(false))
        c.canMakePayments = false
        #expect(status(c) == "applePayUnsupported")
        var empty = SheetConfiguration()
        empty.wallet.cards = []
        #expect(status(empty) == "paymentCredentialsUnavailable")
    }

    @Test func emptyCredentialsMakeAValidMethodIdentifier() {
        #expect(PaymentRequestBinding.isValidMethodIdentifier("https://:@wpt.fyi:443/payment-request"))
        #expect(!PaymentRequestBinding.isValidMethodIdentifier("https://user@wpt.fyi/payment-request"))
        #expect(!PaymentRequestBinding.isValidMethodIdentifier("http://wpt.fyi/payment-request"))
    }

    @Test func aResponseKeptAcrossANavigationIsClosed() {
        var m = SheetMachine(configuration: SheetConfiguration(listeners: Set(SheetEventType.allCases)))
        _ = m.constructPaymentRequest(methodData: Self.method, details: PaymentRequestTests.details, options: nil)
        _ = m.call(.show(userGesture: true), paymentRequest: 1)
        _ = m.call(.completeMerchantValidation, paymentRequest: 1)
        _ = m.call(.merchantSessionSettled(["s": 1]), paymentRequest: 1)
        _ = m.call(.notUpdated, paymentRequest: 1)
        _ = m.perform(.authorize)
        _ = m.navigate()
        #expect(m.call(.complete(.string("success")), paymentRequest: 1).threw == .aborted)
        #expect(m.call(.retry(nil), paymentRequest: 1).threw == .aborted)
    }

    @Test func showsDetailsPromiseHoldsTheMocksEventsUntilItSettles() {
        var m = SheetMachine(configuration: SheetConfiguration(listeners: Set(SheetEventType.allCases)))
        m.setWebKitMock(true)
        _ = m.constructPaymentRequest(methodData: Self.method, details: PaymentRequestTests.details, options: nil)
        _ = m.call(.show(userGesture: true), paymentRequest: 1)
        #expect(m.call(.showDetailsPending, paymentRequest: 1).threw == nil)
        _ = m.call(.completeMerchantValidation, paymentRequest: 1)
        let validated = m.call(.merchantSessionSettled([:]), paymentRequest: 1)
        #expect(validated.events.isEmpty)  // the shipping contact waits for the details
        let settled = m.call(
            .detailsSettled(["total": ["label": "Updated", "amount": Self.usd("2.00")]]),
            paymentRequest: 1
        )
        #expect(settled.events.map(\.event.type) == ["shippingaddresschange"])
        _ = m.call(.notUpdated, paymentRequest: 1)
        _ = m.mockChangePaymentMethod(ApplePayPaymentMethod(displayName: nil, network: nil, type: .credit))
        _ = m.call(.notUpdated, paymentRequest: 1)
        #expect(m.mockView.members["total"]?.objectValue?["label"] == "Updated")
    }
}
