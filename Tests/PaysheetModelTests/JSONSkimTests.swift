import Testing

@testable import PaysheetModel

/// The skim against the parser it stands in for: wherever the skim answers, the parser accepts
/// the same document and builds the same tree; and the skim answers for the plain documents it
/// is for (else it would only ever fall back, untested).
@Suite struct JSONSkimTests {
    /// The skim's reading as a ``JSONValue``, for comparison with the parser's.
    static func tree(_ skim: JSONSkim, _ value: JSONSkim.Value) -> JSONValue {
        switch value {
        case .string(let range): return .string(skim.text(range))
        case .number(let range): return .number(skim.text(range))
        case .object(let object):
            return .object(JSONObject(object.members.map { (skim.text($0.key), tree(skim, $0.value)) }))
        }
    }

    /// Both readings of `text`: where the skim answers, the parser's tree is the skim's.
    /// Returns whether the skim answered.
    @discardableResult
    static func agree(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let bytes = Array(text.utf8)
        guard let skim = JSONSkim.read(bytes) else { return false }
        let parsed = try? JSONParser.parse(bytes)
        #expect(parsed == tree(skim, skim.root), "\(text)", sourceLocation: sourceLocation)
        if case .object(let object) = skim.root, let parsedObject = parsed?.objectValue {
            #expect(object.members.map { skim.text($0.key) } == parsedObject.keys, sourceLocation: sourceLocation)
        }
        return true
    }

    @Test func plainDocumentsAreReadAsTheParserReadsThem() {
        let plain = [
            #"{}"#,
            #"{"a":"b"}"#,
            " \n\t{ \"version\" : \"EC_v1\" , \"header\" : { \"k\" : \"v\" } } \r\n",
            #"{"n":0,"m":-12.5e+3,"o":1E9,"p":-0.0,"q":123456789012345678901234567890}"#,
            #"{"a":{"b":{"c":{"d":"deep"}}},"e":""}"#,
            #"{"ab":"1","ba":"2","a":"3","b":"4"}"#,
            "\"just a string\"",
            "42",
            "{\"long\":\"" + String(repeating: "QUJD", count: 700) + "=\"}",
        ]
        for text in plain { #expect(Self.agree(text), "\(text)") }
    }

    @Test func everythingElseIsLeftToTheParser() {
        let other = [
            #"{"a":["b"]}"#,  // arrays
            #"{"a":true}"#, #"{"a":false}"#, #"{"a":null}"#,  // literals
            #"{"a":"\"quoted\""}"#, #"{"a\n":"b"}"#, #"{"a":"\u0041"}"#,  // escapes
            "{\"a\":\"caf\u{E9}\"}", "{\"caf\u{E9}\":\"b\"}",  // outside ASCII
            "\u{FEFF}{\"a\":\"b\"}",  // a byte-order mark
            #"{"a":"b","a":"c"}"#,  // a duplicate key (the parser refuses it)
            #"{"x":{"a":"1","b":"2","a":"3"}}"#, #"{"x":{"y":{"k":1,"k":2}},"z":"1"}"#,  // nested ones
            #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":1e}"#, #"{"a":.5}"#, #"{"a":+1}"#,  // bad numbers
            #"{"a":"b"} x"#, #"{"a":"b"}}"#, #"{"a":"b",}"#, #"{"a" "b"}"#, #"{"a":"b""#, #"{a:"b"}"#,  // not JSON
            "{\"a\":\"b\u{01}c\"}",  // a control character
            "", " ", "{",
            String(repeating: "{\"a\":", count: 17) + "1" + String(repeating: "}", count: 17),  // deeper than 16
        ]
        for text in other { #expect(!Self.agree(text), "\(text)") }
        // 16 levels are read.
        #expect(Self.agree(String(repeating: "{\"a\":", count: 16) + "1" + String(repeating: "}", count: 16)))
    }

    /// Seeded random documents, plain or with one change of a kind the skim refuses or must get
    /// right: whatever it answers, the parser agrees.
    @Test func randomDocumentsAgree() {
        var state: UInt64 = 20_261_127
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        let alphabet = Array("abcXYZ019+/= -_.:,{}[]".utf8)
        func word() -> String {
            String(decoding: (0..<next(12)).map { _ in alphabet[next(alphabet.count)] }, as: UTF8.self)
        }
        func value(_ depth: Int) -> String {
            switch next(depth > 3 ? 3 : 4) {
            case 0: return "\"" + word() + "\""
            case 1: return ["0", "-1", "3.25", "1e5", "-0.5E-2", "17"][next(6)]
            case 2: return "\"" + String(repeating: "QUJD", count: next(200)) + "\""
            default:
                let count = next(5)
                // Now and then a key repeated (k0 again): the parser refuses, so must the skim.
                let members = (0..<count).map {
                    "\"k\($0 > 0 && next(8) == 0 ? 0 : $0)\": " + value(depth + 1)
                }
                return "{" + members.joined(separator: next(2) == 0 ? "," : " , ") + "}"
            }
        }
        let breakers = ["\\n", "\u{E9}", "[1]", "true", "null", "\"", "\\", "01", "\u{01}"]
        var answered = 0
        for _ in 0..<600 {
            var text = "{\"root\":" + value(0) + "}"
            if next(2) == 0 {
                var bytes = Array(text.utf8)
                let at = next(bytes.count)
                bytes.insert(contentsOf: Array(breakers[next(breakers.count)].utf8), at: at)
                text = String(decoding: bytes, as: UTF8.self)
            }
            if Self.agree(text) { answered += 1 }
        }
        #expect(answered > 250)  // the plain half, and the changes that leave a document plain
    }
}
