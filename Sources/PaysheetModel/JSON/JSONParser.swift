#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Android)
import Android
#elseif canImport(ucrt)
import ucrt
#endif

/// A strict JSON parser (RFC 8259) that keeps key order and reports where a document is broken.
public struct JSONParser {
    /// A syntax error, with the 1-based line and column where it was found.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        public var reason: String
        /// The 1-based line.
        public var line: Int
        /// The 1-based column.
        public var column: Int
        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private static let maxDepth = 512

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses a whole document.
    public static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses a whole document given as UTF-8 bytes.
    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var parser = JSONParser(bytes)
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipSpace()
        let value = try parser.value()
        parser.skipSpace()
        if parser.index < parser.bytes.count { throw parser.error("unexpected text after the end of the document") }
        return value
    }

    private func error(_ reason: String) -> SyntaxError {
        var line = 1
        var column = 1
        var position = 0
        while position < min(index, bytes.count) {
            if bytes[position] == 0x0A {
                line += 1
                column = 1
            } else if bytes[position] & 0xC0 != 0x80 {
                column += 1
            }
            position += 1
        }
        return SyntaxError(reason: reason, line: line, column: column)
    }

    private mutating func skipSpace() {
        index = bytes.withUnsafeBufferPointer { Self.spaceEnd($0, from: index) }
    }

    /// The first byte at or after `start` that is not JSON's whitespace (space, tab, line feed,
    /// carriage return), or the end. The parser and ``JSONSkim`` skip the same set.
    static func spaceEnd(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < buffer.count {
            switch buffer[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }

    private mutating func value() throws(SyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of the document") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func literal(_ word: String) throws(SyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("expected '\(word)'")
        }
        index += expected.count
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth) levels") }
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var obj = JSONObject()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(obj)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
            let key = try string()
            if obj[key] != nil { throw error("duplicate key \"\(key)\"") }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after key \"\(key)\"")
            }
            index += 1
            skipSpace()
            obj[key] = try value()
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of the document inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(obj)
            }
            throw error("expected ',' or '}' in an object")
        }
    }

    private mutating func array() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of the document inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            throw error("expected ',' or ']' in an array")
        }
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("bad hex digit in \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    /// The index of the first `"`, `\\` or control character at or after `start` (or the end),
    /// and whether every byte before it is ASCII: eight bytes at a time while none is among them
    /// (a Base64 member of a token is kilobytes).
    static func plainRunEnd(_ bytes: [UInt8], from start: Int) -> (end: Int, ascii: Bool) {
        bytes.withUnsafeBufferPointer { plainRunEnd($0, from: start) }
    }

    /// ``plainRunEnd(_:from:)`` over a buffer.
    static func plainRunEnd(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, ascii: Bool) {
        var index = start
        let count = buffer.count
        guard let base = buffer.baseAddress else { return (start, true) }
        if count - start >= 128, let end = longPlainRunEnd(base, from: start, count: count) { return (end, true) }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var seen: UInt64 = 0
        // A byte of `x` is zero ⇒ its high bit in `(x − ones) & ~x & highs` is set; a set bit
        // can also follow a true one (a borrow), never come alone: the byte loop finds which.
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                | ((word &- ones &* 0x20) & ~word)
            if special & highs != 0 { break }
            seen |= word
            index += 8
        }
        var last: UInt8 = 0
        while index < count {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            last |= byte
            index += 1
        }
        return (index, (seen & highs) == 0 && last < 0x80)
    }

    /// The end of a long run that is plain and ASCII to its closing quote (Base64 members are
    /// kilobytes): the quote found by the C library's `memchr`, then the run checked at once —
    /// no backslash (`memchr` again), no control character or byte outside ASCII (a branch-free
    /// pass, eight bytes at a time). `nil` when there is no quote, or the run is not all plain
    /// ASCII: the byte-by-byte scan then says where it ends.
    static func longPlainRunEnd(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int? {
        guard let found = memchr(base + start, 0x22, count - start) else { return nil }
        let end = UnsafeRawPointer(found) - UnsafeRawPointer(base)
        if memchr(base + start, 0x5C, end - start) != nil { return nil }
        let ones: UInt64 = 0x0101_0101_0101_0101
        var flagged: UInt64 = 0
        var index = start
        while index + 8 <= end {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            // High bit set: a byte outside ASCII, or (below 0x20) a borrow through it.
            flagged |= word | ((word &- ones &* 0x20) & ~word)
            index += 8
        }
        var last: UInt8 = 0
        while index < end {
            last |= base[index] | (base[index] < 0x20 ? 0x80 : 0)
            index += 1
        }
        return flagged & 0x8080_8080_8080_8080 == 0 && last < 0x80 ? end : nil
    }

    private mutating func string() throws(SyntaxError) -> String {
        index += 1
        // Fast path: no escapes (most strings, and all Base64).
        let start = index
        let ascii: Bool
        (index, ascii) = Self.plainRunEnd(bytes, from: index)
        if index < bytes.count, bytes[index] == UInt8(ascii: "\""), ascii {
            // ASCII is valid UTF-8: no validation (whose generic path looked up type metadata
            // on every call).
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            index += 1
            return text
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            guard let text = String(validating: bytes[start..<index], as: UTF8.self) else {
                throw error("string is not valid UTF-8")
            }
            index += 1
            return text
        }
        var out = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                break
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                out.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate in \\u escape")
                }
                guard let character = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(character)).utf8))
            default: throw error("unknown escape '\\\(Character(Unicode.Scalar(escaped)))'")
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw error("string is not valid UTF-8") }
        return text
    }

    private mutating func number() throws(SyntaxError) -> JSONValue {
        let start = index
        let (end, failure) = bytes.withUnsafeBufferPointer { Self.numberEnd($0, from: start) }
        index = end
        if let failure { throw error(failure) }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// Where the number starting at `start` (at `-` or a digit) ends, by JSON's grammar
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; or where it went wrong and why.
    /// The parser and ``JSONSkim`` read numbers by this one grammar.
    static func numberEnd(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, failure: String?) {
        var index = start
        func digits() -> Int {
            let digitsStart = index
            while index < buffer.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buffer[index]) { index += 1 }
            return index - digitsStart
        }
        if buffer[index] == UInt8(ascii: "-") { index += 1 }
        guard index < buffer.count else { return (index, "bad number") }
        if buffer[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return (index, "bad number")
        }
        if index < buffer.count, buffer[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { return (index, "bad number: digits expected after '.'") }
        }
        if index < buffer.count, buffer[index] == UInt8(ascii: "e") || buffer[index] == UInt8(ascii: "E") {
            index += 1
            if index < buffer.count, buffer[index] == UInt8(ascii: "+") || buffer[index] == UInt8(ascii: "-") {
                index += 1
            }
            if digits() == 0 { return (index, "bad number: digits expected in the exponent") }
        }
        return (index, nil)
    }
}
