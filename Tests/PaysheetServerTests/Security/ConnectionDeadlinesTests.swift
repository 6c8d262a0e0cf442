import NIOCore
import Testing

@testable import PaysheetServer

/// The connection deadlines as a pure machine: time is an input, so none of these waits.
@Suite struct ConnectionDeadlinesTests {
    let limits = ConnectionDeadlines.Limits(
        idle: .seconds(60),
        header: .seconds(10),
        body: .seconds(30),
        drain: .seconds(2),
        drainBytes: 1000,
        drainQuiet: .seconds(1)
    )
    func at(_ seconds: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(1_000_000_000 + seconds * 1_000_000_000)) }

    @Test func aNewConnectionMustSendItsHeadWithinTheHeaderTime() {
        var machine = ConnectionDeadlines(limits: limits, openedAt: at(0))
        #expect(machine.deadline == at(10))
        #expect(machine.timerFired(now: at(9)) == .wait(until: at(10)))
        #expect(machine.timerFired(now: at(10)) == .close(.header))
    }

    @Test func aByteASecondDoesNotMoveTheHeaderDeadline() {
        var machine = ConnectionDeadlines(limits: limits, openedAt: at(0))
        for second in 1...9 { #expect(machine.bytesRead(1, now: at(Int64(second))) == .wait(until: at(10))) }
        #expect(machine.timerFired(now: at(10)) == .close(.header))
    }

    @Test func anIdleKeepAliveConnectionIsClosedAfterTheIdleTime() {
        var machine = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = machine.headRead(now: at(1))
        _ = machine.endRead(now: at(1))
        #expect(machine.deadline == nil)  // the server is answering: no deadline of ours
        #expect(machine.responseEnded(now: at(5)) == .wait(until: at(65)))
        #expect(machine.isEvictable)
        // The next request's first byte starts its header deadline.
        #expect(machine.bytesRead(10, now: at(30)) == .wait(until: at(40)))
        #expect(machine.timerFired(now: at(40)) == .close(.header))

        var idle = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = idle.headRead(now: at(1))
        _ = idle.endRead(now: at(1))
        _ = idle.responseEnded(now: at(2))
        #expect(idle.timerFired(now: at(62)) == .close(.idle))
    }

    @Test func aSlowBodyIsClosedAfterTheBodyTime() {
        var machine = ConnectionDeadlines(limits: limits, openedAt: at(0))
        #expect(machine.headRead(now: at(1)) == .wait(until: at(31)))
        #expect(!machine.isEvictable)
        for second in 2...30 { _ = machine.bytesRead(1, now: at(Int64(second))) }
        #expect(machine.timerFired(now: at(31)) == .close(.body))
    }

    @Test func anAnswerBeforeTheBodyEndsSaysCloseAndTheRestIsDrained() {
        var machine = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = machine.headRead(now: at(1))
        let marked1 = machine.responseHeadWritten(saysClose: false)
        #expect(marked1)  // mark it Connection: close
        #expect(machine.responseEnded(now: at(2)) == .startDraining(until: at(3)))  // a second of quiet
        #expect(machine.bytesRead(600, now: at(2)) == .wait(until: at(3)))
        // More than drainBytes: closed at once.
        #expect(machine.bytesRead(600, now: at(3)) == .close(.drained))

        var ended = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = ended.headRead(now: at(1))
        _ = ended.responseHeadWritten(saysClose: false)
        _ = ended.responseEnded(now: at(2))
        #expect(ended.inputClosed() == .close(.drained))  // the client finished and closed its side

        var late = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = late.headRead(now: at(1))
        _ = late.responseHeadWritten(saysClose: false)
        _ = late.responseEnded(now: at(2))
        #expect(late.timerFired(now: at(3)) == .close(.drained))  // the client went quiet
    }

    @Test func aRequestReadWholeIsAnsweredAsItAskedAndAClientThatNeverClosesIsNotKept() {
        var machine = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = machine.headRead(now: at(1))
        _ = machine.endRead(now: at(1))
        let marked2 = machine.responseHeadWritten(saysClose: false)
        #expect(!marked2)
        #expect(machine.responseEnded(now: at(2)) == .wait(until: at(62)))

        var closing = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = closing.headRead(now: at(1))
        _ = closing.endRead(now: at(1))
        let marked3 = closing.responseHeadWritten(saysClose: true)
        #expect(!marked3)  // already says it
        #expect(closing.responseEnded(now: at(2)) == .startDraining(until: at(3)))
        #expect(closing.timerFired(now: at(3)) == .close(.drained))
    }

    @Test func aPipelinedRequestKeepsItsBodyDeadline() {
        var machine = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = machine.headRead(now: at(1))
        _ = machine.endRead(now: at(1))
        _ = machine.headRead(now: at(2))  // the second request arrives while the first is answered
        #expect(machine.responseEnded(now: at(3)) == .wait(until: at(32)))
        #expect(machine.requestsInFlight == 1)
    }
}

extension ConnectionDeadlinesTests {
    @Test func aPipelinedRequestDoesNotMakeTheAnswerBeforeItSayClose() {
        var machine = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = machine.headRead(now: at(1))
        _ = machine.endRead(now: at(1))
        _ = machine.headRead(now: at(2))
        let marked4 = machine.responseHeadWritten(saysClose: false)
        #expect(!marked4)
        #expect(machine.responseEnded(now: at(3)) == .wait(until: at(32)))
    }
}

extension ConnectionDeadlinesTests {
    @Test func aClientStillSendingIsDrainedNoLongerThanTheDrainTime() {
        var machine = ConnectionDeadlines(limits: limits, openedAt: at(0))
        _ = machine.headRead(now: at(1))
        _ = machine.responseHeadWritten(saysClose: false)
        _ = machine.responseEnded(now: at(10))
        // Bytes keep coming, each within the quiet time: the drain time still ends it.
        #expect(machine.bytesRead(10, now: at(11)) == .wait(until: at(12)))
        #expect(machine.timerFired(now: at(11)) == .wait(until: at(12)))
        #expect(machine.bytesRead(10, now: at(12)) == .wait(until: at(12)))
        #expect(machine.timerFired(now: at(12)) == .close(.drained))
    }
}
