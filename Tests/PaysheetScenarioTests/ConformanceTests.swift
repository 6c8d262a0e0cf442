import Foundation
import Testing
@testable import PaysheetModel
@testable import PaysheetScenario

/// Runs every scenario of `Conformance/` (the same files CI runs through `paysheet sheet test`).
@Suite struct ConformanceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Conformance")

    static var files: [String] {
        let e = FileManager.default.enumerator(atPath: root.path)
        return ((e?.allObjects as? [String]) ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    @Test func theSuiteIsThere() {
        #expect(Self.files.count >= 140)
    }

    @Test(arguments: files)
    func scenario(_ file: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        let outcome = ScenarioRunner(recordTranscript: false).run(text: text, file: file)
        #expect(outcome.passed, "\(outcome.failure ?? "")")
    }
}

@Suite struct ScenarioErrorTests {
    func failure(_ text: String) -> String {
        ScenarioRunner().run(text: text, file: "s.json").failure ?? "passed"
    }

    @Test func brokenJSONNamesTheFileAndPlace() {
        #expect(
            failure("{\"name\": \"x\",\n \"version\": }")
                == "scenario error: s.json: broken JSON at line 2, column 13: unexpected character '}'"
        )
    }

    @Test func aScenarioThatCannotRunIsNamedAsTheOthersAre() {
        let runner = ScenarioRunner()
        // Its name when the file is JSON with one; else the file's name without folder and extension.
        #expect(
            runner.run(
                text: #"{"name": "A99 broken steps", "version": 3, "request": {}, "steps": [{"user": "dance"}]}"#,
                file: "Conformance/x/A99.json"
            ).name == "A99 broken steps"
        )
        #expect(runner.run(text: "{\"name\": ", file: "Conformance/x/A98-bad.json").name == "A98-bad")
    }

    @Test func unknownStepAndKeysNameStepAndField() {
        let base = #"{"name": "x", "version": 3, "request": {}, "steps": [STEPS]}"#
        #expect(
            failure(base.replacingOccurrences(of: "STEPS", with: #"{"page": "begin"}, {"user": "dance"}"#))
                == #"scenario error: s.json: step 2: field "user": unknown user action "dance""#
        )
        #expect(
            failure(base.replacingOccurrences(of: "STEPS", with: #"{"page": "begin", "colour": 1}"#)).contains(
                #"step 1: field "colour": unknown key"#
            )
        )
        #expect(
            failure(base.replacingOccurrences(of: "STEPS", with: #"{"expect": {"sheet": {"colour": 1}}}"#)).contains(
                #"field "expect.sheet.colour""#
            )
        )
        #expect(
            failure(base.replacingOccurrences(of: "STEPS", with: #"{"wait": 1, "expect": {"paid": true}}"#)).contains(
                "exactly one of"
            )
        )
        #expect(
            failure(#"{"name": "x", "version": 3, "request": {}, "steps": [], "extra": 1}"#).contains(
                #"field "extra": unknown key"#
            )
        )
    }

    @Test func aFailedExpectationSaysStepExpectedAndActual() {
        let text =
            #"{"name": "x", "version": 3, "request": {"countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa"], "merchantCapabilities": ["supports3DS"], "total": {"label": "L", "amount": "1.00"}}, "steps": [{"page": "begin"}, {"expect": {"session": "completed"}}]}"#
        #expect(failure(text) == "step 2: session: expected completed, found active")
    }

    @Test func matchers() {
        #expect(Matcher.mismatch(expected: ["a": ["$absent": true]], actual: ["a": ""]) == nil)
        #expect(Matcher.mismatch(expected: ["a": ["$absent": true]], actual: ["b": 1]) == nil)
        #expect(Matcher.mismatch(expected: ["a": ["$present": true]], actual: ["a": .null]) != nil)
        #expect(Matcher.mismatch(expected: [1, 2], actual: [1]) != nil)
        #expect(Matcher.mismatch(expected: ["a": 1], actual: ["a": 1, "b": 2]) == nil)
        #expect(Matcher.mismatch(expected: ["a": 1], actual: ["a": 2]) == "a: expected 1, found 2")
    }
}
