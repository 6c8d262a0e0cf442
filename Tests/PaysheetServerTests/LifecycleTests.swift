import Foundation
import Testing
@testable import PaysheetServer

@Suite struct LifecycleTests {
    let config = LifecycleConfiguration()
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func fresh(_ amount: Int = 1000) -> PaymentLifecycle {
        PaymentLifecycle(expectedAmount: amount, submittedAt: t0, configuration: config)
    }

    @Test func synchronousSuccessMeansAcceptedNotPaid() {
        var p = fresh()
        let e = p.receive(.answer(.accepted(reference: "Q1")), now: t0, configuration: config)
        #expect(e == .transition(from: .submitting, to: .accepted, cause: "acquirer accepted (not yet paid)"))
        #expect(p.state == .accepted)
        #expect(p.reference == "Q1")
        #expect(p.nextQueryAt == t0.addingTimeInterval(3))
    }

    @Test func successOnlyOnANotificationOrQueryForTheExpectedAmount() {
        var p = fresh()
        _ = p.receive(.answer(.accepted(reference: nil)), now: t0, configuration: config)
        _ = p.receive(.notification(.succeeded(amount: .yuan(1000), reference: "Q1")), now: t0, configuration: config)
        #expect(p.state == .succeeded)
        #expect(p.nextQueryAt == nil)
        var q = fresh()
        _ = q.receive(.query(.succeeded(amount: .yuan(999), reference: "Q1")), now: t0, configuration: config)
        #expect(q.state == .held)
    }

    @Test func terminalStatesNeverChange() {
        let inputs: [PaymentLifecycle.Input] = [
            .answer(.accepted(reference: "x")), .answer(.declined(code: "64", message: "m")),
            .answer(.unknown(reason: "r")), .answer(.duplicate),
            .notification(.succeeded(amount: .yuan(1000), reference: nil)),
            .notification(.failed(code: "64", message: "m")),
            .query(.succeeded(amount: .yuan(5), reference: nil)), .query(.notFound), .query(.pending(reason: "05")),
            .query(.moneyTaken(code: "42", message: "m")), .query(.unknown(reason: "x", throttled: true)),
        ]
        let finishers: [PaymentLifecycle.Input] = [
            .notification(.succeeded(amount: .yuan(1000), reference: nil)),
            .answer(.declined(code: "63", message: "m")),
            .query(.moneyTaken(code: "74", message: "m")),
        ]
        for finisher in finishers {
            for input in inputs {
                var p = fresh()
                _ = p.receive(finisher, now: t0, configuration: config)
                #expect(p.state.isTerminal)
                let before = p
                let e = p.receive(input, now: t0.addingTimeInterval(1000), configuration: config)
                #expect(p == before, "terminal \(before.state) changed on \(input)")
                if case .ignored = e {} else { Issue.record("\(input) not ignored in \(before.state)") }
            }
        }
    }

    @Test func ambiguousAnswersLeadToQueriesNeverToAResend() {
        for answer in [SubmitAnswer.unknown(reason: "timeout"), .duplicate] {
            var p = fresh()
            _ = p.receive(.answer(answer), now: t0, configuration: config)
            #expect(p.state == .unknown)
            #expect(p.isDue(at: t0.addingTimeInterval(1)))
        }
    }

