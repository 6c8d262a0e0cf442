import NIOCore

/// The deadlines of one HTTP/1.1 connection, without I/O: inputs are what was read and written
/// and the time; outputs are what the driver must do (close, drain, mark the response `close`)
/// and when to look again. ``GuardedHTTPChannel`` drives it.
///
/// A connection is always in one phase, each with at most one deadline:
///
/// | phase | entered | deadline |
/// |---|---|---|
/// | `waiting` | a response was written, nothing of the next request read | `idle` |
/// | `readingHead` | the connection opened, or the first byte of a request arrived | `header` |
/// | `readingBody` | a request's head was read | `body` |
/// | `responding` | the request was read; the server is answering | none |
/// | `draining` | a response was written before its request was read (a 413, a 401…) | `drain` |
///
/// A byte-a-second client never completes its head within `header`; an idle keep-alive
/// connection is closed after `idle`; a slow body after `body`. A response written while its
/// request's body is still arriving says `Connection: close`; then the rest of the body is read
/// and thrown away for at most `drain`, or until the client pauses for `drainQuiet` (so a client
/// that sends its whole body before it reads, as Python's urllib does, gets the answer; nginx's
/// lingering close), and the connection closes.
struct ConnectionDeadlines {
    /// The limits, each a duration from the phase's start.
    struct Limits: Sendable, Equatable {
        var idle: TimeAmount
        var header: TimeAmount
        var body: TimeAmount
        var drain: TimeAmount
        /// Bytes thrown away while draining before the connection is closed anyway.
        var drainBytes: Int
        /// While draining, a pause this long means the client has sent all it will: the connection
        /// closes (nginx's `lingering_timeout` beside `lingering_time`).
        var drainQuiet: TimeAmount = .seconds(1)
    }

    enum Phase: Equatable {
        case waiting(since: NIODeadline)
        case readingHead(since: NIODeadline)
        case readingBody(since: NIODeadline)
        case responding
        case draining(since: NIODeadline, discarded: Int, lastByte: NIODeadline)
        case closed
    }

    /// Why a connection was closed by its deadlines.
    enum CloseReason: String, Equatable, Sendable {
        case idle = "idle timeout"
        case header = "header read timeout"
        case body = "body read timeout"
        case drained = "drained after an early response"
    }

    /// What the driver does after an input.
    enum Action: Equatable {
        /// Nothing now; look again at the deadline (if any).
        case wait(until: NIODeadline?)
        /// Start reading and discarding the rest of the request; look again at the deadline.
        case startDraining(until: NIODeadline)
        /// Close the connection.
        case close(CloseReason)
    }

    let limits: Limits
    private(set) var phase: Phase
    /// Requests whose head was read and whose response has not ended.
    private(set) var requestsInFlight = 0
    /// Set when a response was marked `Connection: close`: the connection ends after it.
    private(set) var closeAfterResponse = false

    /// A connection opened at `now`: its first head must arrive within `header`.
    init(limits: Limits, openedAt now: NIODeadline) {
        self.limits = limits
        self.phase = .readingHead(since: now)
    }

    /// The deadline of the current phase.
    var deadline: NIODeadline? {
        switch phase {
        case .waiting(let since): return since + limits.idle
        case .readingHead(let since): return since + limits.header
        case .readingBody(let since): return since + limits.body
        case .draining(let since, _, let lastByte): return min(since + limits.drain, lastByte + limits.drainQuiet)
        case .responding, .closed: return nil
        }
    }

    /// Bytes arrived from the client.
    mutating func bytesRead(_ count: Int, now: NIODeadline) -> Action {
        switch phase {
        case .waiting:
            phase = .readingHead(since: now)
        case .draining(let since, let discarded, _):
            let total = discarded + count
            if total > limits.drainBytes {
                phase = .closed
                return .close(.drained)
            }
            phase = .draining(since: since, discarded: total, lastByte: now)
        case .readingHead, .readingBody, .responding, .closed:
            break
        }
        return .wait(until: deadline)
    }

    /// A request's head was read.
    mutating func headRead(now: NIODeadline) -> Action {
        guard phase != .closed else { return .wait(until: nil) }
        if case .draining = phase { return .wait(until: deadline) }
        requestsInFlight += 1
        phase = .readingBody(since: now)
        return .wait(until: deadline)
    }

    /// A request's end was read.
    mutating func endRead(now: NIODeadline) -> Action {
        if case .readingBody = phase { phase = .responding }
        return .wait(until: deadline)
    }

    /// A response's head is being written. Returns `true` when it must say `Connection: close`:
    /// its request's body is still arriving.
    mutating func responseHeadWritten(saysClose: Bool) -> Bool {
        if saysClose { closeAfterResponse = true }
        // With a pipelined request behind it, this response's own request was read whole.
        if case .readingBody = phase, requestsInFlight <= 1 {
            closeAfterResponse = true
            return !saysClose
        }
        return false
    }

    /// A response's end was written.
    mutating func responseEnded(now: NIODeadline) -> Action {
        if requestsInFlight > 0 { requestsInFlight -= 1 }
        switch phase {
        case .closed, .draining:
            return .wait(until: deadline)
        case .readingBody where closeAfterResponse && requestsInFlight == 0:
            phase = .draining(since: now, discarded: 0, lastByte: now)
            return .startDraining(until: deadline ?? now)
        case .responding where requestsInFlight == 0:
            if closeAfterResponse {
                // The connection ends here: whatever else the client sends is thrown away until it
                // closes its side or the drain time is up (a client that never closes is not kept).
                phase = .draining(since: now, discarded: 0, lastByte: now)
                return .startDraining(until: deadline ?? now)
            }
            phase = .waiting(since: now)
        case .readingHead, .readingBody, .responding, .waiting:
            break
        }
        return .wait(until: deadline)
    }

    /// The client closed its side (or the connection is gone).
    mutating func inputClosed() -> Action {
        if case .draining = phase {
            phase = .closed
            return .close(.drained)
        }
        return .wait(until: deadline)
    }

    /// The timer fired at `now`.
    mutating func timerFired(now: NIODeadline) -> Action {
        guard let deadline, now >= deadline else { return .wait(until: deadline) }
        let reason: CloseReason
        switch phase {
        case .waiting: reason = .idle
        case .readingHead: reason = .header
        case .readingBody: reason = .body
        case .draining: reason = .drained
        case .responding, .closed: return .wait(until: nil)
        }
        phase = .closed
        return .close(reason)
    }

    /// Whether a new connection may evict this one to make room: no request is being answered
    /// or having its body read (an idle keep-alive connection, or one still sending its head).
    var isEvictable: Bool {
        switch phase {
        case .waiting, .readingHead, .closed: return true
        case .readingBody, .responding, .draining: return false
        }
    }
}
