import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetServer
import Testing

/// Finding 1 of the audit (idle and slow connections took the server down) and finding 16 (a
/// body over the limit from a client that does not wait for `100-continue` never got its 413),
/// performed on loopback against a real `paysheet serve`. Other clients are other loopback
/// addresses (127.0.0.2 …). Each bound below is a limit on waiting, never a timing asserted.
@Suite(.serialized) struct HostileConnectionTests {
    static func server(
        _ configure: @escaping (inout ServerConfiguration.ConnectionLimits) -> Void
    ) async throws
        -> TestServer
    {
        try await TestServer.start { c in
            c.connections.headerTimeout = 30
            c.connections.idleTimeout = 30
            configure(&c.connections)
        }
    }

    func port(_ url: String) -> Int { Int(url.split(separator: ":").last!)! }

    /// `/health`, asked again once when the client's pooled keep-alive connection turns out
    /// closed (at the cap it is the longest idle, and so the one evicted): what HTTP clients do
    /// for an idempotent request.
    func health(_ server: TestServer) async throws -> UInt {
        do {
            return try await server.http.get(url: server.url + "/health").get().status.code
        } catch let error as HTTPClientError where error == .remoteConnectionClosed {
            return try await server.http.get(url: server.url + "/health").get().status.code
        }
    }

    @Test func aClientOverItsCapIsAnswered503AndOthersAreServed() async throws {
        let server = try await Self.server { $0.maxConnectionsPerAddress = 4 }
        defer { Task { await server.stop() } }
        for target in [server.url, server.gatewayURL] {
            // Five connections from one address; which one is the fifth is the server's accept
            // order (its event loops admit them in parallel), so exactly one of them, any, is refused.
            var opened: [RawConnection] = []
            for _ in 0..<5 { opened.append(try await RawConnection.open(from: "127.0.0.2", to: port(target))) }
            var refused: [RawConnection] = []
            let deadline = Date().addingTimeInterval(60)
            while refused.isEmpty, Date() < deadline {
                refused = opened.filter { $0.received.contains("HTTP/1.1 503") }
                if refused.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(refused.count == 1, "\(target): \(opened.map(\.received))")
            let fifth = try #require(refused.first)
            #expect(fifth.received.contains("too_many_connections"))
            #expect(await fifth.closedByServer(within: 60))
            let held = opened.filter { $0 !== fifth }
            #expect(held.count == 4)
            for connection in held { #expect(!connection.serverClosed) }
            for connection in opened { await connection.close() }
        }
        #expect(try await health(server) == 200)
        let order = try await server.createOrder()
        #expect(order["id"]?.stringValue != nil)
        #expect(server.logs.all.contains { $0.contains("too many connections from this address") })
    }

    @Test func idleConnectionsAndSlowHeadsAreClosed() async throws {
        let server = try await Self.server {
            $0.headerTimeout = 1
            $0.idleTimeout = 1
        }
        defer { Task { await server.stop() } }
        // Connected, nothing sent.
        let silent = try await RawConnection.open(from: "127.0.0.3", to: port(server.url))
        // Each bound is a limit on waiting for a real timeout on a real socket (1 s here): a
        // minute, so that a loaded machine only makes it later.
        #expect(await silent.closedByServer(within: 60))
        // A byte every 200 ms: the head is never complete before the header time runs out. (The
        // drip is the client's real pace on a real socket; the head takes 45 s, 45 header times.)
        let slow = try await RawConnection.open(from: "127.0.0.3", to: port(server.url))
        let head = Array(
            "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Padding: \(String(repeating: "a", count: 200))\r\n\r\n".utf8
        )
        var sent = 0
        while sent < head.count - 4, !slow.serverClosed {
            try? await slow.send(bytes: [head[sent]])
            sent += 1
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(slow.serverClosed, "a byte-a-second head was kept open for \(sent) bytes")
        #expect(!slow.received.contains("200 OK"))
        // A keep-alive connection after its answer. (On a loaded machine the header time may run
        // out between connecting and sending: then another connection is tried.)
        var served: RawConnection?
        for _ in 0..<5 where served == nil {
            let keepAlive = try await RawConnection.open(from: "127.0.0.3", to: port(server.url))
            if (try? await keepAlive.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")) != nil,
                await keepAlive.waitFor("200 OK", within: 60)
            {
                served = keepAlive
            }
        }
        let keepAlive = try #require(served)
        #expect(await keepAlive.closedByServer(within: 60))
    }

    @Test func atTheCapANewClientClosesTheLongestIdleConnection() async throws {
        let server = try await Self.server {
            $0.maxConnections = 12
            $0.maxConnectionsPerAddress = 4
        }
        defer { Task { await server.stop() } }
        var held: [RawConnection] = []
        for address in ["127.0.0.4", "127.0.0.5", "127.0.0.6"] {
            for _ in 0..<4 { held.append(try await RawConnection.open(from: address, to: port(server.url))) }
        }
        // HTTPClient's pool may open a connection or two of its own; each new one evicts an idle
        // one — which may be the pool's own idle connection, closed under its next request ("I/O
        // on closed channel", "connection reset by peer"): a client then asks again on a new
        // connection, as browsers do.
        func again<T>(_ request: () async throws -> T) async throws -> T {
            for _ in 0..<3 {
                do { return try await request() } catch is ChannelError, is IOError, is HTTPClientError {
                    continue
                }
            }
            return try await request()
        }
        #expect(try await again { try await health(server) } == 200)
        let order = try await again { try await server.createOrder() }
        #expect(order["id"]?.stringValue != nil)
        #expect(try await waitUntil { held.contains { $0.serverClosed } }, "no idle connection was closed")
    }

    @Test(arguments: ["Connection: close\r\n", ""])
    func aBodyOverTheLimitIsAnsweredToAClientThatWritesBeforeItReads(_ connection: String) async throws {
        // The drain lasts long enough for this process's own client to write 24 MB on a loaded machine.
        let server = try await Self.server { $0.drainTimeout = 20 }
        defer { Task { await server.stop() } }
        // 24 MB: more than loopback's socket buffers hold, so a server that stops reading blocks
        // the writer forever, as Python's urllib was.
        let size = 24 << 20
        let client = try await RawConnection.open(from: "127.0.0.7", to: port(server.url), readsWhileWriting: false)
        try await client.send(
            "POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(size)\r\n\(connection)\r\n"
        )
        #expect(await client.sendCompletes(count: size, within: 60), "the server stopped reading the body")
        await client.startReading()
        #expect(await client.waitFor("HTTP/1.1 413", within: 60), "\(client.received.prefix(200))")
        #expect(client.received.lowercased().contains("connection: close"))
        #expect(await client.closedByServer(within: 60))
        // The server is still there for everyone else.
        #expect(try await health(server) == 200)
    }
}
