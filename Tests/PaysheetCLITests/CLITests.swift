import Foundation
import Testing

/// The `paysheet` command as a user runs it: the built binary (beside this test bundle), its exit
/// codes, what it prints on standard output and on standard error.
@Suite struct CLITests {
    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    /// The `paysheet` binary `swift test` built beside the test bundle.
    static var binary: URL {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for candidate in [
            dir, dir.deletingLastPathComponent(), dir.deletingLastPathComponent().deletingLastPathComponent(),
        ] {
            let url = candidate.appendingPathComponent("paysheet")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return dir.appendingPathComponent("paysheet")
    }

    static func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) throws -> Run {
        let p = Process()
        p.executableURL = binary
        p.arguments = arguments
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = error
        try p.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(
            status: p.terminationStatus,
            out: String(decoding: out, as: UTF8.self),
            err: String(decoding: err, as: UTF8.self)
        )
    }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("paysheet-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes a version-3 scenario with a valid request and `steps` (JSON) to `dir/file`.
    @discardableResult
    static func writeScenario(named name: String, steps: String, to dir: URL, file: String) throws -> URL {
        let request =
            #"{"countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa"], "merchantCapabilities": ["supports3DS"], "#
            + #""total": {"label": "Shop", "amount": "1.00"}}"#
        let url = dir.appendingPathComponent(file)
        try Data(#"{"name": "\#(name)", "version": 3, "request": \#(request), "steps": \#(steps)}"#.utf8).write(to: url)
        return url
    }

    @Test func theBinaryIsThere() {
        #expect(
            FileManager.default.isExecutableFile(atPath: Self.binary.path),
            "no paysheet binary at \(Self.binary.path)"
        )
    }

    @Test func helpListsTheCommandsAndAnUnknownOneIsAUsageError() throws {
        let help = try Self.run(["--help"])
        #expect(help.status == 0)
        for command in ["serve", "pay", "api-key", "acquirer-sandbox", "sheet", "token", "keys", "contact"] {
            #expect(help.out.contains(command), "--help lists \(command)")
        }
        let unknown = try Self.run(["refund-everything"])
        #expect(unknown.status != 0)
        #expect(unknown.err.contains("refund-everything"))
    }

    /// `paysheet api-key` reads the server's statement deadline as `serve` does
    /// (`PAYSHEET_DATABASE_STATEMENT_TIMEOUT`): a value the server refuses is a usage error naming
    /// it, before any database is opened; one it takes lets the command run.
    @Test func apiKeyReadsTheStatementDeadlineAsTheServerDoes() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data").path
        for refused in ["0", "-1", "soon", "86401"] {
            let run = try Self.run(
                ["api-key", "list", "--data", data],
                environment: ["PAYSHEET_DATABASE_STATEMENT_TIMEOUT": refused]
            )
            #expect(run.status == 2, "\(refused): \(run.err)")
            #expect(run.err.contains("PAYSHEET_DATABASE_STATEMENT_TIMEOUT=\(refused) is not"), "\(run.err)")
            #expect(!FileManager.default.fileExists(atPath: data + "/paysheet.sqlite"))
        }
        let taken = try Self.run(
            ["api-key", "list", "--data", data],
            environment: ["PAYSHEET_DATABASE_STATEMENT_TIMEOUT": "2.5"]
        )
        #expect(taken.status == 0, "\(taken.err)")
        #expect(taken.out.contains("no API keys"))
    }

    @Test func contactValidateExitCodesAndBothFieldVocabularies() throws {
        let good =
            #"{"emailAddress": "jane@example.com", "phoneNumber": "+1 408 555 0100", "givenName": "Jane", "familyName": "Doe"}"#
        for required in ["email,phone", "emailAddress,phoneNumber"] {
            let r = try Self.run(["contact", "validate", "--required", required, "-"], stdin: good)
            #expect(r.status == 0, "\(required): \(r.err)")
            #expect(r.out.contains(#""errors":[]"#), "\(r.out)")
        }
        let missing = try Self.run(
            ["contact", "validate", "--required", "phoneNumber", "-"],
            stdin: #"{"emailAddress": "jane@example.com"}"#
        )
        #expect(missing.status == 1)
        #expect(missing.out.contains(#""contactField":"phoneNumber""#), "\(missing.out)")
        let unknownField = try Self.run(["contact", "validate", "--required", "shoeSize", "-"], stdin: good)
        #expect(unknownField.status == 2)
        #expect(unknownField.err.contains("unknown field shoeSize"))
        let notJSON = try Self.run(["contact", "validate", "-"], stdin: "{")
        #expect(notJSON.status == 2)
        #expect(notJSON.err.contains("is not JSON"))
    }

    @Test func sheetTestNamesEachScenarioAndFailsOnAnUnreadableOne() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.writeScenario(
            named: "constructs",
            steps: #"[{"page": "construct"}, {"expect": {"threw": null}}]"#,
            to: dir,
            file: "a-good.json"
        )
        try Self.writeScenario(
            named: "throws",
            steps: #"[{"page": "construct"}, {"expect": {"threw": "TypeError"}}]"#,
            to: dir,
            file: "b-wrong.json"
        )
        try Data("{ not json".utf8).write(to: dir.appendingPathComponent("c-broken.json"))
        let r = try Self.run(["sheet", "test", dir.path])
        #expect(r.status == 1)
        #expect(r.out.contains("PASS constructs"), "\(r.out)")
        #expect(r.out.contains("FAIL throws:"), "\(r.out)")
        #expect(r.out.contains("FAIL c-broken:"), "\(r.out)")
        #expect(r.out.contains("1 passed, 2 failed"), "\(r.out)")
        let one = try Self.run(["sheet", "test", dir.appendingPathComponent("a-good.json").path])
        #expect(one.status == 0)
        #expect(one.out.contains("1 passed, 0 failed"))
    }

    @Test func sheetRunPrintsTheLabelledSimulationAsJSONLines() throws {
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.writeScenario(
            named: "begin",
            steps:
                #"[{"page": "construct"}, {"page": "begin"}, {"expect": {"events": [{"type": "validatemerchant"}]}}]"#,
            to: dir,
            file: "s.json"
        )
        let text = try Self.run(["sheet", "run", file.path])
        #expect(text.status == 0, "\(text.err)")
        #expect(text.out.contains("SIMULATED PAYMENT SHEET"), "\(text.out)")
        let json = try Self.run(["sheet", "run", "--json", file.path])
        #expect(json.status == 0)
        let lines = json.out.split(separator: "\n")
        #expect(lines.count >= 2)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
        }
        #expect(lines.last?.contains(#""passed":true"#) == true, "\(json.out)")
    }
}
