import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// A session's phase carries only what is valid in it, and an ended session never moves again.
@Suite struct SessionPhaseTests {
    static let request = ApplePayPaymentRequest(
        countryCode: "US",
        currencyCode: "USD",
        supportedNetworks: ["visa"],
        merchantCapabilities: [.supports3DS],
        total: ApplePayLineItem(label: "Shop", amount: "1.00")
    )

    @Test func aSessionMovesOnlyWhileBegunAndNeverAfterItEnded() {
        var record = SessionRecord(version: 14, request: Self.request)
        #expect(record.state == .idle)
        // Idle: no step, no merchant validation.
        record.step(to: .authorized)
        record.merchantValidationEnded()
        #expect(record.state == .idle && !record.isMerchantValidated && !record.isBegun)

        record.begin()
        #expect(record.state == .active && record.isBegun && !record.isMerchantValidated)
        record.merchantValidationEnded()
        record.step(to: .shippingContactSelected)
        #expect(record.state == .shippingContactSelected && record.isMerchantValidated)
        record.step(to: .authorized)
        #expect(record.state == .authorized)

        record.end(.completed)
        #expect(record.state == .completed && record.state.isFinal && !record.isBegun)
        // Ended: neither a step nor validation changes it, and it says nothing of validation.
        record.step(to: .active)
        record.merchantValidationEnded()
        #expect(record.state == .completed && !record.isMerchantValidated)
    }

    @Test func everyPhaseNamesOneWebKitStateAndEveryStateHasAPhase() {
        let steps: [SessionPhase.Step] = [
            .active, .paymentMethodSelected, .shippingContactSelected, .shippingMethodSelected, .couponCodeChanged,
            .authorized, .cancelRequested,
        ]
        var phases: [SessionPhase] = [.idle, .ended(.completed), .ended(.aborted), .ended(.canceled)]
        for step in steps {
            phases.append(.begun(.init(merchantValidated: false, step: step)))
            phases.append(.begun(.init(merchantValidated: true, step: step)))
        }
        #expect(Set(phases.map(\.state)) == Set(SessionState.allCases))
        for phase in phases {
            let ended = if case .ended = phase { true } else { false }
            #expect(phase.state.isFinal == ended, "\(phase)")
        }
    }

    @Test func aClosedSheetWaitsForNothingAndKeepsItsResult() {
        var sheet = SheetState(session: 1, request: Self.request, wallet: .default, initialEvents: [])
        #expect(sheet.visible && sheet.outstanding == nil && sheet.result == nil)
        sheet.wait(for: .paymentauthorized, until: 30)
        #expect(sheet.outstanding?.event == .paymentauthorized && sheet.outstanding?.deadline == 30)
        sheet.close(.success)
        #expect(!sheet.visible && sheet.outstanding == nil && sheet.result == .success)
        sheet.wait(for: .paymentauthorized, until: 60)  // a closed sheet cannot wait
        #expect(sheet.outstanding == nil && sheet.result == .success)
    }
}
