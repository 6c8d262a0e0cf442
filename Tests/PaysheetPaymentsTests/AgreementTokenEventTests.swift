import Foundation
import PaysheetModel
import Testing

@testable import PaysheetPayments

/// What a merchant token's life-cycle events do to its agreement: deleted ends it, suspended stops
/// its charges until resumed, updated records the card; replays and stale events change nothing.
@Suite struct AgreementTokenEventTests {
    let base = AgreementLifecycleTests()
    var t0: Date { AgreementLifecycleTests.t0 }
    var month: Date { t0.addingTimeInterval(32 * 86_400) }

    func event(
        _ id: String,
        _ kind: MerchantTokenEvent.Kind,
        reason: String? = "USER",
        at issued: Date? = nil
    )
        -> MerchantTokenEvent
    {
        MerchantTokenEvent(id: id, kind: kind, reason: reason, issuedAt: issued)
    }

    /// The agreement after `event`, which must change it.
    func applied(_ agreement: AgreementRecord, _ event: MerchantTokenEvent, at now: Date) -> AgreementRecord {
        guard case .changed(let next) = AgreementLifecycle(agreement).applying(event, at: now) else {
            Issue.record("\(event.id) changed nothing")
            return agreement
        }
        return next
    }

    func chargeCode(_ agreement: AgreementRecord, at now: Date) -> String? {
        switch AgreementLifecycle(agreement).chargeablePeriod(firstOrder: base.firstOrder(), lastCharge: nil, now: now)
        {
        case .success: return nil
        case .failure(let refusal): return refusal.code
        }
    }

    @Test func aDeletedTokenEndsTheAgreementAndTakesNoCharge() {
        let agreement = base.agreement(.recurring)
        #expect(chargeCode(agreement, at: month) == nil)
        let deleted = applied(agreement, event("E1", .deleted, reason: "ISSUER", at: t0), at: t0)
        #expect(deleted.tokenStatus == .deleted)
        #expect(deleted.canceledAt == t0)
        #expect(deleted.canceledBecause == "its merchant token was deleted by the card issuer")
        #expect(deleted.tokenEventIds == ["E1"])
        #expect(chargeCode(deleted, at: month) == "merchant_token_deleted")
        // Nothing brings it back, and no later event changes it.
        for (id, kind) in [("E2", MerchantTokenEvent.Kind.resumed), ("E3", .updated), ("E4", .suspended)] {
            guard case .unchanged = AgreementLifecycle(deleted).applying(event(id, kind, at: month), at: month) else {
                Issue.record("\(kind) changed a deleted token")
                continue
            }
        }
        // An agreement canceled before keeps its cancel; its token is deleted all the same.
        var canceled = agreement
        canceled.canceledAt = t0
        let later = applied(canceled, event("E5", .deleted, reason: nil), at: month)
        #expect(later.canceledAt == t0 && later.canceledBecause == nil && later.tokenStatus == .deleted)
        #expect(later.tokenEventAt == month)  // no time from the gateway: when it was applied
    }

    @Test func aSuspendedTokenTakesNoChargeUntilResumed() {
        let agreement = base.agreement(.recurring)
        let suspended = applied(agreement, event("S", .suspended, at: t0), at: t0)
        #expect(suspended.merchantTokenStatus == .suspended && suspended.canceledAt == nil)
        #expect(chargeCode(suspended, at: month) == "merchant_token_suspended")
        guard case .unchanged = AgreementLifecycle(suspended).applying(event("S2", .suspended), at: t0) else {
            Issue.record("suspended twice")
            return
        }
        let resumed = applied(suspended, event("R", .resumed, at: t0.addingTimeInterval(60)), at: t0)
        #expect(resumed.merchantTokenStatus == .active)
        #expect(chargeCode(resumed, at: month) == nil)
        guard case .unchanged = AgreementLifecycle(agreement).applying(event("R2", .resumed), at: t0) else {
            Issue.record("resumed an active token")
            return
        }
        // Still refused for what it was refused before: a period not yet due, a canceled agreement.
        #expect(chargeCode(suspended, at: t0) == "merchant_token_suspended")
        var canceled = suspended
        canceled.canceledAt = t0
        #expect(chargeCode(canceled, at: month) == "agreement_canceled")
    }

    @Test func anUpdateRecordsTheCard() {
        var update = event("U", .updated, at: t0)
        update.cardSuffix = "5678"
        update.cardExpiration = "12/31"
        let updated = applied(base.agreement(.recurring), update, at: t0)
        #expect(updated.cardSuffix == "5678" && updated.cardExpiration == "12/31")
        #expect(updated.merchantTokenStatus == .active && updated.tokenEventIds == ["U"])
        guard case .unchanged = AgreementLifecycle(updated).applying(event("X", .other("WHATEVER")), at: t0) else {
            Issue.record("an unknown event type changed the agreement")
            return
        }
    }

    @Test func aReplayedOrStaleEventChangesNothing() {
        let suspended = applied(base.agreement(.recurring), event("S", .suspended, at: t0), at: t0)
        let resumed = applied(suspended, event("R", .resumed, at: t0.addingTimeInterval(10)), at: t0)
        // The suspension again (a replay): already applied, the token stays active.
        #expect(AgreementLifecycle(resumed).applying(event("S", .suspended, at: t0), at: month) == .alreadyApplied)
        // Another suspension issued before the resume (out of order): stale.
        guard
            case .stale(let why) = AgreementLifecycle(resumed).applying(
                event("S0", .suspended, at: t0.addingTimeInterval(5)),
                at: month
            )
        else {
            Issue.record("an event older than the last one applied was applied")
            return
        }
        #expect(why.contains("S0"))
        // A deletion issued before the resume is stale too: it would end the agreement after the fact.
        guard case .stale = AgreementLifecycle(resumed).applying(event("D0", .deleted, at: t0), at: month) else {
            Issue.record("a stale deletion was applied")
            return
        }
    }

    @Test func theAppliedEventsKeptAreBounded() {
        var agreement = base.agreement(.recurring)
        for n in 0..<(AgreementLifecycle.keptTokenEvents + 5) {
            var update = event("U\(n)", .updated, at: t0.addingTimeInterval(Double(n)))
            update.cardSuffix = String(1000 + n)
            agreement = applied(agreement, update, at: t0)
        }
        #expect(agreement.tokenEventIds?.count == AgreementLifecycle.keptTokenEvents)
        #expect(agreement.tokenEventIds?.last == "U\(AgreementLifecycle.keptTokenEvents + 4)")
    }

    @Test func anOldRecordReadsAsAnActiveToken() throws {
        // An agreement stored before token events existed has none of their members.
        let stored = try JSONEncoder().encode(base.agreement(.recurring))
        let text = String(decoding: stored, as: UTF8.self)
        #expect(!text.contains("tokenStatus") && !text.contains("tokenEventIds"))
        let read = try JSONDecoder().decode(AgreementRecord.self, from: stored)
        #expect(read.tokenStatus == nil && read.merchantTokenStatus == .active)
    }
}
