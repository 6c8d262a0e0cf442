import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// A merchant's checkout written against the PassKit-shaped delegate.
struct Checkout: PaymentSheetDelegate {
    var slowAuthorization: Double = 0

    func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectShippingContact contact: ApplePayPaymentContact
    ) async -> ApplePayShippingContactUpdate {
        if contact.administrativeArea == "AK" {
            return ApplePayUpdate(
                newTotal: ApplePayLineItem(label: "Shop", amount: "10.00"),
                errors: [ApplePayError(.addressUnserviceable, message: "Shipping not available for this state")]
            )
        }
        return ApplePayUpdate(
            newTotal: ApplePayLineItem(label: "Shop", amount: "10.80"),
            newLineItems: [ApplePayLineItem(label: "Tax", amount: "0.80")]
        )
    }

    func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didAuthorizePayment payment: ApplePayPayment
    ) async -> ApplePayPaymentAuthorizationResult {
        if slowAuthorization > 0 { await sheet.clock.advance(by: slowAuthorization) }
        guard payment.shippingContact?.postalCode?.isEmpty == false else {
            return ApplePayPaymentAuthorizationResult(
                status: .failure,
                errors: [
                    ApplePayError(.shippingContactInvalid, contactField: .postalCode, message: "Zip code is required")
                ]
            )
        }
        return ApplePayPaymentAuthorizationResult(status: .success)
    }
}

@Suite struct DriverTests {
    var request: ApplePayPaymentRequest {
        var r = ApplePayPaymentRequest(
            countryCode: "US",
            currencyCode: "USD",
            supportedNetworks: ["visa"],
            merchantCapabilities: [.supports3DS],
            total: ApplePayLineItem(label: "Shop", amount: "10.00")
        )
        r.requiredShippingContactFields = [.postalAddress]
        return r
    }

    var alaska: Wallet {
        var w = Wallet.default
        w.shippingContacts.append(
            ApplePayPaymentContact(
                givenName: "A",
                addressLines: ["1 Main"],
                locality: "Juneau",
                postalCode: "99801",
                administrativeArea: "AK",
                country: "United States",
                countryCode: "US"
            )
        )
        return w
    }

    @Test func aPaymentThroughTheDelegate() async throws {
        let sheet = try await PaymentSheetDriver.begin(version: 14, request: request, delegate: Checkout())
        #expect(await sheet.snapshot["modules"]?["summary"]?["total"]?["amount"] == "10.80")
        #expect(try await sheet.authorize())
        #expect(await sheet.state == .completed)
        #expect(
            await sheet.events.map(\.type) == [
                "validatemerchant", "paymentmethodselected", "shippingcontactselected", "paymentauthorized",
            ]
        )
    }

    @Test func anUnserviceableAddressBlocksAuthorization() async throws {
        let sheet = try await PaymentSheetDriver.begin(
            version: 14,
            request: request,
            delegate: Checkout(),
            configuration: SheetConfiguration(wallet: alaska)
        )
        try await sheet.selectShippingContact(1)
        let snap = await sheet.snapshot
        #expect(snap["popup"] == "Shop does not allow delivery to your shipping address")
        #expect(snap["modules"]?["shipping"]?["error"]?["title"] == "SHIPPING UNAVAILABLE")
        await #expect(throws: PaymentSheetDriver.Ignored.self) { try await sheet.authorize() }
        try await sheet.selectShippingContact(0)
        #expect(try await sheet.authorize())
    }

    @Test func aSlowBackEndTimesOut() async throws {
        let sheet = try await PaymentSheetDriver.begin(
            version: 14,
            request: request,
            delegate: Checkout(slowAuthorization: 31)
        )
        #expect(try await sheet.authorize() == false)
        #expect(await sheet.state == .canceled)
        #expect(await sheet.rejected == [.invalidAccess()])
        #expect(await sheet.snapshot["status"] == "Payment Not Completed")
    }

    @Test func anInvalidRequestThrowsThePagesException() async {
        var r = request
        r.countryCode = "us"
        await #expect(throws: ScriptError.typeError("\"us\" is not a valid country code.")) {
            _ = try await PaymentSheetDriver.begin(version: 14, request: r, delegate: Checkout())
        }
    }
}
