import Foundation
import Testing

/// Issue 37: a newcomer runs `paysheet pay` from another folder than the server's (so with another
/// sandbox CA), or uses an API key made with another data folder. The command says what went
/// wrong and what to pass, and exits non-zero; no secret appears in what it prints.
@Suite(.serialized) struct MismatchedPartsTests {
    /// `paysheet` with `arguments`, run in `folder` (its default data folder is `folder/.paysheet`).
    static func run(_ arguments: [String], in folder: URL) async throws -> CLITests.Run {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["PAYSHEET_DATA"] = nil
        process.environment = environment
        let output = Pipe()
        let error = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Both pipes read at once: a full pipe would stop the process.
        let errorData = Task.detached { error.fileHandleForReading.readDataToEndOfFile() }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = await errorData.value
        process.waitUntilExit()
        return CLITests.Run(
            status: process.terminationStatus,
            out: String(decoding: out, as: UTF8.self),
            err: String(decoding: err, as: UTF8.self)
        )
    }

    /// A server started in `folder` (its data folder `folder/.paysheet`); its base URL, once it answers.
    static func serve(in folder: URL) async throws -> (process: Process, pipe: Pipe, url: String) {
        for _ in 0..<3 {
            let port = Int.random(in: 41_000...48_000)
            let serve = Process()
            serve.executableURL = CLITests.binary
            serve.arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--no-demo-order"]
            serve.currentDirectoryURL = folder
            var environment = ProcessInfo.processInfo.environment
            environment["PAYSHEET_DATA"] = nil
            environment["PAYSHEET_SANDBOX_ACQUIRER_LISTEN"] = "127.0.0.1:\(port + 1)"
            serve.environment = environment
            let pipe = Pipe()
            serve.standardOutput = pipe
            serve.standardError = pipe
            let output = ServeBannerTests.Output()
            pipe.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
            try serve.run()
            _ = await ServeBannerTests.waitUntil(120) {
                output.text.contains("Server started and listening") || !serve.isRunning
            }
            if serve.isRunning { return (serve, pipe, "http://127.0.0.1:\(port)") }
            pipe.fileHandleForReading.readabilityHandler = nil
        }
        throw CocoaError(
            .featureUnsupported,
            userInfo: [NSLocalizedDescriptionKey: "serve did not start on three ports"]
        )
    }

    @Test func payFromAnotherFolderSaysWhichDataFolderToPass() async throws {
        let root = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let serverFolder = root.appendingPathComponent("shop")
        let otherFolder = root.appendingPathComponent("elsewhere")
        for folder in [serverFolder, otherFolder] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let serverData = serverFolder.appendingPathComponent(".paysheet").path
        let otherData = otherFolder.appendingPathComponent(".paysheet").path
        let server = try await Self.serve(in: serverFolder)
        defer {
            server.process.terminate()
            server.process.waitUntilExit()
            server.pipe.fileHandleForReading.readabilityHandler = nil
        }

        // From another folder: another sandbox CA signs the token; the server refuses it.
        let pay = try await Self.run(["pay", "--server", server.url, "--wait", "5"], in: otherFolder)
        #expect(pay.status == 1, "\(pay.out)\n\(pay.err)")
        #expect(pay.out.contains("sheet: payment not completed"), "\(pay.out)")
        #expect(pay.err.contains("paysheet pay: authorize refused (token_chain): "), "\(pay.err)")
        #expect(pay.err.contains("run `paysheet pay` with --data \(serverData) "), "\(pay.err)")
        #expect(pay.err.contains("the sandbox CA of the data folder \(serverData)"), "\(pay.err)")
        #expect(!pay.err.contains(otherData), "the client's own folder is not the one to pass: \(pay.err)")

        // With the server's data folder, from the same other folder: paid.
        let fixed = try await Self.run(
            ["pay", "--server", server.url, "--data", serverData, "--wait", "30"],
            in: otherFolder
        )
        #expect(fixed.status == 0, "\(fixed.out)\n\(fixed.err)")
        #expect(!fixed.err.contains("refused"), "\(fixed.err)")

        // An API key made with another data folder is in another database: the 401 says which is the server's.
        let created = try await Self.run(["api-key", "create", "--name", "elsewhere"], in: otherFolder)
        #expect(created.status == 0, "\(created.err)")
        let key = try #require(created.out.split(separator: "\n").last.map(String.init))
        #expect(key.hasPrefix("psk_"))
        let withKey = try await Self.run(
            ["pay", "--server", server.url, "--order", "ord_0", "--client-secret", key],
            in: otherFolder
        )
        #expect(withKey.status == 1, "\(withKey.out)\n\(withKey.err)")
        #expect(withKey.err.contains("HTTP 401 the API key is not valid here (unknown or revoked)"), "\(withKey.err)")
        #expect(withKey.err.contains("make one with `paysheet api-key create --data \(serverData)`"), "\(withKey.err)")
        #expect(withKey.err.contains("sqlite:\(serverData)/paysheet.sqlite"), "\(withKey.err)")

        // No secret in anything the commands printed: not the key, no client secret.
        for output in [pay.out, pay.err, fixed.out, fixed.err, withKey.out, withKey.err] {
            #expect(!output.contains(key) && !output.contains("pcs_"), "a secret was printed:\n\(output)")
        }
    }
}
