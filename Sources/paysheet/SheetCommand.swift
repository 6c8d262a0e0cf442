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
            for path in paths {
                let outcome: ScenarioOutcome
                do {
                    outcome = runner.run(text: try readInput(path), file: path)
                } catch {
                    outcome = ScenarioOutcome(
                        name: path,
                        file: path,
                        failure: "scenario error: \(path): \(error)",
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
                for entry in outcome.transcript { print(entry.json.compactText) }
                var end = JSONObject()
                end["scenario"] = .string(outcome.name)
                end["passed"] = .bool(outcome.passed)
                if let failure = outcome.failure { end["failure"] = .string(failure) }
                print(JSONValue.object(end).compactText)
            } else {
                print("Scenario: \(outcome.name)  (\(file))")
                for entry in outcome.transcript { print(TranscriptText.render(entry)) }
                print(outcome.passed ? "PASS \(outcome.name)" : "FAIL \(outcome.name): \(outcome.failure!)")
            }
            if !outcome.passed { throw ExitCodes.failed }
        }
    }
}

func expand(_ args: [String]) throws -> [String] {
    var out: [String] = []
    let files = FileManager.default
    for argument in args {
        var isDir: ObjCBool = false
        if files.fileExists(atPath: argument, isDirectory: &isDir), isDir.boolValue {
            let items = (files.enumerator(atPath: argument)?.allObjects as? [String] ?? []).filter {
                $0.hasSuffix(".json")
            }
            .sorted()
            out += items.map { (argument as NSString).appendingPathComponent($0) }
        } else {
            out.append(argument)
        }
    }
    return out
}

/// A person-readable rendering of a transcript entry.
enum TranscriptText {
    static func render(_ entry: TranscriptEntry) -> String {
        var lines = ["", "── step \(entry.step): \(entry.input.compactText)"]
        if let threw = entry.threw { lines.append("   threw    \(threw)") }
        if let returned = entry.returned { lines.append("   returned \(returned.compactText)") }
        for event in entry.events { lines.append("   event    \(event.compactText)") }
        if case .object(let input) = entry.input, input["expect"] != nil {
            lines.append(entry.failure == nil ? "   ✔ held" : "   ✘ \(entry.failure!)")
            return lines.joined(separator: "\n")
        }
        lines.append("   session  \(entry.session)")
        lines += sheet(entry.sheet).map { "   " + $0 }
        return lines.joined(separator: "\n")
    }

    static func sheet(_ json: JSONValue) -> [String] {
        guard case .object(let members) = json else { return [] }
        guard members["visible"] == .bool(true) else {
            let result = members["result"]?.stringValue.map { " (\($0))" } ?? ""
            let status = members["status"]?.stringValue.map { " — \($0)" } ?? ""
            return ["sheet    not shown\(result)\(status)"]
        }
        var out = ["┌ SIMULATED PAYMENT SHEET (not Apple Pay)"]
        func errorText(_ module: JSONValue?) -> String {
            guard case .object(let error)? = module?["error"] else { return "" }
            return "  ⚠ \(error["title"]?.stringValue ?? ""): \(error["message"]?.stringValue ?? "")"
        }
        let modules = members["modules"]
        if let card = modules?["card"] {
            out.append("│ CARD      \(card["selected"]?["displayName"]?.stringValue ?? "—")\(errorText(card))")
        }
        if let shipping = modules?["shipping"] {
            let selected = shipping["selected"]
            let address =
                selected?.objectValue.map { contact in
                    [contact["givenName"]?.stringValue, contact["familyName"]?.stringValue].compactMap { $0 }.joined(
                        separator: " "
                    )
                        + ", "
                        + ((contact["addressLines"]?.arrayValue ?? []).compactMap(\.stringValue) + [
                            contact["locality"]?.stringValue ?? "",
                            contact["administrativeArea"]?.stringValue ?? "", contact["postalCode"]?.stringValue ?? "",
                        ]).filter { !$0.isEmpty }.joined(separator: ", ")
                } ?? "—"
            out.append("│ SHIPPING  \(address)\(errorText(shipping))")
        }
        if let method = modules?["method"], case .array(let options)? = method["options"], !options.isEmpty {
            let selected = method["selected"]
            out.append(
                "│ METHOD    \(selected?["label"]?.stringValue ?? "—") \(selected?["amount"]?.stringValue ?? "")\(errorText(method))"
            )
        }
        if let contact = modules?["contact"] {
            out.append(
                "│ CONTACT   \(contact["email"]?.stringValue ?? "—") · \(contact["phone"]?.stringValue ?? "—")\(errorText(contact))"
            )
        }
        if let coupon = modules?["coupon"], coupon["code"]?.stringValue != nil || coupon["error"]?.isNull == false {
            out.append("│ COUPON    \(coupon["code"]?.stringValue ?? "—")\(errorText(coupon))")
        }
        if let summary = modules?["summary"] {
            for item in summary["lineItems"]?.arrayValue ?? [] {
                let amount = item["type"]?.stringValue == "pending" ? "Pending" : (item["amount"]?.stringValue ?? "")
                out.append("│ SUMMARY   \(item["label"]?.stringValue ?? "")  \(amount)")
            }
            if let total = summary["total"] {
                let amount = total["type"]?.stringValue == "pending" ? "Pending" : (total["amount"]?.stringValue ?? "")
                out.append("│ TOTAL     Pay \(total["label"]?.stringValue ?? "")  \(amount)")
            }
        }
        var footer = "│ AUTHORIZE " + (members["canAuthorize"] == .bool(true) ? "[ready]" : "[blocked]")
        if let status = members["status"]?.stringValue { footer += "  status: \(status)" }
        if let outstanding = members["outstanding"]?.stringValue {
            footer += "  waiting for page: \(outstanding) (\(members["secondsLeft"]?.compactText ?? "?")s left)"
        }
        out.append(footer)
        if let popup = members["popup"]?.stringValue { out.append("│ POPUP     \(popup)") }
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
