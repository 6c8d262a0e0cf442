import Foundation
import Testing

/// `paysheet sandbox token-event` as a user runs it against a running `paysheet serve`: its bad
/// options (exit 2), an event sent and answered by the server (exit 0), one made without being sent,
/// and a server that cannot be reached (exit 1).
@Suite(.serialized) struct SandboxCommandTests {
    @Test func usageErrorsExitTwo() throws {
        for arguments in [
            ["--server", "http://127.0.0.1:9", "--token", "SBXMT1", "--event", "exploded"],
            ["--server", "http://127.0.0.1:9", "--token", "SBXMT1", "--event", "deleted", "--reason", "merchant"],
            ["--server", "ftp://127.0.0.1:9", "--token", "SBXMT1", "--event", "deleted"],
        ] {
            let run = try CLITests.run(["sandbox", "token-event"] + arguments)
            #expect(
                run.status == 2 && run.err.contains("paysheet sandbox token-event: --"),
                "\(arguments): \(run.status) \(run.err)"
            )
        }
        // A missing option is the argument parser's usage error.
        #expect(try CLITests.run(["sandbox", "token-event", "--token", "SBXMT1", "--event", "deleted"]).status != 0)
        let help = try CLITests.run(["sandbox", "token-event", "--help"])
        #expect(help.status == 0 && help.out.contains("notification/merchantToken"))
        // Nothing listens on port 9: the sandbox could not be asked.
        let down = try CLITests.run([
            "sandbox", "token-event", "--server", "http://127.0.0.1:9", "--token", "SBXMT1", "--event", "deleted",
        ])
        #expect(down.status == 1 && down.err.contains("could not be asked"), "\(down.err)")
    }

    @Test func anEventIsSentToTheServerWhichAnswersIt() async throws {
        let dir = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data").path
        var started: (serve: Process, pipe: Pipe, output: ServeBannerTests.Output, port: Int)?
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
            let output = ServeBannerTests.Output()
            pipe.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
            try serve.run()
            _ = await ServeBannerTests.waitUntil(120) { output.text.contains("paysheet pay") || !serve.isRunning }
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
        let server = "http://127.0.0.1:\(port)"
        // A token no agreement has: made, sent, confirmed by the server, answered 200 (as Apple asks).
        let token = "SBXMT" + String(repeating: "7", count: 27)
        let sent = try CLITests.run([
            "sandbox", "token-event", "--server", server, "--token", token, "--event", "deleted", "--reason", "issuer",
        ])
        #expect(sent.status == 0, "\(sent.out)\n\(sent.err)\n\(output.text)")
        #expect(sent.out.contains("(UNLINK, ISSUER)"), "\(sent.out)")
        #expect(sent.out.contains("GET \(server)/v1/merchant-token-events/notification/merchantToken/SBXEV"))
        #expect(sent.out.contains("HTTP 200") && sent.out.contains("unknown_token"), "\(sent.out)")
        // Made but not sent: its notification is printed for later.
        let kept = try CLITests.run([
            "sandbox", "token-event", "--server", server, "--token", token, "--event", "updated", "--card-suffix",
            "5678", "--no-send",
        ])
        #expect(
            kept.status == 0 && kept.out.contains("METADATA_UPDATE") && kept.out.contains("not sent"),
            "\(kept.out)"
        )
        // The token's identifier is in no line the server wrote.
        #expect(!output.text.contains(token))
    }
}
