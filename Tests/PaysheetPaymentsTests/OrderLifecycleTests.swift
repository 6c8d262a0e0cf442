import Foundation
import PaysheetModel
import Testing

@testable import PaysheetPayments

/// The core's decisions, input by input (the simulation checks them under every schedule).
@Suite struct OrderLifecycleTests {
    static let t0 = Date(timeIntervalSince1970: 1_798_768_800)
    let configuration = LifecycleConfiguration()

    func order(amount: Int = 1_000) -> OrderRecord {
        OrderRecord(
            id: "ord_1",
            status: .created,
            currency: Currency("CNY")!,
            countryCode: "CN",
            lineItems: [],
            shippingMethods: [],
            amount: amount,
            applicationData: "",
            createdAt: Self.t0
        )
    }

    func transaction(_ n: Int) -> OrderLifecycle.NewTransaction {
        .init(id: "t\(n)", identity: TransactionIdentity(orderId: "A\(n)", txnTime: "20270101100000"))
    }

    /// A machine whose order was charged and paid.
    func paid() -> OrderLifecycle {
        var machine = OrderLifecycle(order: order(), payments: [], configuration: configuration)
        let step = machine.handle(
            .authorize(.init(transaction: transaction(1), card: nil, tokenTransactionId: "tx")),
            now: Self.t0
        )
        guard case .send(.charge(var charge)) = step.effects.first else { fatalError("no charge") }
        charge = OrderLifecycle.advance(
            charge,
            .notified(.succeeded(amount: .yuan(1_000), reference: "Q1"), earlier: nil),
            now: Self.t0,
            configuration: configuration
        ).next!
        return OrderLifecycle(
            order: OrderLifecycle.settle(machine.order, [charge]),
            payments: [charge],
            configuration: configuration
        )
    }

    @Test func anAuthorizationStoresTheChargeBeforeSendingItAndNeverSendsASecondWhileItIsInFlight() {
        var machine = OrderLifecycle(order: order(), payments: [], configuration: configuration)
        #expect(machine.authorizationGate() == nil)
        let step = machine.handle(
            .authorize(.init(transaction: transaction(1), card: nil, tokenTransactionId: "tx")),
            now: Self.t0
        )
        guard case .insertPayment(let record, let creation, let stored, "tx") = step.write else {
            Issue.record("no insert: \(step)")
            return
        }
        #expect(record.id == "pay_t1" && record.amount == .yuan(1_000) && record.currencyNumeric == "156")
        #expect(creation.from == nil && creation.to == .submitting)
        #expect(stored.status == .pending && stored.version == 0)
        #expect(step.effects == [.send(.charge(record))])
        // The second authorization waits for the first charge's outcome.
        #expect(machine.authorizationGate()?.reply == .awaitOutcome(record))
        let again = machine.handle(
            .authorize(.init(transaction: transaction(2), card: nil, tokenTransactionId: "tx2")),
            now: Self.t0
        )
        #expect(again.write == nil && again.effects.isEmpty)
    }

    @Test func nothingToPayIsAFailureAndACanceledOrderTakesNoPayment() {
        let free = OrderLifecycle(order: order(amount: 0), payments: [], configuration: configuration)
        #expect(free.authorizationGate()?.reply == .failure("This order has nothing to pay; nothing was charged"))
        var machine = OrderLifecycle(order: order(), payments: [], configuration: configuration)
        let cancel = machine.handle(.cancel(.shopper), now: Self.t0)
        guard case .updateOrder(let canceled) = cancel.write else {
            Issue.record("no write")
            return
        }
        #expect(canceled.status == .canceled && canceled.canceledAt == Self.t0)
        guard case .refused(let refusal) = machine.authorizationGate()?.reply else {
            Issue.record("not refused")
            return
        }
        #expect(refusal.kind == .conflict)
    }

    @Test func aCanceledPaidOrderIsVoidedTheSameDayAndRefundedLater() {
        var machine = paid()
        let cancel = machine.handle(.cancel(.merchant), now: Self.t0.addingTimeInterval(60))
        #expect(cancel.effects == [.endAgreement(because: "the order of its first payment was canceled"), .unwind])
        var sameDay = machine
        let void = sameDay.handle(.unwind(transaction(2)), now: Self.t0.addingTimeInterval(61))
        guard case .send(.void(let record, "Q1")) = void.effects.last else {
            Issue.record("no void: \(void.effects)")
            return
        }
        #expect(record.amount == .yuan(1_000))
        var nextDay = machine
        let refund = nextDay.handle(.unwind(transaction(3)), now: Self.t0.addingTimeInterval(86_400))
        guard case .send(.refund(let r, "Q1")) = refund.effects.last else {
            Issue.record("no refund: \(refund.effects)")
            return
        }
        #expect(r.amount == .yuan(1_000))
    }

