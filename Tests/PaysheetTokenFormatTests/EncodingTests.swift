import PaysheetModel
import Foundation
import Testing
@testable import PaysheetTokenFormat

/// Base64 and hexadecimal, checked against Foundation's implementations (not ours) on seeded random
/// bytes of every length up to 64, and against malformed text.
@Suite struct EncodingTests {
    /// Deterministic bytes (a linear congruential generator), so that a failure can be replayed.
    static func bytes(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    @Test func base64AgreesWithFoundation() {
        for count in 0...64 {
            for seed in 0..<4 {
                let input = Self.bytes(count: count, seed: UInt64(count * 10 + seed))
                let ours = Base64.encode(input)
                #expect(ours == Data(input).base64EncodedString(), "encode \(count) bytes")
                #expect(Base64.decode(ours) == input, "round trip \(count) bytes")
                #expect(Base64.decode(Data(input).base64EncodedString()) == input)
            }
        }
    }

    /// Stricter than Foundation on Linux, which accepts some of these (a token's Base64 is always padded).
    @Test func base64RefusesWhatIsNotPaddedBase64() {
        for text in [
            "A", "AB", "ABC", "AB=", "A===", "AB=C", "====", "AB C", "AB\nCD==", "AB-_", "QUJD\u{e9}", "QUJDRA",
            "QUJDRA=",
        ] {
            #expect(Base64.decode(text) == nil, "\(text.debugDescription)")
        }
        #expect(Base64.decode("") == [])
        #expect(Base64.decode("QUJDRA==") == Array("ABCD".utf8))
    }

    @Test func hexRoundTripsAndAcceptsEitherCase() {
        for count in 0...40 {
            let input = Self.bytes(count: count, seed: UInt64(count))
            let text = Hex.encode(input)
            #expect(text == input.map { String(format: "%02x", $0) }.joined(), "encode \(count) bytes")
            #expect(Hex.decode(text) == input)
            #expect(Hex.decode(text.uppercased()) == input)
        }
        for text in ["0", "abc", "0g", "zz", "0x00", " 00", "00 ", "é0"] {
            #expect(Hex.decode(text) == nil, "\(text.debugDescription)")
        }
    }
}
