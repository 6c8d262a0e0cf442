import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A plain TCP client for attacks on loopback: it connects from a chosen local address
/// (127.0.0.2, 127.0.0.3, … are other clients to the server), writes bytes as it is told, and
/// collects what comes back until the server closes.
final class RawConnection: Sendable {
    let channel: any Channel
    private let collected: Collected

    private final class Collected: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let bytes = NIOLockedValueBox([UInt8]())
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            bytes.withLockedValue { $0.append(contentsOf: buffer.readableBytesView) }
        }

        /// Whether the server closed its side (all it sent has been read); the client may still write.
        let inputClosed = NIOLockedValueBox(false)

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event { inputClosed.withLockedValue { $0 = true } }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }

    private init(channel: any Channel, collected: Collected) {
        self.channel = channel
        self.collected = collected
    }

    /// Connects from `source` (a loopback address) to `port` on 127.0.0.1.
    /// `readsWhileWriting: false` reads nothing until ``startReading()``: a client that sends its
    /// whole request before it reads the answer (Python's urllib, many gateways).
    static func open(from source: String, to port: Int, readsWhileWriting: Bool = true) async throws -> RawConnection {
        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.next()
        let collected = Collected()
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelOption(ChannelOptions.autoRead, value: readsWhileWriting)
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(collected)
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawConnection(channel: channel, collected: collected)
    }

    /// Writes `text`'s bytes.
    func send(_ text: String) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(string: text)).get()
    }

    /// Writes `bytes`.
    func send(bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).get()
    }

    /// Writes `count` bytes in chunks and reports whether the writes succeeded within `seconds`
    /// (they do not while the server reads nothing and the socket buffers are full, nor when it
    /// closes the connection instead).
    func sendCompletes(count: Int, within seconds: Double) async -> Bool {
        let done = NIOLockedValueBox(false)
        let chunk = channel.allocator.buffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var left = count
        var last: EventLoopFuture<Void>?
        while left > 0 {
            var piece = chunk
            if left < piece.readableBytes { piece = piece.getSlice(at: 0, length: left)! }
            left -= piece.readableBytes
            last = channel.writeAndFlush(piece)
        }
        // Only writes that succeed count: a server that closes instead of reading the body (and
        // so loses the answer it wrote) has not let the client finish.
        last?.whenSuccess { done.withLockedValue { $0 = true } }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if done.withLockedValue({ $0 }) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return done.withLockedValue { $0 }
    }

    /// Starts reading (after ``open(from:to:readsWhileWriting:)`` with `false`).
    /// (A channel the server closed meanwhile has read what it sent: nothing to start.)
    func startReading() async {
        guard (try? await channel.setOption(ChannelOptions.autoRead, value: true).get()) != nil else { return }
        channel.read()
    }

    /// Whether the server has closed the connection (or its side of it).
    var serverClosed: Bool { !channel.isActive || collected.inputClosed.withLockedValue { $0 } }

    /// What the server sent so far, as text.
    var received: String { String(decoding: collected.bytes.withLockedValue { $0 }, as: UTF8.self) }

    /// Whether the server closed the connection within `seconds` (polled: a bound, not a timing).
    func closedByServer(within seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        func closed() -> Bool { serverClosed }
        while Date() < deadline {
            if closed() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return closed()
    }

    /// Waits (at most `seconds`) until the server's answer contains `text`; not past the server
    /// closing the connection without it (nothing more comes).
    func waitFor(_ text: String, within seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if received.contains(text) { return true }
            if serverClosed { return received.contains(text) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return received.contains(text)
    }

    func close() async {
        try? await channel.close()
    }
}
