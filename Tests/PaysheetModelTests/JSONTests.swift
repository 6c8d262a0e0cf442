import Foundation
import Testing
@testable import PaysheetModel

@Suite struct JSONTests {
    @Test func parsesAndKeepsKeyOrder() throws {
        let v = try JSONParser.parse(#"{"b": 1, "a": [true, null, "x\u00e9\n"], "c": {"d": 10.50}}"#)
        #expect(v.objectValue?.keys == ["b", "a", "c"])
        #expect(v["a"]?.arrayValue?[2] == .string("xé\n"))
        #expect(v["c"]?["d"] == .number("10.50"))
        #expect(v.compactText == #"{"b":1,"a":[true,null,"xé\n"],"c":{"d":10.50}}"#)
        #expect(try JSONParser.parse(v.prettyText) == v)
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9), ("[1, 2", 1, 6), ("{\n  \"a\": tru\n}", 2, 8), ("\"abc", 1, 5),
        ("{\"a\":1,\"a\":2}", 1, 11), ("01", 1, 2),
    ])
    func reportsWhereTheDocumentIsBroken(text: String, line: Int, column: Int) {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch {
            #expect(error.line == line)
            #expect(error.column == column)
        }
    }

    @Test func surrogatePairsAndDepthLimit() throws {
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(#""\ud83d""#) }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(deep) }
    }

    @Test func javaScriptStrings() {
        #expect(JSONValue.null.javaScriptString == "null")
        #expect(JSONValue.number("7").javaScriptString == "7")
        #expect(JSONValue.number("7.50").javaScriptString == "7.5")
        #expect(JSONValue.number("1e2").javaScriptString == "100")
        #expect(JSONValue.object(JSONObject()).javaScriptString == "[object Object]")
    }

    /// `JSONValue`'s `Decodable` (through Foundation's decoder: request bodies) reads every kind
    /// as our parser does, whatever order it tries the kinds in; objects come out with sorted keys.
    @Test func decodableReadsEveryKindAsTheParserDoes() throws {
        let texts = [
            #"null"#, #"true"#, #"false"#, #""text""#, #""""#, #"7"#, #"-12"#, #"[]"#, #"{}"#,
            #"[true, 1, "1", null, [false], {"b": "x", "a": [null]}]"#,
            #"{"version": "EC_v1", "data": "AAEC", "signature": "MIAG", "#
                + #""header": {"publicKeyHash": "q/r", "ephemeralPublicKey": "BE", "transactionId": "ab"}}"#,
            #"{"flag": false, "n": 3, "list": [{"z": true}, "s"], "nothing": null}"#,
        ]
        func sorted(_ value: JSONValue) -> JSONValue {
            switch value {
            case .array(let items): return .array(items.map(sorted))
            case .object(let members):
                return .object(JSONObject(members.map { ($0.key, sorted($0.value)) }.sorted { $0.0 < $1.0 }))
            default: return value
            }
        }
        for text in texts {
            let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            #expect(decoded == sorted(try JSONParser.parse(text)), "\(text)")
        }
    }
}
