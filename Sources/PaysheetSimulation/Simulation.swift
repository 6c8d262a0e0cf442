import Foundation
import PaysheetModel
import PaysheetPayments

/// One simulated world: servers running the core's writer against one in-memory store and one
/// simulated acquirer, on a simulated clock, every decision taken from a ``Chooser``. Each step
/// runs one piece of work — a read, a write, a request, an answer, a notification, a query, a
/// crash — and then every invariant is checked.
///
/// The writer here is the server's, step for step: read the order (or the payment), apply the
/// input to the core, store the step's write checked against the versions read (another writer
/// first: read again and apply again), then carry out the step's effects in order. A crash drops
/// a server's work in flight at any point between two of these steps, and what it held in memory.
public struct Simulation<C: Chooser> {
    let configuration: SimulationConfiguration
    let lifecycle: LifecycleConfiguration
    let core: Core
    /// Where the decisions come from.
    public var chooser: C
    var store = SimulatedStore()
    var acquirer = SimulatedAcquirer()
    var held: [[String: OrderLifecycle.Acceptance]]
    var jobs: [Job] = []
    var sequence = 0
    var ids = 0
    var now: Date
    let start: Date
    var steps = 0
    var healing = false
    /// The steps as they ran, when asked for (a replay prints them).
    public var trace: [String]?

    /// A world of `configuration`, choosing with `chooser`, running `core`.
    public init(configuration: SimulationConfiguration, chooser: C, core: Core = .real, tracing: Bool = false) {
        self.configuration = configuration
        self.chooser = chooser
        self.core = core
        var lifecycle = LifecycleConfiguration()
        lifecycle.shopperCancelWindow = 120
        self.lifecycle = lifecycle
        held = Array(repeating: [:], count: configuration.servers)
        // 10:00 Beijing; random schedules also start a minute before the clearing day ends.
        let base = Date(timeIntervalSince1970: 1_798_768_800)  // 2027-01-01T02:00:00Z
        start = base
        now = base
        trace = tracing ? [] : nil
    }

    // MARK: Work

    enum Pending: Equatable {
        case authorize(token: String?, cause: String?)
        /// An agreement's charge, its transaction chosen when its period was claimed.
        case agreementCharge(OrderLifecycle.NewTransaction, cause: String)
        case cancel(OrderLifecycle.Party)
        case refund(Int?)
        case void
        case unwind
    }

    enum Arrival: Equatable {
        case answered(SubmitAnswer)
        case notified(TransactionStatus)
        case queried(TransactionStatus)
    }

    /// Something for a payment reaching a server: what, when it came, the notification's key (to
    /// store deduplicated with the change), whether it ends a query's claim, and the try.
    struct Delivery {
        var payment: String
        var arrival: Arrival
        var at: Date
        var notification: String?
        var release: Bool
        var attempt = 0
    }

    enum Work {
        case action(Pending, order: String)
        case agreementCharge(firstOrder: String)
        /// A life-cycle notification of the merchant token of the agreement of `firstOrder`.
        case tokenEvent(firstOrder: String, MerchantTokenEvent.Kind)
        case input(Pending, order: String, attempt: Int, loaded: (OrderRecord, [PaymentRecord])?)
        case effects(order: String, [OrderLifecycle.Effect])
        case answer(payment: String, charge: Bool, SubmitAnswer)
        case arrival(Delivery, loaded: PaymentRecord?)
        case query(PaymentRecord)
        case storeHeld(payment: String)
        case settle(TransactionIdentity)
        case notify(TransactionIdentity, key: String)
        case poll
    }

    struct Job {
        var at: Date
        var sequence: Int
        /// The server doing it (`nil`: the acquirer or the outside world).
        var server: Int?
        var work: Work
    }

    mutating func add(_ work: Work, server: Int?, after seconds: Double = 0) {
        sequence += 1
        jobs.append(Job(at: now.addingTimeInterval(seconds), sequence: sequence, server: server, work: work))
    }

