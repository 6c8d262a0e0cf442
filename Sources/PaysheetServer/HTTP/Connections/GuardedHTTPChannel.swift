import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 channel with a guard on each connection: the caps of a shared
/// ``ConnectionLimiter`` checked when it opens, and the deadlines of ``ConnectionDeadlines``
/// (idle, header, body, drain). Everything else is Hummingbird's own ``HTTP1Channel``.
struct GuardedHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    let limiter: ConnectionLimiter
    let deadlines: ConnectionDeadlines.Limits
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let guardState = ConnectionGuard(
            limiter: limiter,
            limits: deadlines,
            logger: self.logger
        )
        do {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard.Bytes(guardState), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        // On the channel's event loop (where `setup` is called and its future completes), so the
        // guard, which belongs to that loop, is used there only.
        return inner.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            try operations.addHandler(ConnectionGuard.Parts(guardState), position: .before(state))
            return value
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with Paysheet's connection caps and deadlines (``ServerConfiguration/ConnectionLimits``),
    /// for an HTTP server of the toolkit's own (the standalone sandbox gateway); `name` names it in
    /// the log lines of refused connections.
    public static func guarded(
        _ limits: ServerConfiguration.ConnectionLimits,
        name: String,
        logger: Logger
    ) throws -> HTTPServerBuilder {
        .guarded(try ConnectionSettings.forServer(limits, logger: logger), name: name, logger: logger)
    }

    /// HTTP/1.1 with ``GuardedHTTPChannel``'s caps and deadlines; `name` names the server in
    /// the refusal log lines.
    static func guarded(_ settings: ConnectionSettings, name: String, logger: Logger) -> HTTPServerBuilder {
        let limiter = ConnectionLimiter(limits: settings.limits, name: name, logger: logger)
        return .init { responder in
            GuardedHTTPChannel(
                inner: HTTP1Channel(responder: responder),
                limiter: limiter,
                deadlines: settings.deadlines,
                logger: logger
            )
        }
    }
}

/// One connection's guard: the state the two handlers share, on the channel's event loop.
final class ConnectionGuard {
    let limiter: ConnectionLimiter
    let logger: Logger
    var machine: ConnectionDeadlines?
    let limits: ConnectionDeadlines.Limits
    var ticket: ConnectionLimiter.Ticket?
    var timer: Scheduled<Void>?
    var timerDeadline: NIODeadline?
    var bytesContext: ChannelHandlerContext?
    var evictable = true

    init(limiter: ConnectionLimiter, limits: ConnectionDeadlines.Limits, logger: Logger) {
        self.limiter = limiter
        self.limits = limits
        self.logger = logger
    }

    /// The connection opened: admitted, or answered 503 and closed.
    func opened(_ context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        switch limiter.admit(context.channel, address: address, now: now) {
        case .success(let ticket):
            self.ticket = ticket
            let machine = ConnectionDeadlines(limits: limits, openedAt: now)
            self.machine = machine
            schedule(machine.deadline, context: context)
        case .failure(let error):
            let body =
                "{\"error\":{\"code\":\"too_many_connections\",\"message\":\"\(error.refusal.rawValue); retry later\"}}"
            let text =
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: "
                + "\(body.utf8.count)\r\nRetry-After: 1\r\nConnection: close\r\n\r\n\(body)"
            let buffer = context.channel.allocator.buffer(string: text)
            context.writeAndFlush(NIOAny(buffer)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    /// The connection closed.
    func closed() {
        timer?.cancel()
        timer = nil
        machine = nil
        if let ticket { limiter.release(ticket) }
        ticket = nil
    }

    /// Feeds the machine an input and carries out its action.
    func apply(_ context: ChannelHandlerContext, _ input: (inout ConnectionDeadlines) -> ConnectionDeadlines.Action) {
        guard var machine else { return }
        let action = input(&machine)
        self.machine = machine
        if machine.isEvictable != evictable, let ticket {
            evictable = machine.isEvictable
            limiter.update(ticket, evictable: evictable, now: .now())
        }
        switch action {
        case .wait(let deadline):
            schedule(deadline, context: context)
        case .startDraining(let deadline):
            schedule(deadline, context: context)
            bytesContext?.read()
        case .close(let reason):
            logger.debug("connection closed: \(reason.rawValue)")
            timer?.cancel()
            timer = nil
            context.close(promise: nil)
        }
    }

    /// Sets the timer for `deadline`, lazily: a timer already set for no later than it stays
    /// (when it fires, the machine finds its deadline moved and asks for the new one — it closes
    /// nothing before its deadline), and no deadline leaves it to fire and find nothing due. A
    /// request on a kept-alive connection moves the deadline four times, and each reschedule is a
    /// cancelled task and a new one on the event loop's queue; lazily, about two per connection
    /// every header timeout.
    private func schedule(_ deadline: NIODeadline?, context: ChannelHandlerContext) {
        guard let deadline else { return }
        if timer != nil, let timerDeadline, timerDeadline <= deadline { return }
        timer?.cancel()
        timerDeadline = deadline
        let loop = context.eventLoop.assumeIsolatedUnsafeUnchecked()
        timer = loop.scheduleTask(deadline: deadline) { [self] in
            timer = nil
            timerDeadline = nil
            apply(context) { $0.timerFired(now: .now()) }
        }
    }

    var isDraining: Bool {
        if case .draining = machine?.phase { return true }
        return false
    }

    /// The first handler of the pipeline: sees the connection open and close, and every byte.
    final class Bytes: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let state: ConnectionGuard

        init(_ state: ConnectionGuard) { self.state = state }

        func handlerAdded(context: ChannelHandlerContext) {
            state.bytesContext = context
            if context.channel.isActive { opened(context) }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            state.closed()
            state.bytesContext = nil
        }

        private var didOpen = false
        private func opened(_ context: ChannelHandlerContext) {
            guard !didOpen else { return }
            didOpen = true
            state.opened(context)
        }

        func channelActive(context: ChannelHandlerContext) {
            opened(context)
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            state.closed()
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            guard state.ticket != nil else { return }  // refused: nothing is read
            let draining = state.isDraining
            state.apply(context) { $0.bytesRead(buffer.readableBytes, now: .now()) }
            if draining { return }  // thrown away: the answer was written
            context.fireChannelRead(data)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            if state.isDraining { context.read() }
            context.fireChannelReadComplete()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event {
                state.apply(context) { $0.inputClosed() }
            }
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// After the HTTP decoder: sees each request's head and end, and each response's.
    final class Parts: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart
        let state: ConnectionGuard

        init(_ state: ConnectionGuard) { self.state = state }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: state.apply(context) { $0.headRead(now: .now()) }
            case .end: state.apply(context) { $0.endRead(now: .now()) }
            case .body: break
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch unwrapOutboundIn(data) {
            case .head(var response):
                let saysClose = response.headerFields[.connection]?.lowercased() == "close"
                if state.machine?.responseHeadWritten(saysClose: saysClose) == true {
                    response.headerFields[.connection] = "close"
                    context.write(wrapOutboundOut(.head(response)), promise: promise)
                    return
                }
            case .end:
                context.write(data, promise: promise)
                state.apply(context) { $0.responseEnded(now: .now()) }
                return
            case .body: break
            }
            context.write(data, promise: promise)
        }
    }
}
