import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// Order details for Wallet are kept with the sheet that took the payment, through both APIs:
/// `ApplePaySession.completePayment({status, orderDetails})` and the Payment Request API's
/// `PaymentResponse.complete(result, {data: {orderDetails}})`; the snapshot reports them (without
/// the token) and the verdict the driver records.
@Suite struct WalletOrderDetailsTests {
    static let details: JSONValue = [
        "orderTypeIdentifier": "order.com.example", "orderIdentifier": "ord_1",
        "webServiceURL": "https://shop.example/wallet-orders", "authenticationToken": "pwo_0123456789abcdefghij",
    ]
    static let expected = ApplePayPaymentOrderDetails(
        orderTypeIdentifier: "order.com.example",
        orderIdentifier: "ord_1",
        webServiceURL: "https://shop.example/wallet-orders",
        authenticationToken: "pwo_0123456789abcdefghij"
    )

    /// A session authorized and waiting for `completePayment`.
    static func authorizedSession() -> SheetMachine {
        let m = StateTableTests.machine(in: .authorized)
        #expect(m.state(of: 1) == .authorized)
        _ = m.snapshot()
        return m
    }

    @Test func completePaymentKeepsTheOrderDetailsOfASuccessfulPayment() throws {
        var m = Self.authorizedSession()
        let done = m.call(.completePayment(["status": 0, "orderDetails": Self.details]), session: 1)
        #expect(done.threw == nil)
        #expect(m.paid)
        #expect(m.walletOrder == Self.expected)
        #expect(m.walletOrderVerdict == nil)
        let order = try #require(m.snapshot()["order"])
        #expect(order["orderIdentifier"] == "ord_1")
        #expect(order["orderTypeIdentifier"] == "order.com.example")
        #expect(order["webServiceURL"] == "https://shop.example/wallet-orders")
        #expect(order["authenticationToken"] == nil, "the snapshot never shows the token")
        #expect(order["wallet"]?["status"] == "unchecked")
    }

    @Test func aFailedPaymentGivesTheWalletNoOrder() {
        var m = Self.authorizedSession()
        #expect(m.call(.completePayment(["status": 1, "orderDetails": Self.details]), session: 1).threw == nil)
        #expect(!m.paid)
        #expect(m.walletOrder == nil)
        #expect(m.snapshot()["order"] == nil)
    }