    mutating func newId(_ prefix: String) -> String {
        ids += 1
        return "\(prefix)\(ids)"
    }

    mutating func newTransaction() -> OrderLifecycle.NewTransaction {
        let id = newId("")
        return .init(
            id: id,
            identity: TransactionIdentity(orderId: "A" + id, txnTime: String(Int(now.timeIntervalSince1970)))
        )
    }

    func log(_ line: @autoclosure () -> String) -> String? { trace == nil ? nil : line() }

    mutating func note(_ line: @autoclosure () -> String) {
        if trace != nil { trace!.append("[\(steps)] t+\(Int(now.timeIntervalSince(start)))s \(line())") }
    }

    // MARK: Setting up

    mutating func setUp() {
        for n in 0..<configuration.orders {
            let plan = configuration.script == nil && chooser.chance(0.3)
            let amount = [1_000, 2_599, 88_888][chooser.choose(configuration.script == nil ? 3 : 1)]
            let order = OrderRecord(
                id: "ord\(n)",
                status: .created,
                currency: Currency("CNY")!,
                countryCode: "CN",
                lineItems: [],
                shippingMethods: [],
                amount: amount,
                applicationData: "",
                createdAt: now,
                planId: plan ? "plan" : nil
            )
            store.insertOrder(order)
            script(order.id, plan: plan)
        }
        for server in 0..<configuration.servers { add(.poll, server: server, after: 1) }
    }

    mutating func script(_ order: String, plan: Bool) {
        func at(_ seconds: Double, _ pending: Pending) {
            add(.action(pending, order: order), server: nil, after: seconds)
        }
        switch configuration.script {
        case .authorizeThenCancel?:
            at(0, .authorize(token: "tok-\(order)", cause: nil))
            at(1, .cancel(.shopper))
        case .authorizeTwice?:
            at(0, .authorize(token: "tok-\(order)", cause: nil))
            at(0, .authorize(token: "tok2-\(order)", cause: nil))
        case .twoRefunds?:
            at(0, .authorize(token: "tok-\(order)", cause: nil))
            at(15, .refund(600))
            at(15, .refund(600))
        case nil:
            let first = Double(chooser.choose(10))
            at(first, .authorize(token: "tok-\(order)", cause: nil))
            if chooser.chance(0.3) {  // the sheet retries: the same token (a replay) or a new one
                let token = chooser.chance(0.5) ? "tok-\(order)" : "tok-r-\(order)"
                at(first + Double(chooser.choose(30)), .authorize(token: token, cause: nil))
            }
            if chooser.chance(0.3) { at(Double(chooser.choose(60)), .cancel(.shopper)) }
            if chooser.chance(0.1) { at(Double(chooser.choose(100)), .cancel(.merchant)) }
            if chooser.chance(0.4) {
                let when = 10 + Double(chooser.choose(80))
                at(when, .refund(chooser.chance(0.5) ? nil : 400))
                if chooser.chance(0.4) {
                    at(when + Double(chooser.choose(3)), .refund(chooser.chance(0.5) ? nil : 700))
                }
            }
            if chooser.chance(0.2) { at(10 + Double(chooser.choose(80)), .void) }
            if plan, chooser.chance(0.6) {
                add(.agreementCharge(firstOrder: order), server: nil, after: 20 + Double(chooser.choose(80)))
            }
            if plan { scriptTokenEvents(order) }
        }
    }

    // MARK: Running

