import Foundation
import Testing
@testable import PaysheetModel
@testable import PaysheetScenario

/// Bad input gets a clear error and never a crash: seeded mutations of the conformance files
/// (bytes flipped, cut, duplicated) go through the JSON parser, the scenario parser and the runner.
@Suite struct RobustnessTests {
    struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
    }

    @Test func mutatedScenariosNeverCrash() throws {
        var rng = LCG(state: 0x5EED)
        let files = ConformanceTests.files
        var failures = 0
        var passes = 0
        for round in 0..<1500 {
            let file = files[rng.next(files.count)]
            var bytes = Array(try Data(contentsOf: ConformanceTests.root.appendingPathComponent(file)))
            for _ in 0...rng.next(4) {
                let i = rng.next(bytes.count)
                switch rng.next(4) {
                case 0: bytes[i] = UInt8(rng.next(256))
                case 1: bytes.removeSubrange(i..<min(bytes.count, i + rng.next(40)))
                case 2: bytes.insert(contentsOf: bytes[i..<min(bytes.count, i + rng.next(40))], at: i)
                default: bytes[i] = Array("{}[]\",:0-9.e\\ntfn".utf8)[rng.next(17)]
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let outcome = ScenarioRunner(recordTranscript: round % 10 == 0).run(text: text, file: file)
            if outcome.passed {
                passes += 1
            } else {
                failures += 1
                #expect(!(outcome.failure ?? "").isEmpty)
            }
        }
        // Most mutations must be caught (broken JSON, unknown keys, failed expectations).
        #expect(failures > 1000)
        #expect(passes + failures == 1500)
    }
}
