import Foundation
import PaysheetPayments

extension Simulation {
    /// Schedules life-cycle notifications of the merchant token of the plan order `order`: now and
    /// then a suspension (sometimes resumed later) or a deletion, before or after its charge.
    mutating func scriptTokenEvents(_ order: String) {
        guard chooser.chance(0.4) else { return }
        let when = 10 + Double(chooser.choose(90))
        switch chooser.choose(3) {
        case 0:
            add(.tokenEvent(firstOrder: order, .deleted), server: nil, after: when)
        default:
            add(.tokenEvent(firstOrder: order, .suspended), server: nil, after: when)
            if chooser.chance(0.5) {
                add(.tokenEvent(firstOrder: order, .resumed), server: nil, after: when + Double(chooser.choose(40)))
            }
        }
    }

    /// A server receives a notification of `kind` for the token of the agreement of `first`: the
    /// core decides, the agreement is stored (one step: the simulated job is atomic).
    mutating func tokenEvent(_ kind: MerchantTokenEvent.Kind, of first: String, server: Int) {
        guard let agreement = store.agreements[first] else {
            // No agreement has the token yet: the notification finds none, as on the server.
            note("server \(server): token event \(kind) for \(first): no agreement (yet)")
            return
        }
        // The token service's account, whatever the core makes of it, for the token of this
        // agreement (its first payment's: an agreement started again has another): a deletion is for good.
        let token = agreement.firstPaymentId
        switch (kind, tokenTold[token]) {
        case (_, .deleted?): break
        case (.deleted, _): tokenTold[token] = .deleted
        case (.suspended, _): tokenTold[token] = .suspended
        case (.resumed, _): tokenTold[token] = .active
        default: break
        }
        let event = MerchantTokenEvent(id: newId("ev"), kind: kind, reason: "USER", issuedAt: now)
        switch AgreementLifecycle(agreement).applying(event, at: now) {
        case .changed(let next):
            store.agreements[first] = next
            note("server \(server): token event \(kind) for \(first): token \(next.merchantTokenStatus.rawValue)")
        case let effect:
            note("server \(server): token event \(kind) for \(first): \(effect)")
        }
    }

    /// No merchant-initiated charge with a token the servers were told is deleted or suspended.
    mutating func checkTokenAlive(_ first: String) {
        guard seen == nil, let token = store.agreements[first]?.firstPaymentId, let told = tokenTold[token],
            told != .active
        else { return }
        seen = Violation(
            invariant: .noChargeOnDeadToken,
            detail: "a merchant-initiated charge of the agreement of \(first) with a \(told.rawValue) token",
            step: steps
        )
    }
}
