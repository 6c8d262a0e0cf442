import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Finding 15 of the audit: `paysheet serve` printed its demo order's client secret in its start-up
/// lines (`paysheet pay … --client-secret pcs_…`), and so into every log that keeps them. Runs the
/// built binary as a user does: serve, the pay command it prints, a merchant's calls with an API
/// key and callers with wrong credentials; no client secret or API key appears in what serve writes.
@Suite(.serialized) struct ServeBannerTests {
    /// What a running process wrote so far (standard output and error together).
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ more: Data) { lock.withLock { data.append(more) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    /// Waits (at most `seconds`, polling) until `condition` holds.
    static func waitUntil(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }

    /// An HTTP call to the server; its status.
    static func status(_ url: String, method: String = "GET", bearer: String? = nil) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let bearer { request.setValue("Bearer " + bearer, forHTTPHeaderField: "Authorization") }
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func serveAndThePayCommandItPrintsShowNoSecret() async throws {
        let dir = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data").path
        // An API key made before the server starts (its own command prints it, once, by design).
        let created = try CLITests.run(["api-key", "create", "--data", data, "--name", "banner-test"])
        #expect(created.status == 0, "\(created.err)")
        let key = try #require(created.out.split(separator: "\n").last.map(String.init))
        #expect(key.hasPrefix("psk_"))

        // serve on a free-looking pair of ports (tried again on others when taken).
        var started: (serve: Process, pipe: Pipe, output: Output, port: Int)?
        for _ in 0..<3 {
            let port = Int.random(in: 41_000...48_000)
            let serve = Process()
            serve.executableURL = CLITests.binary
            serve.arguments = ["serve", "--data", data, "--listen", "127.0.0.1:\(port)"]
            var environment = ProcessInfo.processInfo.environment
            environment["PAYSHEET_SANDBOX_ACQUIRER_LISTEN"] = "127.0.0.1:\(port + 1)"
            serve.environment = environment
            let pipe = Pipe()
            serve.standardOutput = pipe
            serve.standardError = pipe
            let output = Output()
            pipe.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
            try serve.run()
            _ = await Self.waitUntil(120) { output.text.contains("paysheet pay") || !serve.isRunning }
            if serve.isRunning {
                started = (serve, pipe, output, port)
                break
            }
            pipe.fileHandleForReading.readabilityHandler = nil
        }
        let (serve, pipe, output, port) = try #require(started, "serve did not start on three ports")
        defer {
            if serve.isRunning { serve.terminate() }
            serve.waitUntilExit()
            pipe.fileHandleForReading.readabilityHandler = nil
        }
        #expect(output.text.contains("paysheet pay"), "serve printed no pay command: \(output.text)")
        let banner = output.text
        // The printed command pays a demo order (exit 0) without being given any secret.
        let line = try #require(
            banner.split(separator: "\n").first { $0.contains("swift run paysheet pay ") },
            "\(banner)"
        )
        let arguments = line.components(separatedBy: "swift run paysheet ")[1].split(separator: " ").map(String.init)
        let pay = try CLITests.run(arguments + ["--wait", "30"])
        #expect(pay.status == 0, "\(pay.out)\n\(pay.err)")
        #expect(pay.out.contains("paid"), "\(pay.out)")
        // A merchant's calls with the key, and callers with a wrong key and a wrong secret.
        let base = "http://127.0.0.1:\(port)"
        #expect(try await Self.status(base + "/v1/orders", bearer: key) == 200)
        #expect(try await Self.status(base + "/metrics", bearer: key) == 200)
        let wrongKey = "psk_" + String(repeating: "0", count: 43)
        #expect(try await Self.status(base + "/v1/orders", bearer: wrongKey) == 401)
        let wrongSecret = "pcs_" + String(repeating: "0", count: 43)
        #expect([401, 404].contains(try await Self.status(base + "/v1/orders/ord_0", bearer: wrongSecret)))
        serve.terminate()
        serve.waitUntilExit()
        let everything = output.text + pay.out + pay.err
        for marker in ["pcs_", "psk_", key] {
            #expect(!everything.contains(marker), "\(marker) in serve's or pay's output:\n\(everything)")
        }
    }
}
