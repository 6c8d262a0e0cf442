import Testing

@testable import PaysheetServer

/// Orders do not depend on the payment lifecycle, so the contact fields a payment request asks
/// for are declared with the orders as well as with authorization, which checks them.
@Suite struct ShippingFieldsTests {
    @Test func aPaymentRequestAsksForTheShippingFieldsAuthorizationChecks() {
        #expect(OrderService.shippingFields == PaymentService.shippingFields)
    }
}
