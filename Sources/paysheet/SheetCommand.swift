import ArgumentParser
import Foundation
import PaysheetModel
import PaysheetScenario
import PaysheetSheet
import PaysheetSheetTokens
import PaysheetToken
import PaysheetTokenFormat

struct SheetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheet",
        abstract: "Run payment-sheet scenarios against the simulated sheet.",
        subcommands: [Test.self, Run.self]
    )

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run scenario files (or folders of them) and report which held; ends with 'N passed, M failed'."
        )

        @Argument(help: "Scenario files, or folders whose *.json files are scenarios.")
        var files: [String]

        @OptionGroup var merchant: MerchantOption

        func run() throws {
            let paths = try expand(files)
            if paths.isEmpty { throw ValidationError("no scenario files found in \(files.joined(separator: " "))") }
            let runner = ScenarioRunner(recordTranscript: false, tokenFactory: try merchant.tokenFactory())
            var passed = 0
            var failed = 0
            for p in paths {
                let outcome: ScenarioOutcome
                do {
                    outcome = runner.run(text: try readInput(p), file: p)
                } catch {
                    outcome = ScenarioOutcome(
                        name: p,
                        file: p,
                        failure: "scenario error: \(p): \(error)",
                        transcript: []
                    )
                }
                if outcome.passed {
                    passed += 1
                    print("PASS \(outcome.name)")
                } else {
                    failed += 1
                    print("FAIL \(outcome.name): \(outcome.failure!)")
                }
            }
            print("\(passed) passed, \(failed) failed")
            if failed > 0 { throw ExitCodes.failed }
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play one scenario and print every step: the events it caused and what the sheet shows after it."
        )

        @Argument(help: "The scenario file.")
        var file: String

        @Flag(help: "Print JSON lines (one object per step) instead of text.")
        var json = false

        @OptionGroup var merchant: MerchantOption

        func run() throws {
            let outcome = ScenarioRunner(recordTranscript: true, tokenFactory: try merchant.tokenFactory())
                .run(text: try readInput(file), file: file)
            if json {
                for e in outcome.transcript { print(e.json.compactText) }
                var end = JSONObject()
                end["scenario"] = .string(outcome.name)
                end["passed"] = .bool(outcome.passed)
                if let f = outcome.failure { end["failure"] = .string(f) }
                print(JSONValue.object(end).compactText)
            } else {
                print("Scenario: \(outcome.name)  (\(file))")
                for e in outcome.transcript { print(TranscriptText.render(e)) }
                print(outcome.passed ? "PASS \(outcome.name)" : "FAIL \(outcome.name): \(outcome.failure!)")
            }
            if !outcome.passed { throw ExitCodes.failed }
        }
    }
}

func expand(_ args: [String]) throws -> [String] {
    var out: [String] = []
    let fm = FileManager.default
    for a in args {
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: a, isDirectory: &isDir), isDir.boolValue {
            let items = (fm.enumerator(atPath: a)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".json") }
                .sorted()
            out += items.map { (a as NSString).appendingPathComponent($0) }
        } else {
            out.append(a)
        }
    }
    return out
}

/// A person-readable rendering of a transcript entry.
enum TranscriptText {
    static func render(_ e: TranscriptEntry) -> String {
        var lines = ["", "── step \(e.step): \(e.input.compactText)"]
        if let t = e.threw { lines.append("   threw    \(t)") }
        if let r = e.returned { lines.append("   returned \(r.compactText)") }
        for ev in e.events { lines.append("   event    \(ev.compactText)") }
        if case .object(let i) = e.input, i["expect"] != nil {
            lines.append(e.failure == nil ? "   ✔ held" : "   ✘ \(e.failure!)")
            return lines.joined(separator: "\n")
        }
        lines.append("   session  \(e.session)")
        lines += sheet(e.sheet).map { "   " + $0 }
        return lines.joined(separator: "\n")
    }