    /// Runs the world to its end; throws the first invariant that did not hold.
    public mutating func run() throws(Violation) {
        setUp()
        let end = start.addingTimeInterval(configuration.horizon + configuration.healBound)
        while true {
            if !healing, now.timeIntervalSince(start) >= configuration.horizon {
                healing = true
                note("faults stop; the world heals")
            }
            var enabled: [Int] = []
            for (i, job) in jobs.enumerated() where job.at <= now { enabled.append(i) }
            if enabled.isEmpty {
                if healing, quiescent { break }
                guard let next = jobs.map(\.at).min() else { break }
                if next > end { break }
                now = next
                continue
            }
            if faults, chooser.chance(0.01) {
                crash(chooser.choose(configuration.servers))
            } else {
                let job = jobs.remove(at: enabled[chooser.choose(enabled.count)])
                execute(job)
            }
            steps += 1
            try check()
        }
        try checkFinal()
    }

    var faults: Bool { configuration.faults && !healing }

    var quiescent: Bool {
        !jobs.contains { if case .poll = $0.work { return false } else { return true } }
            && store.payments.values.allSatisfy { $0.lifecycle.state.isTerminal }
            && !store.orders.values.contains { $0.status == .canceling }
            && held.allSatisfy(\.isEmpty)
    }

    mutating func crash(_ server: Int) {
        note("server \(server) crashes: its work in flight and its memory are lost")
        jobs.removeAll {
            guard $0.server == server else { return false }
            if case .poll = $0.work { return false }
            return true
        }
        held[server] = [:]
    }

    mutating func execute(_ job: Job) {
        let server = job.server ?? chooser.choose(configuration.servers)
        switch job.work {
        case .action(let pending, let order):
            note("server \(server): \(pending) order \(order)")
            add(.input(pending, order: order, attempt: 0, loaded: nil), server: server)
        case .agreementCharge(let first):
            agreementCharge(first, server: server)
        case .tokenEvent(let first, let kind):
            tokenEvent(kind, of: first, server: server)
        case .input(let pending, let order, let attempt, let loaded):
            input(pending, order: order, attempt: attempt, loaded: loaded, server: server)
        case .effects(let order, let effects):
            effect(effects, order: order, server: server)
        case .answer(let payment, let charge, let answer):
            if charge, case .accepted = answer {
                // Held in memory until the payment's next change here (or the sheet's wait ends).
                held[server][payment] = .init(answer: answer, at: now)
                note("server \(server): holds the acceptance of \(payment)")
                add(.storeHeld(payment: payment), server: server, after: [0, 5, 20][chooser.choose(3)])
            } else {
                arrive(payment, .answered(answer), at: now, notification: nil, release: false, server: server)
            }
        case .arrival(let delivery, let loaded):
            arrival(delivery, loaded: loaded, server: server)
        case .query(let payment):
            var status = acquirer.status(payment.identity)
            if faults, chooser.chance(0.1) { status = .unknown(reason: "the query timed out", throttled: false) }
            note("server \(server): queries \(payment.id): \(status)")
            arrive(payment.id, .queried(status), at: now, notification: nil, release: true, server: server)
        case .storeHeld(let payment):
            if let acceptance = held[server].removeValue(forKey: payment) {
                note("server \(server): the sheet's wait ended; stores the acceptance of \(payment)")
                arrive(
                    payment,
                    .answered(acceptance.answer),
                    at: acceptance.at,
                    notification: nil,
                    release: false,
                    server: server
                )
            }
        case .settle(let identity):
            settle(identity)
        case .notify(let identity, let key):
            guard let payment = store.payment(identity: identity) else { return }
            note("server \(server): notification for \(payment.id)")
            arrive(
                payment.id,
                .notified(acquirer.status(identity)),
                at: now,
                notification: key,
                release: false,
                server: server
            )
        case .poll:
            poll(server)
        }
    }

    /// The acquirer finishes `identity` and notifies (a notification lost, duplicated or late).
    mutating func settle(_ identity: TransactionIdentity) {
        guard let status = acquirer.settle(identity, fails: chooser.chance(0.1)) else { return }
        note("acquirer settles \(identity.orderId): \(status)")
        let copies = faults && chooser.chance(0.2) ? 2 : 1
        for _ in 0..<copies where !(faults && chooser.chance(0.15)) {
            add(.notify(identity, key: "n-\(identity.orderId)"), server: nil, after: [0, 1, 6][chooser.choose(3)])
        }
    }

