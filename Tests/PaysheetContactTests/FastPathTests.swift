import PaysheetModel
@testable import PaysheetContact
import Testing

/// The byte-level fast paths give the same answers as the general (Unicode) code they shortcut.
@Suite struct FastPathTests {
    /// Deterministic pseudo-random ASCII strings built from the pieces emails are made of.
    static func emails(count: Int) -> [String] {
        let pieces = [
            "a", "B", "jane", ".", "..", "@", "@@", "-", "_", "+", "x", "xn--", "EXAMPLE", "com", "c", "1", " ", "\t",
            "(", "é", "9", "co.uk", "Q",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(pieces.count))
        }
        var out = [
            "jane@example.com", "Jane@Example.COM", " jane@example.com\n", "a@b", "a@b.c", "a@b.cc", "a@-b.com",
            "a@b-.com", "a..b@c.de",
            ".a@b.de", "a.@b.de", "a@b..de", "a@xn--p1ai", "a@b.xn--p1ai", "a@b.c0m",
            String(repeating: "a", count: 65) + "@b.de",
            "a@" + String(repeating: "b", count: 64) + ".de", "@b.de", "a@", "a@@b.de", "a b@c.de", "a@b.d e",
        ]
        for _ in 0..<count {
            var s = ""
            for _ in 0..<(3 + next() % 6) { s += pieces[next()] }
            out.append(s)
        }
        return out
    }

    @Test func emailFastPathAgreesWithTheUnicodeRules() {
        var checked = 0
        for e in Self.emails(count: 20_000) {
            let general = EmailAddresses.unicodeNormalize(e)
            let fast = EmailAddresses.normalize(e)
            #expect(
                fast == general,
                "\(e.debugDescription): fast \(fast.debugDescription), general \(general.debugDescription)"
            )
            if general != nil { checked += 1 }
        }
        #expect(checked > 50)  // some of the generated addresses are valid, so both branches are compared
    }

    @Test func patternsCompileToProgramsThatAgreeOnEdgeCases() throws {
        let cases: [(String, String, Bool)] = [
            ("\\d{5}(?:[ -]\\d{4})?", "95014", true), ("\\d{5}(?:[ -]\\d{4})?", "95014-2083", true),
            ("\\d{5}(?:[ -]\\d{4})?", "95014-208", false), ("(?:a|ab)c", "abc", true), ("a{2,}b", "aaaab", true),
            ("a{2,}b", "ab", false), ("[^0-9]+", "abc", true), ("[^0-9]+", "a1c", false), ("^\\d+$", "123", true),
            ("x\\b", "x", true), ("(?:\\d{3}){1,2}", "123456", true), ("(?:\\d{3}){1,2}", "1234", false),
            (".*z", "abz", true),
        ]
        for (pattern, text, expected) in cases {
            #expect(try Pattern(pattern).matches(text) == expected, "\(pattern) ~ \(text)")
        }
        #expect(try Pattern("\\d{2}").matchesPrefix("123"))
        #expect(throws: Pattern.SyntaxError.self) { try Pattern("(?:a?)*") }
    }

    static func strings(from pieces: [String], count: Int, seed: UInt64) -> [String] {
        var state = seed
        func next() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(pieces.count))
        }
        return (0..<count).map { _ in (0..<(1 + next() % 5)).map { _ in pieces[next()] }.joined() }
    }

    @Test func katakanaFastPathAgreesWithCompatibilityMapping() {
        let pieces = [
            "た", "ろう", "ヤマダ", "ー", "・", " ", "  ", "ヴ", "ヾ", "ゔ", "ァ", "ヺ", "ゖ", "ｶﾞ", "\u{3000}", "a", "゛", "か\u{3099}",
            "\t",
        ]
        for text in Self.strings(from: pieces, count: 5_000, seed: 7) {
            #expect(
                PhoneticNames.katakana(text) == PhoneticNames.compatibilityKatakana(text),
                "\(text.debugDescription)"
            )
        }
    }

    @Test func narrowFastPathAgreesWithTheUnicodePath() {
        let pieces = ["SW1A", " ", "  ", "2AA", "-", "\t", "95014", "k1a", "0", "〒", "１２３"]
        for text in Self.strings(from: pieces, count: 5_000, seed: 11) {
            #expect(PostalAddresses.narrow(text) == PostalAddresses.narrowUnicode(text), "\(text.debugDescription)")
        }
    }

    @Test func foldFastPathAgreesWithFoundationFolding() {
        let pieces = ["東京", "都", "千代田区", "Tokyo", "-", " ", ".", "1", "丸の内", "Ōsaka", "ＡＢ", "北京", "㐀"]
        for text in Self.strings(from: pieces, count: 5_000, seed: 13) {
            #expect(
                TextFolding.fold(text) == TextFolding.foldUnicode(text) || text.utf8.allSatisfy { $0 < 0x80 },
                "\(text.debugDescription)"
            )
        }
    }
}