    static func sheet(_ s: JSONValue) -> [String] {
        guard case .object(let o) = s else { return [] }
        guard o["visible"] == .bool(true) else {
            let r = o["result"]?.stringValue.map { " (\($0))" } ?? ""
            let st = o["status"]?.stringValue.map { " — \($0)" } ?? ""
            return ["sheet    not shown\(r)\(st)"]
        }
        var out = ["┌ SIMULATED PAYMENT SHEET (not Apple Pay)"]
        func err(_ m: JSONValue?) -> String {
            guard case .object(let e)? = m?["error"] else { return "" }
            return "  ⚠ \(e["title"]?.stringValue ?? ""): \(e["message"]?.stringValue ?? "")"
        }
        let mods = o["modules"]
        if let c = mods?["card"] {
            out.append("│ CARD      \(c["selected"]?["displayName"]?.stringValue ?? "—")\(err(c))")
        }
        if let sh = mods?["shipping"] {
            let sel = sh["selected"]
            let addr =
                sel?.objectValue.map { c in
                    [c["givenName"]?.stringValue, c["familyName"]?.stringValue].compactMap { $0 }.joined(separator: " ")
                        + ", "
                        + ((c["addressLines"]?.arrayValue ?? []).compactMap(\.stringValue) + [
                            c["locality"]?.stringValue ?? "",
                            c["administrativeArea"]?.stringValue ?? "", c["postalCode"]?.stringValue ?? "",
                        ]).filter { !$0.isEmpty }.joined(separator: ", ")
                } ?? "—"
            out.append("│ SHIPPING  \(addr)\(err(sh))")
        }
        if let m = mods?["method"], case .array(let opts)? = m["options"], !opts.isEmpty {
            let sel = m["selected"]
            out.append("│ METHOD    \(sel?["label"]?.stringValue ?? "—") \(sel?["amount"]?.stringValue ?? "")\(err(m))")
        }
        if let c = mods?["contact"] {
            out.append("│ CONTACT   \(c["email"]?.stringValue ?? "—") · \(c["phone"]?.stringValue ?? "—")\(err(c))")
        }
        if let c = mods?["coupon"], c["code"]?.stringValue != nil || c["error"]?.isNull == false {
            out.append("│ COUPON    \(c["code"]?.stringValue ?? "—")\(err(c))")
        }
        if let sm = mods?["summary"] {
            for i in sm["lineItems"]?.arrayValue ?? [] {
                let amount = i["type"]?.stringValue == "pending" ? "Pending" : (i["amount"]?.stringValue ?? "")
                out.append("│ SUMMARY   \(i["label"]?.stringValue ?? "")  \(amount)")
            }
            if let t = sm["total"] {
                let amount = t["type"]?.stringValue == "pending" ? "Pending" : (t["amount"]?.stringValue ?? "")
                out.append("│ TOTAL     Pay \(t["label"]?.stringValue ?? "")  \(amount)")
            }
        }
        var fp = "│ AUTHORIZE " + (o["canAuthorize"] == .bool(true) ? "[ready]" : "[blocked]")
        if let st = o["status"]?.stringValue { fp += "  status: \(st)" }
        if let w = o["outstanding"]?.stringValue {
            fp += "  waiting for page: \(w) (\(o["secondsLeft"]?.compactText ?? "?")s left)"
        }
        out.append(fp)
        if let p = o["popup"]?.stringValue { out.append("│ POPUP     \(p)") }
        out.append("└")
        return out
    }
}

/// Whom the sheet's tokens are encrypted to.
struct MerchantOption: ParsableArguments {
    @Option(
        name: .customLong("merchant-certificate"),
        help:
            "Encrypt authorized payments' tokens to this payment processing certificate (default: the data folder's sandbox merchant, created on first use)."
    )
    var certificate: String?

    @OptionGroup var data: DataFolderOption

    func tokenFactory() throws -> SandboxTokenFactory {
        do {
            let recipient: TokenRecipient
            if let certificate {
                recipient = try TokenRecipient(certificate: MerchantKey.certificate(file: certificate))
            } else {
                recipient = TokenRecipient(try data.defaultMerchant())
            }
            return SandboxTokenFactory(pki: try data.pki(), recipient: recipient)
        } catch let error as PaymentTokenError {
            throw ValidationError(error.message)
        }
    }
}