    /// Queues the arrival of `arrival` for `payment` at `server` (read, then applied and stored).
    mutating func arrive(
        _ payment: String,
        _ arrival: Arrival,
        at: Date,
        notification: String?,
        release: Bool,
        server: Int
    ) {
        let delivery = Delivery(
            payment: payment,
            arrival: arrival,
            at: at,
            notification: notification,
            release: release
        )
        add(.arrival(delivery, loaded: nil), server: server)
    }

    mutating func poll(_ server: Int) {
        for payment in store.claimDue(at: now, leaseSeconds: lifecycle.leaseSeconds) {
            add(.query(payment), server: server)
        }
        for order in store.orders.values where order.status == .canceling {
            add(.input(.unwind, order: order.id, attempt: 0, loaded: nil), server: server)
        }
        var next = 1.0
        if healing {
            // Nothing happens between queries: sleep to the next one that is due (or a lease's end).
            let due = store.payments.values.compactMap { p -> Date? in
                guard let at = p.lifecycle.nextQueryAt else { return nil }
                return max(at, store.leases[p.id] ?? at)
            }
            let canceling = store.orders.values.contains { $0.status == .canceling }
            if !canceling { next = max(1, (due.min() ?? now.addingTimeInterval(600)).timeIntervalSince(now)) }
        }
        add(.poll, server: server, after: next)
    }

    mutating func agreementCharge(_ first: String, server: Int) {
        guard let agreement = store.agreements[first] else { return }
        let lastCharge = agreement.lastChargePaymentId.flatMap { store.payments[$0] }
        let period: Int
        switch core.agreementGate(AgreementLifecycle(agreement), store.aggregate(first), lastCharge, now) {
        case .failure(let refusal):
            note("server \(server): merchant-initiated charge of the agreement of \(first) refused: \(refusal.message)")
            return
        case .success(let chargeable): period = chargeable
        }
        checkAgreementLives(first)
        checkTokenAlive(first)
        guard var next = store.orders[first] else { return }
        next.id = newId("ordA")
        next.agreementId = agreement.id
        next.version = 0
        next.status = .created
        next.paid = .zero(next.amount.currency)
        next.refunded = .zero(next.amount.currency)
        next.canceledAt = nil
        store.insertOrder(next)
        // The period is claimed with the charge (one step here: the simulated job is atomic).
        let transaction = newTransaction()
        var machine = AgreementLifecycle(agreement)
        store.agreements[first] = machine.claim(period: period, paymentId: "pay_\(transaction.id)", orderId: next.id)
        note("server \(server): merchant-initiated charge \(period) of the agreement of \(first): order \(next.id)")
        add(
            .input(
                .agreementCharge(transaction, cause: "merchant-initiated charge \(period)"),
                order: next.id,
                attempt: 0,
                loaded: nil
            ),
            server: server
        )
    }

    /// R12 from outside the core: no merchant-initiated charge once the agreement ended, or once
    /// its first payment's order was canceled or all of that payment given back.
    mutating func checkAgreementLives(_ first: String) {
        guard seen == nil, let agreement = store.agreements[first], let (order, payments) = store.aggregate(first)
        else { return }
        let charge = payments.first { $0.id == agreement.firstPaymentId }
        let given = payments.filter { $0.originalPaymentId == charge?.id && $0.lifecycle.state != .failed }
        let voided = given.contains { $0.kind == .void }
        let refunded = given.reduce(0) { $0 + $1.amount.minorUnits }
        let charged = charge?.amount.minorUnits ?? 0
        if agreement.canceledAt != nil || order.canceledAt != nil || voided || refunded >= charged {
            seen = Violation(
                invariant: .noChargeAfterAgreementEnds,
                detail: "a merchant-initiated charge of the agreement of \(first) after it ended",
                step: steps
            )
        }
    }

