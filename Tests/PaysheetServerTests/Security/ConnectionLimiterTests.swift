import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import PaysheetServer

/// The connection caps without sockets: embedded channels stand for connections.
@Suite struct ConnectionLimiterTests {
    let now = NIODeadline.uptimeNanoseconds(1_000_000_000)

    func limiter(total: Int, perAddress: Int) -> ConnectionLimiter {
        ConnectionLimiter(limits: .init(total: total, perAddress: perAddress), name: "test", logger: Logger(label: "t"))
    }

    @Test func oneAddressGetsItsCapAndNoMore() throws {
        let limiter = limiter(total: 100, perAddress: 2)
        let a = EmbeddedChannel()
        let b = EmbeddedChannel()
        let first = try limiter.admit(a, address: "10.0.0.1", now: now).get()
        _ = try limiter.admit(b, address: "10.0.0.1", now: now).get()
        #expect(throws: ConnectionLimiter.RefusalError(refusal: .perAddress)) {
            try limiter.admit(EmbeddedChannel(), address: "10.0.0.1", now: now).get()
        }
        _ = try limiter.admit(EmbeddedChannel(), address: "10.0.0.2", now: now).get()
        limiter.release(first)
        _ = try limiter.admit(EmbeddedChannel(), address: "10.0.0.1", now: now).get()
        #expect(limiter.openCount == 3)
    }

    @Test func atTheTotalCapTheLongestWaitingIdleConnectionMakesRoom() throws {
        let limiter = limiter(total: 3, perAddress: 3)
        let channels = (0..<3).map { _ in EmbeddedChannel() }
        for channel in channels { try channel.connect(to: try SocketAddress(ipAddress: "192.0.2.1", port: 443)).wait() }
        var tickets: [ConnectionLimiter.Ticket] = []
        for (index, channel) in channels.enumerated() {
            tickets.append(
                try limiter.admit(channel, address: "10.0.0.\(index)", now: now + .seconds(Int64(index))).get()
            )
        }
        // The oldest is in a request: not evictable. The second oldest goes.
        limiter.update(tickets[0], evictable: false, now: now + .seconds(5))
        _ = try limiter.admit(EmbeddedChannel(), address: "10.0.0.9", now: now + .seconds(6)).get()
        #expect(channels[0].isActive)
        #expect(!channels[1].isActive)
        #expect(channels[2].isActive)
        #expect(limiter.openCount == 3)
        #expect(limiter.evictedCount == 1)
        // Its own close later changes nothing.
        limiter.release(tickets[1])
        #expect(limiter.openCount == 3)
    }

    @Test func whenEveryConnectionIsInARequestANewOneIsRefused() throws {
        let limiter = limiter(total: 2, perAddress: 2)
        for index in 0..<2 {
            let ticket = try limiter.admit(EmbeddedChannel(), address: "10.0.0.\(index)", now: now).get()
            limiter.update(ticket, evictable: false, now: now)
        }
        #expect(throws: ConnectionLimiter.RefusalError(refusal: .full)) {
            try limiter.admit(EmbeddedChannel(), address: "10.0.0.5", now: now).get()
        }
    }

    @Test func theCapIsLoweredToWhatTheFileLimitAllowsAndBadSettingsAreRefused() throws {
        var limits = ServerConfiguration.ConnectionLimits()
        limits.maxConnections = 10_000
        let settings = try ConnectionSettings(limits, fileLimit: 1024)
        #expect(settings.limits.total == 1024 - ConnectionSettings.reservedFiles)
        limits.headerTimeout = 0
        #expect(throws: ConfigurationError.self) { try ConnectionSettings(limits, fileLimit: 1024) }
        var environment = ServerConfiguration()
        #expect(throws: ConfigurationError.self) {
            try environment.apply(environment: ["PAYSHEET_MAX_CONNECTIONS": "-3"])
        }
        try environment.apply(environment: [
            "PAYSHEET_HEADER_TIMEOUT": "2.5", "PAYSHEET_MAX_CONNECTIONS_PER_ADDRESS": "7",
        ])
        #expect(environment.connections.headerTimeout == 2.5)
        #expect(environment.connections.maxConnectionsPerAddress == 7)
    }
}