    @Test func queriesFollowTheOneTwoFourScheduleThenBackOff() {
        var p = fresh()
        _ = p.receive(.answer(.accepted(reference: nil)), now: t0, configuration: config)
        var t = t0.addingTimeInterval(3)
        #expect(!p.isDue(at: t.addingTimeInterval(-0.001)))
        var waits: [Double] = []
        for _ in 0..<9 {
            #expect(p.isDue(at: t))
            #expect(p.receive(.query(.pending(reason: "05")), now: t, configuration: config) == .rescheduled)
            let next = p.nextQueryAt!
            waits.append(next.timeIntervalSince(t))
            t = next
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 300, 600, 1800])
    }

    @Test func notFoundIsProofOfFailureOnlyLate() {
        var p = fresh()
        _ = p.receive(.answer(.unknown(reason: "HTTP 503")), now: t0, configuration: config)
        #expect(p.receive(.query(.notFound), now: t0.addingTimeInterval(5), configuration: config) == .rescheduled)
        #expect(p.state == .unknown)
        _ = p.receive(.query(.notFound), now: t0.addingTimeInterval(61), configuration: config)
        #expect(p.state == .failed)
        #expect(p.resultCode == "34")
    }

    @Test func throttledQueriesJumpToTheBackoffSchedule() {
        var p = fresh()
        _ = p.receive(.answer(.accepted(reference: nil)), now: t0, configuration: config)
        let t = t0.addingTimeInterval(3)
        _ = p.receive(.query(.unknown(reason: "37", throttled: true)), now: t, configuration: config)
        #expect(p.nextQueryAt == t.addingTimeInterval(300))
    }

    @Test func aNotificationBeforeTheSynchronousAnswerWins() {
        var p = fresh()
        _ = p.receive(.notification(.succeeded(amount: .yuan(1000), reference: "Q")), now: t0, configuration: config)
        #expect(p.state == .succeeded)
        if case .ignored = p.receive(.answer(.accepted(reference: "Q")), now: t0, configuration: config) {
        } else {
            Issue.record("late answer not ignored")
        }
    }

    @Test func declinesAndMoneyTaken() {
        var d = fresh()
        _ = d.receive(.answer(.declined(code: "63", message: "frozen")), now: t0, configuration: config)
        #expect(d.state == .failed && d.resultCode == "63")
        var a = fresh()
        _ = a.receive(.answer(.accepted(reference: nil)), now: t0, configuration: config)
        _ = a.receive(.notification(.failed(code: "64", message: "funds")), now: t0, configuration: config)
        #expect(a.state == .failed && a.resultCode == "64")
        var m = fresh()
        _ = m.receive(.query(.moneyTaken(code: "42", message: "late")), now: t0, configuration: config)
        #expect(m.state == .held)
    }

    @Test func everySequenceOfInputsKeepsTheInvariants() {
        // Exhaustive over all sequences of three inputs from a representative alphabet.
        let alphabet: [PaymentLifecycle.Input] = [
            .answer(.accepted(reference: "R")), .answer(.declined(code: "64", message: "m")),
            .answer(.unknown(reason: "t")),
            .answer(.duplicate), .notification(.succeeded(amount: .yuan(1000), reference: "R")),
            .notification(.failed(code: "64", message: "m")),
            .query(.succeeded(amount: .yuan(1000), reference: "R")),
            .query(.succeeded(amount: .yuan(1), reference: "R")),
            .query(.pending(reason: "05")),
            .query(.notFound), .query(.unknown(reason: "x", throttled: false)),
            .query(.moneyTaken(code: "74", message: "m")),
        ]
        var count = 0
        for a in alphabet {
            for b in alphabet {
                for c in alphabet {
                    var p = fresh()
                    var sawSuccessInput = false
                    for (i, input) in [a, b, c].enumerated() {
                        let before = p.state
                        let effect = p.receive(input, now: t0.addingTimeInterval(Double(i)), configuration: config)
                        if before.isTerminal { #expect(p.state == before) }
                        if case .transition(let from, let to, _) = effect {
                            #expect(from == before && to == p.state && from != to)
                        }
                        switch input {
                        case .notification(.succeeded(let m, _)) where m.minorUnits == 1000,
                            .query(.succeeded(let m, _)) where m.minorUnits == 1000:
                            sawSuccessInput = true
                        default: break
                        }
                        // Succeeded only after a notification or query said so for the right amount.
                        if p.state == .succeeded { #expect(sawSuccessInput) }
                        #expect(p.state.isTerminal == (p.nextQueryAt == nil))
                    }
                    count += 1
                }
            }
        }
        #expect(count == 1728)
    }
}