    mutating func input(
        _ pending: Pending,
        order orderId: String,
        attempt: Int,
        loaded: (OrderRecord, [PaymentRecord])?,
        server: Int
    ) {
        guard let (order, payments) = loaded else {
            if let aggregate = store.aggregate(orderId) {
                add(.input(pending, order: orderId, attempt: attempt, loaded: aggregate), server: server)
            }
            return
        }
        var machine = OrderLifecycle(order: order, payments: payments, configuration: lifecycle)
        let step: OrderLifecycle.Step
        switch pending {
        case .authorize(let token, let cause):
            if let gate = core.gate(machine) {
                note("server \(server): authorize \(orderId): \(Self.describe(gate.reply))")
                return
            }
            let charge = OrderLifecycle.NewCharge(
                transaction: newTransaction(),
                card: nil,
                tokenTransactionId: token,
                cause: cause
            )
            step = core.handle(&machine, .authorize(charge), now)
        case .agreementCharge(let transaction, let cause):
            let charge = OrderLifecycle.NewCharge(
                transaction: transaction,
                card: nil,
                tokenTransactionId: nil,
                cause: cause
            )
            step = core.handle(&machine, .authorize(charge), now)
        case .cancel(let party): step = core.handle(&machine, .cancel(party), now)
        case .refund(let amount):
            step = core.handle(&machine, .reverse(.refund, amount: amount, newTransaction(), cause: nil), now)
        case .void: step = core.handle(&machine, .reverse(.void, amount: nil, newTransaction(), cause: nil), now)
        case .unwind: step = core.handle(&machine, .unwind(newTransaction()), now)
        }
        if let write = step.write {
            switch store.apply(write) {
            case .inserted: break
            case .orderChanged:
                note("server \(server): \(pending) \(orderId): another writer was first; reads again")
                if attempt < 8 {
                    add(.input(pending, order: orderId, attempt: attempt + 1, loaded: nil), server: server)
                }
                return
            case .tokenReplayed:
                note("server \(server): \(pending) \(orderId): the token was used before; refused")
                return
            }
        }
        note("server \(server): \(pending) \(orderId) → \(Self.describe(step.reply))")
        if !step.effects.isEmpty { add(.effects(order: orderId, step.effects), server: server) }
    }

    mutating func effect(_ effects: [OrderLifecycle.Effect], order orderId: String, server: Int) {
        guard let first = effects.first else { return }
        switch first {
        case .send(let request): send(request, server: server)
        case .endAgreement(let reason):
            if let order = store.orders[orderId], order.planId != nil, order.agreementId == nil,
                let agreement = store.agreements[orderId]
            {
                var machine = AgreementLifecycle(agreement)
                if let ended = machine.end(because: reason, at: now) {
                    store.agreements[orderId] = ended
                    note("server \(server): the agreement of \(orderId) ends: \(reason)")
                }
            }
        case .unwind:
            add(.input(.unwind, order: orderId, attempt: 0, loaded: nil), server: server)
        }
        if effects.count > 1 { add(.effects(order: orderId, Array(effects.dropFirst())), server: server) }
    }

    mutating func send(_ request: OrderLifecycle.Request, server: Int) {
        let payment = request.payment
        if case .charge = request {} else { checkAgreementEnded(before: request) }
        var answer: SubmitAnswer
        if faults, chooser.chance(0.05) {
            answer = .unknown(reason: "timeout: the request never reached the acquirer")
        } else {
            let declines: Bool
            if case .charge = request { declines = chooser.chance(0.1) } else { declines = false }
            let (received, new) = acquirer.receive(request, declines: declines, at: now)
            answer = received
            if new { add(.settle(payment.identity), server: nil, after: [0, 2, 10][chooser.choose(3)]) }
            if faults, chooser.chance(0.05) { answer = .unknown(reason: "timeout: the answer was lost") }
        }
        note("server \(server): sends \(payment.kind.rawValue) \(payment.id) of \(payment.amount): \(answer)")
        var charge = false
        if case .charge = request { charge = true }
        add(.answer(payment: payment.id, charge: charge, answer), server: server, after: Double(chooser.choose(2)))
    }

