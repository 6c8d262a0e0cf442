import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// The Payment Request API's Apple Pay method on the engine (WebKit's `PaymentRequest.cpp` and
/// `ApplePayPaymentHandler.cpp`), without a browser.
@Suite struct PaymentRequestTests {
    static let method: JSONValue = [
        [
            "supportedMethods": "https://apple.com/apple-pay",
            "data": [
                "version": 3, "merchantIdentifier": "m", "countryCode": "US",
                "supportedNetworks": ["visa", "masterCard"],
                "merchantCapabilities": ["supports3DS"],
            ],
        ]
    ]
    static func usd(_ v: String) -> JSONValue { ["currency": "USD", "value": .string(v)] }
    static let details: JSONValue = ["total": ["label": "Shop", "amount": usd("10.00")]]

    var machine = SheetMachine(configuration: SheetConfiguration(listeners: Set(SheetEventType.allCases)))

    func types(_ r: PageResult) -> [String] { r.events.map(\.event.type) }

    @Test func theBindingRunsBeforeTheConstructorsOwnChecks() {
        var m = machine
        // An empty method list is the constructor's error, but the details' binding error comes first.
        #expect(
            m.constructPaymentRequest(methodData: [], details: ["total": "x"], options: nil).threw
                == .typeError("Type error")
        )
        #expect(
            m.constructPaymentRequest(methodData: [], details: Self.details, options: nil).threw
                == .typeError("At least one payment method is required.")
        )
        let badOption = m.constructPaymentRequest(
            methodData: Self.method,
            details: Self.details,
            options: ["shippingType": "boat"]
        )
        #expect(badOption.threw == .typeError("Type error"))
        let lower = m.constructPaymentRequest(
            methodData: Self.method,
            details: ["total": ["label": "T", "amount": ["currency": "usd", "value": "1"]]],
            options: nil
        )
        #expect(lower.threw == nil)
        #expect(m.paymentRequestCount == 1)
    }

    @Test func showChecksTheGestureThenTheStateThenTheAppleData() {
        var m = machine
        _ = m.constructPaymentRequest(methodData: Self.method, details: Self.details, options: nil)
        #expect(m.call(.show(userGesture: false), paymentRequest: 1).threw?.name == .securityError)
        let shown = m.call(.show(userGesture: true), paymentRequest: 1)
        #expect(shown.threw == nil)
        #expect(types(shown) == ["merchantvalidation"])
        #expect(m.call(.show(userGesture: true), paymentRequest: 1).threw == .invalidState())
        // A second request cannot show while the first one's sheet is open.
        _ = m.constructPaymentRequest(methodData: Self.method, details: Self.details, options: nil)
        #expect(m.call(.show(userGesture: true), paymentRequest: 2).threw == .aborted)
    }

    @Test func aPaymentFromValidationToCompletion() throws {
        var m = machine
        _ = m.constructPaymentRequest(
            methodData: Self.method,
            details: Self.details,
            options: ["requestPayerPhone": true]
        )
        _ = m.call(.show(userGesture: true), paymentRequest: 1)
        #expect(m.call(.completeMerchantValidation, paymentRequest: 1).threw == nil)
        #expect(m.call(.completeMerchantValidation, paymentRequest: 1).threw == .invalidState())
        let validated = m.call(.merchantSessionSettled(["merchantSessionIdentifier": "x"]), paymentRequest: 1)
        #expect(types(validated) == ["paymentmethodchange"])
        #expect(m.call(.notUpdated, paymentRequest: 1).threw == nil)
        let authorized = m.perform(.authorize)
        let accepted = try #require(authorized.first)
        guard case .paymentRequest(1, .accepted(let response)) = accepted.event else {
            Issue.record("expected the response, got \(accepted.event)")
            return
        }
        #expect(response.objectValue?["payerPhone"]?.stringValue?.isEmpty == false)
        #expect(response.objectValue?["payerEmail"] == .null)
        #expect(m.call(.complete(.string("maybe")), paymentRequest: 1).threw == .typeError("Type error"))
        #expect(m.call(.complete(.string("success")), paymentRequest: 1).threw == nil)
        #expect(m.paid)
        #expect(m.call(.complete(.string("success")), paymentRequest: 1).threw == .invalidState())
    }

    @Test func aCancelWhileAnUpdateIsPendingAbortsWhenItSettles() {
        var m = machine
        _ = m.constructPaymentRequest(
            methodData: Self.method,
            details: Self.details,
            options: ["requestShipping": true]
        )
        _ = m.call(.show(userGesture: true), paymentRequest: 1)
        _ = m.call(.completeMerchantValidation, paymentRequest: 1)
        _ = m.call(.merchantSessionSettled(["s": 1]), paymentRequest: 1)
        #expect(m.call(.updateWith, paymentRequest: 1).threw == nil)
        #expect(m.call(.updateWith, paymentRequest: 1).threw == .invalidState())
        let canceled = m.perform(.cancel)
        #expect(canceled.isEmpty)  // the page learns of it once the update settles
        let settled = m.call(.detailsSettled(Self.details), paymentRequest: 1)
        #expect(settled.events.map(\.event) == [.paymentRequest(request: 1, .rejected(.aborted))])
    }

    @Test func withoutAMethodListenerTheModifierForTheCardsTypeApplies() {
        var listeners = Set(SheetEventType.allCases)
        listeners.remove(.paymentmethodselected)
        var m = SheetMachine(configuration: SheetConfiguration(listeners: listeners))
        let details: JSONValue = [
            "total": ["label": "Shop", "amount": Self.usd("10.00")],
            "modifiers": [
                [
                    "supportedMethods": "https://apple.com/apple-pay", "data": ["paymentMethodType": "credit"],
                    "total": ["label": "Credit", "amount": Self.usd("11.00")],
                    "additionalDisplayItems": [["label": "Fee", "amount": Self.usd("1.00")]],
                ]
            ],
        ]
        _ = m.constructPaymentRequest(methodData: Self.method, details: details, options: nil)
        _ = m.call(.show(userGesture: true), paymentRequest: 1)
        _ = m.call(.completeMerchantValidation, paymentRequest: 1)
        _ = m.call(.merchantSessionSettled(["s": 1]), paymentRequest: 1)
        #expect(m.summary?.total == ApplePayLineItem(label: "Credit", amount: "11.00"))
        #expect(m.summary?.lineItems == [ApplePayLineItem(label: "Fee", amount: "1.00")])
    }

    @Test func addressErrorsAreReportedOnlyWithoutShippingOptions() {
        var m = machine
        _ = m.constructPaymentRequest(
            methodData: Self.method,
            details: Self.details,
            options: ["requestShipping": true, "requestPayerName": true]
        )
        _ = m.call(.show(userGesture: true), paymentRequest: 1)
        _ = m.call(.completeMerchantValidation, paymentRequest: 1)
        _ = m.call(.merchantSessionSettled(["s": 1]), paymentRequest: 1)
        _ = m.call(.notUpdated, paymentRequest: 1)  // paymentmethodchange
        _ = m.call(.updateWith, paymentRequest: 1)  // shippingaddresschange
        var update = Self.details.objectValue!
        update["shippingAddressErrors"] = ["postalCode": "Which zip code?"]
        update["payerErrors"] = ["name": "Your full name", "email": "not asked for"]
        _ = m.call(.detailsSettled(.object(update)), paymentRequest: 1)
        #expect(
            m.lastPageErrors == [
                ApplePayError(.shippingContactInvalid, contactField: .postalCode, message: "Which zip code?"),
                ApplePayError(.shippingContactInvalid, contactField: .name, message: "Your full name"),
            ]
        )
    }
}