    @Test func aShopperMayCancelAPaidOrderOnlyJustAfterItsCharge() {
        var late = paid()
        let step = late.handle(
            .cancel(.shopper),
            now: Self.t0.addingTimeInterval(configuration.shopperCancelWindow + 1)
        )
        guard case .refused(let refusal) = step.reply else {
            Issue.record("not refused")
            return
        }
        #expect(refusal.message.contains("ask the merchant for a refund"))
    }

    @Test func refundsInFlightCountAndNeverExceedWhatWasPaid() {
        var machine = paid()
        let first = machine.handle(.reverse(.refund, amount: 600, transaction(2), cause: nil), now: Self.t0)
        #expect(first.write != nil)
        #expect(!first.effects.contains(.endAgreement(because: "its first payment was refunded in full")))
        let second = machine.handle(.reverse(.refund, amount: 600, transaction(3), cause: nil), now: Self.t0)
        guard case .refused(let refusal) = second.reply else {
            Issue.record("not refused")
            return
        }
        #expect(refusal.code == "refund_exceeds_payment" && refusal.field == "amount")
        let rest = machine.handle(.reverse(.refund, amount: nil, transaction(4), cause: nil), now: Self.t0)
        #expect(rest.effects.first == .endAgreement(because: "its first payment was refunded in full"))
        guard case .awaitOutcome(let last) = rest.reply else {
            Issue.record("no refund")
            return
        }
        #expect(last.amount == .yuan(400))
        let void = machine.handle(.reverse(.void, amount: nil, transaction(5), cause: nil), now: Self.t0)
        #expect(void.write == nil)
    }

    @Test func aHeldAcceptanceIsStoredFirstWithItsOwnHistoryRow() {
        var fresh = OrderLifecycle(order: order(), payments: [], configuration: configuration)
        let step = fresh.handle(
            .authorize(.init(transaction: transaction(9), card: nil, tokenTransactionId: nil)),
            now: Self.t0
        )
        guard case .send(.charge(let record)) = step.effects.first else {
            Issue.record("no charge")
            return
        }
        let held = OrderLifecycle.Acceptance(answer: .accepted(reference: "Q9"), at: Self.t0.addingTimeInterval(1))
        let result = OrderLifecycle.advance(
            record,
            .notified(.succeeded(amount: .yuan(1_000), reference: "Q9"), earlier: held),
            now: Self.t0.addingTimeInterval(2),
            configuration: configuration
        )
        #expect(result.earlier?.from == .submitting && result.earlier?.to == .accepted)
        #expect(result.transition?.from == .accepted && result.transition?.to == .succeeded)
        #expect(result.settlesOrder && result.next?.lifecycle.state == .succeeded)
        // A late duplicate changes nothing.
        let late = OrderLifecycle.advance(
            result.next!,
            .answered(.accepted(reference: "Q9")),
            now: Self.t0,
            configuration: configuration
        )
        #expect(late.ignored && late.next == nil)
    }

    @Test func aSuccessInAnotherCurrencyIsHeldNotPaid() {
        var fresh = OrderLifecycle(order: order(), payments: [], configuration: configuration)
        let step = fresh.handle(
            .authorize(.init(transaction: transaction(7), card: nil, tokenTransactionId: nil)),
            now: Self.t0
        )
        guard case .send(.charge(let record)) = step.effects.first else {
            Issue.record("no charge")
            return
        }
        #expect(record.lifecycle.expectedCurrency == "156")
        let yen = Money(1_000, Currency("JPY")!)
        let held = OrderLifecycle.advance(
            record,
            .queried(.succeeded(amount: yen, reference: "Q7"), earlier: nil),
            now: Self.t0,
            configuration: configuration
        )
        #expect(held.next?.lifecycle.state == .held)
        #expect(
            held.transition?.cause.contains("1000 JPY but 10.00 CNY was expected") == true,
            "\(held.transition?.cause ?? "")"
        )
        let paid = OrderLifecycle.advance(
            record,
            .queried(.succeeded(amount: .yuan(1_000), reference: "Q7"), earlier: nil),
            now: Self.t0,
            configuration: configuration
        )
        #expect(paid.next?.lifecycle.state == .succeeded)
    }
}
