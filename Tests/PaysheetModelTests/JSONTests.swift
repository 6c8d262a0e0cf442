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
}
