import Foundation
import PaysheetModel
import Testing

@testable import PaysheetPayments

/// An agreement's decisions: when it may be charged, and how it ends with its first payment.
@Suite struct AgreementLifecycleTests {
    static let t0 = Date(timeIntervalSince1970: 1_798_768_800)
    let configuration = LifecycleConfiguration()

    func plan(_ kind: SubscriptionPlan.Kind) -> SubscriptionPlan {
        SubscriptionPlan(
            id: "p",
            kind: kind,
            description: "d",
            label: "Monthly",
            amount: "10.00",
            currencyCode: "CNY",
            billingAgreement: "b"
        )
    }

    func firstOrder(state: PaymentLifecycle.State = .succeeded) -> (order: OrderRecord, payments: [PaymentRecord]) {
        var lifecycle = PaymentLifecycle(expectedAmount: 1_000, submittedAt: Self.t0, configuration: configuration)
        if state == .succeeded {
            _ = lifecycle.receive(
                .notification(.succeeded(amount: .yuan(1_000), reference: "Q")),
                now: Self.t0,
                configuration: configuration
            )
        }
        let charge = PaymentRecord(
            id: "pay_1",
            orderId: "ord_1",
            kind: .charge,
            identity: TransactionIdentity(orderId: "A1", txnTime: "20270101100000"),
            amount: .yuan(1_000),
            lifecycle: lifecycle,
            createdAt: Self.t0
        )
        let order = OrderRecord(
            id: "ord_1",
            status: .paid,
            currency: Currency("CNY")!,
            countryCode: "CN",
            lineItems: [],
            shippingMethods: [],
            amount: 1_000,
            applicationData: "",
            createdAt: Self.t0
        )
        return (order, [charge])
    }

    func agreement(_ kind: SubscriptionPlan.Kind) -> AgreementRecord {
        AgreementRecord(
            id: "agr_1",
            orderId: "ord_1",
            plan: plan(kind),
            firstPaymentId: "pay_1",
            startedAt: Self.t0,
            credential: "",
            tokenSuffix: "0000"
        )
    }

    @Test func aSubscriptionIsChargedOncePerPeriodWhenItIsDue() {
        let machine = AgreementLifecycle(agreement(.recurring))
        guard
            case .failure(let early) = machine.chargeablePeriod(firstOrder: firstOrder(), lastCharge: nil, now: Self.t0)
        else {
            Issue.record("charged before its period")
            return
        }
        #expect(early.code == "charge_not_due")
        let month = Self.t0.addingTimeInterval(32 * 86_400)
        #expect(machine.chargeablePeriod(firstOrder: firstOrder(), lastCharge: nil, now: month) == .success(1))
        var claimed = machine
        let record = claimed.claim(period: 1, paymentId: "pay_2", orderId: "ord_2")
        #expect(record.lastChargePeriod == 1 && record.chargeOrderIds == ["ord_2"])
        // The last charge in flight: no next one until it ends.
        let inFlight = firstOrder(state: .submitting).payments[0]
        guard
            case .failure(let busy) = claimed.chargeablePeriod(
                firstOrder: firstOrder(),
                lastCharge: inFlight,
                now: month
            )
        else {
            Issue.record("charged while a charge is in flight")
            return
        }
        #expect(busy.code == "charge_in_progress")
    }

    @Test func itEndsWithItsFirstPaymentAndThenTakesNoCharge() {
        var (order, payments) = firstOrder()
        #expect(AgreementLifecycle.ended(firstPaymentId: "pay_1", order: order, payments: payments) == nil)
        let refund = PaymentRecord(
            id: "ref_1",
            orderId: "ord_1",
            kind: .refund,
            identity: TransactionIdentity(orderId: "A2", txnTime: "20270101100000"),
            amount: .yuan(1_000),
            lifecycle: PaymentLifecycle(expectedAmount: 1_000, submittedAt: Self.t0, configuration: configuration),
            originalPaymentId: "pay_1",
            createdAt: Self.t0
        )
        payments.append(refund)
        #expect(
            AgreementLifecycle.ended(firstPaymentId: "pay_1", order: order, payments: payments)
                == "its first payment was refunded in full"
        )
        order.canceledAt = Self.t0
        #expect(
            AgreementLifecycle.ended(firstPaymentId: "pay_1", order: order, payments: [])
                == "the order of its first payment was canceled"
        )
        var machine = AgreementLifecycle(agreement(.automaticReload))
        let ended = machine.end(because: "its first payment was voided", at: Self.t0)
        #expect(ended?.canceledBecause == "its first payment was voided")
        #expect(machine.end(because: nil, at: Self.t0) == nil)
        guard
            case .failure(let refusal) = machine.chargeablePeriod(
                firstOrder: firstOrder(),
                lastCharge: nil,
                now: Self.t0
            )
        else {
            Issue.record("an ended agreement was charged")
            return
        }
        #expect(refusal.code == "agreement_canceled")
    }
}
