import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// WebKit's method × state table (WebKit's `ApplePaySession.cpp`), checked exhaustively.
@Suite struct StateTableTests {
    static let request: JSONValue = [
        "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa"],
        "merchantCapabilities": ["supports3DS"],
        "requiredShippingContactFields": ["postalAddress"], "supportsCouponCode": true,
        "shippingMethods": [["label": "A", "detail": "", "amount": "1.00", "identifier": "a"]],
        "total": ["label": "Shop", "amount": "10.00"],
    ]
    static let update: JSONValue = ["newTotal": ["label": "Shop", "amount": "10.00"]]

    /// A machine brought into `state` (session 1).
    static func machine(in state: SessionState) -> SheetMachine {
        var m = SheetMachine()
        _ = m.construct(version: 14, request: request)
        if state == .idle { return m }
        _ = m.call(.begin, session: 1)
        _ = m.call(.completeMerchantValidation(["a": 1]), session: 1)
        if state == .paymentMethodSelected { return m }
        _ = m.call(.completePaymentMethodSelection(update), session: 1)
        if state == .shippingContactSelected { return m }
        _ = m.call(.completeShippingContactSelection(update), session: 1)
        switch state {
        case .active: break
        case .shippingMethodSelected: _ = m.perform(.selectShippingMethod(identifier: "a"))
        case .couponCodeChanged: _ = m.perform(.enterCouponCode("X"))
        case .authorized: _ = m.perform(.authorize)
        case .completed:
            _ = m.perform(.authorize)
            _ = m.call(.completePayment(["status": 0]), session: 1)
        case .aborted: _ = m.call(.abort, session: 1)
        case .canceled: _ = m.perform(.cancel)
        default: break
        }
        return m
    }

    static let calls: [(PageCall, Set<SessionState>)] = [
        (.begin, [.idle]),
        (
            .abort,
            [
                .active, .paymentMethodSelected, .shippingContactSelected, .shippingMethodSelected, .couponCodeChanged,
                .authorized,
            ]
        ),
        (.completePaymentMethodSelection(update), [.paymentMethodSelected]),
        (.completeShippingContactSelection(update), [.shippingContactSelected]),
        (.completeShippingMethodSelection(update), [.shippingMethodSelected]),
        (.completeCouponCodeChange(update), [.couponCodeChanged]),
        (.completePayment(["status": 0]), [.authorized]),
    ]

    static let states: [SessionState] = [
        .idle, .active, .paymentMethodSelected, .shippingContactSelected, .shippingMethodSelected,
        .couponCodeChanged, .authorized, .completed, .aborted, .canceled,
    ]

    @Test(arguments: states)
    func everyMethodInEveryState(state: SessionState) {
        #expect(Self.machine(in: state).state(of: 1) == state)
        for (call, allowed) in Self.calls {
            var m = Self.machine(in: state)
            let r = m.call(call, session: 1)
            if allowed.contains(state) {
                #expect(
                    r.threw == nil,
                    "\(call.name) in \(state) should be allowed, threw \(r.threw.map { "\($0)" } ?? "")"
                )
            } else {
                #expect(
                    r.threw?.name == .invalidAccessError,
                    "\(call.name) in \(state) should throw InvalidAccessError"
                )
                #expect(m.state(of: 1) == state, "a rejected \(call.name) must not change the state")
            }
        }
    }

    @Test func merchantValidationOnlyWhileValidating() {
        for state in Self.states {
            var m = Self.machine(in: state)
            let r = m.call(.completeMerchantValidation(["a": 1]), session: 1)
            #expect(r.threw?.name == .invalidAccessError, "completeMerchantValidation in \(state)")
        }
    }

    @Test func anInvalidUpdateLeavesTheEventOutstanding() {
        var m = Self.machine(in: .shippingContactSelected)
        let bad = m.call(.completeShippingContactSelection(["newTotal": ["label": "T", "amount": "x"]]), session: 1)
        #expect(bad.threw == .typeError("\"x\" is not a valid amount."))
        #expect(m.state(of: 1) == .shippingContactSelected)
        #expect(m.outstanding?.event == .shippingcontactselected)
        #expect(m.call(.completeShippingContactSelection(Self.update), session: 1).threw == nil)
    }

    @Test func deadlinesAreInputs() {
        var m = Self.machine(in: .authorized)
        #expect(m.outstanding?.deadline == 30)
        #expect(m.advance(by: 29.999).isEmpty)
        let evs = m.advance(by: 0.001)
        #expect(evs.map(\.event) == [.cancel(ApplePaySessionError())])
        #expect(m.state(of: 1) == .canceled)
        #expect(m.snapshot()["status"] == "Payment Not Completed")
    }
}