    @Test func orderDetailsMissingAMemberAreAnExceptionAndTheSessionStaysAuthorized() {
        var m = Self.authorizedSession()
        var incomplete = Self.details.objectValue!
        incomplete["authenticationToken"] = nil
        let threw = m.call(.completePayment(["status": 0, "orderDetails": .object(incomplete)]), session: 1).threw
        #expect(
            threw
                == .typeError(
                    "Member ApplePayPaymentOrderDetails.authenticationToken is required and must be an instance of DOMString"
                )
        )
        #expect(m.state(of: 1) == .authorized)
        #expect(m.walletOrder == nil)
    }

    @Test func theVerdictIsRecordedOnlyForTheDetailsItWasMadeFor() throws {
        var m = Self.authorizedSession()
        _ = m.call(.completePayment(["status": 0, "orderDetails": Self.details]), session: 1)
        var other = Self.expected
        other.orderIdentifier = "ord_2"
        let foreign = m.recordWalletOrderVerdict(.appears, for: other)
        #expect(!foreign)
        #expect(m.walletOrderVerdict == nil)
        let refused = WalletOrderVerdict.refused(.manifest, "manifest.json does not list order.json")
        let recorded = m.recordWalletOrderVerdict(refused, for: Self.expected)
        #expect(recorded)
        let wallet = try #require(m.snapshot()["order"]?["wallet"])
        #expect(wallet["status"] == "refused")
        #expect(wallet["check"] == "manifest")
        #expect(wallet["message"] == "This order would not appear in Wallet: manifest.json does not list order.json")
        let again = m.recordWalletOrderVerdict(.appears, for: Self.expected)
        #expect(again)
        #expect(m.snapshot()["order"]?["wallet"]?["message"] == "This order would appear in Wallet")
    }

    // MARK: The Payment Request API

    /// A `PaymentRequest` shown, validated and authorized: its response waits for `complete`.
    static func acceptedRequest() throws -> SheetMachine {
        var m = SheetMachine(configuration: SheetConfiguration(listeners: Set(SheetEventType.allCases)))
        _ = m.constructPaymentRequest(
            methodData: PaymentRequestTests.method,
            details: PaymentRequestTests.details,
            options: nil
        )
        _ = m.call(.show(userGesture: true), paymentRequest: 1)
        _ = m.call(.completeMerchantValidation, paymentRequest: 1)
        _ = m.call(.merchantSessionSettled(["merchantSessionIdentifier": "x"]), paymentRequest: 1)
        _ = m.call(.notUpdated, paymentRequest: 1)
        let accepted = try #require(m.perform(.authorize).first)
        guard case .paymentRequest(1, .accepted) = accepted.event else {
            Issue.record("expected the response, got \(accepted.event)")
            return m
        }
        return m
    }

    @Test func completeWithDataKeepsTheOrderDetails() throws {
        var m = try Self.acceptedRequest()
        let done = m.call(
            .completeWithDetails("success", details: ["data": ["orderDetails": Self.details]]),
            paymentRequest: 1
        )
        #expect(done.threw == nil)
        #expect(m.paid)
        #expect(m.walletOrder == Self.expected)
        #expect(m.snapshot()["order"]?["orderIdentifier"] == "ord_1")
    }

    @Test func completeWithoutDataOrWithNullDataGivesNoOrder() throws {
        var plain = try Self.acceptedRequest()
        #expect(plain.call(.completeWithDetails("success", details: [:]), paymentRequest: 1).threw == nil)
        #expect(plain.paid && plain.walletOrder == nil)
        var null = try Self.acceptedRequest()
        #expect(null.call(.completeWithDetails("success", details: ["data": .null]), paymentRequest: 1).threw == nil)
        #expect(null.paid && null.walletOrder == nil)
    }

    @Test func dataThatIsNoObjectIsATypeErrorBeforeTheStateCheck() throws {
        var m = try Self.acceptedRequest()
        #expect(
            m.call(.completeWithDetails("success", details: ["data": "orders"]), paymentRequest: 1).threw
                == .typeError("Type error")
        )
        // The binding refused the arguments: the response was not completed and still can be.
        #expect(m.call(.completeWithDetails("success", details: ["data": [:]]), paymentRequest: 1).threw == nil)
        #expect(m.paid && m.walletOrder == nil)
    }

    @Test func incompleteOrderDetailsRejectAfterTheStateCheckAndTheResponseCanCompleteAgain() throws {
        var m = try Self.acceptedRequest()
        var incomplete = Self.details.objectValue!
        incomplete["webServiceURL"] = nil
        let threw = m.call(
            .completeWithDetails("success", details: ["data": ["orderDetails": .object(incomplete)]]),
            paymentRequest: 1
        ).threw
        #expect(
            threw
                == .typeError(
                    "Member ApplePayPaymentOrderDetails.webServiceURL is required and must be an instance of DOMString"
                )
        )
        #expect(!m.paid && m.walletOrder == nil)
        // WebKit's ApplePayPaymentCompleteDetails-orderDetails page: the page recovers by
        // completing again, without the refused details.
        #expect(m.call(.complete("success"), paymentRequest: 1).threw == nil)
        #expect(m.paid && m.walletOrder == nil)
    }

    @Test func aFailedCompleteGivesNoOrder() throws {
        var m = try Self.acceptedRequest()
        #expect(
            m.call(.completeWithDetails("fail", details: ["data": ["orderDetails": Self.details]]), paymentRequest: 1)
                .threw == nil
        )
        #expect(!m.paid && m.walletOrder == nil)
    }
}