    mutating func arrival(_ delivery: Delivery, loaded: PaymentRecord?, server: Int) {
        let id = delivery.payment
        guard let payment = loaded else {
            if let stored = store.payments[id] { add(.arrival(delivery, loaded: stored), server: server) }
            return
        }
        let earlier = held[server][id]
        let input: OrderLifecycle.PaymentInput
        switch delivery.arrival {
        case .answered(let answer): input = .answered(answer)
        case .notified(let status): input = .notified(status, earlier: earlier)
        case .queried(let status): input = .queried(status, earlier: earlier)
        }
        let step = core.advance(payment, input, delivery.at, lifecycle)
        if step.ignored {
            if let key = delivery.notification { store.recordNotification(key) }
            if delivery.release { store.release(id) }
            return
        }
        switch store.apply(step, notification: delivery.notification) {
        case .conflict:
            var again = delivery
            again.attempt += 1
            if again.attempt <= 8 { add(.arrival(again, loaded: nil), server: server) }
        case .duplicateNotification:
            if delivery.release { store.release(id) }
        case .updated(let stored, let order):
            if step.earlier != nil || input.isAnswer { held[server][id] = nil }
            if delivery.release { store.release(id) }
            let cause = step.transition?.cause ?? "rescheduled"
            note("server \(server): \(id) is \(stored.lifecycle.state.rawValue) (\(cause))")
            if step.settlesOrder, let order, OrderLifecycle.needsUnwind(order) {
                add(.input(.unwind, order: order.id, attempt: 0, loaded: nil), server: server)
            }
        }
    }

    static func describe(_ reply: OrderLifecycle.Reply) -> String {
        switch reply {
        case .none: "nothing to do"
        case .refused(let refusal): "refused: \(refusal.message)"
        case .failure(let message): "fails: \(message)"
        case .awaitOutcome(let payment):
            "waits for \(payment.kind.rawValue) \(payment.id) (\(payment.lifecycle.state.rawValue))"
        case .order(let order): "order \(order.status.rawValue), paid \(order.paid), refunded \(order.refunded)"
        }
    }

    /// A violation seen while working (checked with the others after the step).
    var seen: Violation?
    /// What the token service told the servers of each agreement's merchant token (by the
    /// agreement's first payment), kept apart from the core's record: the invariant's own account.
    var tokenTold: [String: MerchantTokenStatus] = [:]

    /// R12: a reversal that gives back the whole of a plan's first payment is sent only after
    /// the agreement ended.
    mutating func checkAgreementEnded(before request: OrderLifecycle.Request) {
        let payment = request.payment
        guard let (order, payments) = store.aggregate(payment.orderId), order.planId != nil, order.agreementId == nil,
            let charge = payments.first(where: { $0.id == payment.originalPaymentId })
        else { return }
        // What was given back with this one, counting those made before it (in flight or done).
        let upTo = payments.prefix { $0.id != payment.id } + [payment]
        let given = upTo.filter { $0.kind != .charge && $0.lifecycle.state != .failed }.reduce(0) {
            $0 + $1.amount.minorUnits
        }
        if request.isVoid || given >= charge.amount.minorUnits, store.agreements[order.id]?.canceledAt == nil,
            seen == nil
        {
            seen = Violation(
                invariant: .agreementEndsFirst,
                detail: "\(payment.id) gives back all of \(order.id)'s first payment while its agreement goes on",
                step: steps
            )
        }
    }
}

extension OrderLifecycle.PaymentInput {
    var isAnswer: Bool {
        if case .answered = self { return true }
        return false
    }
}
