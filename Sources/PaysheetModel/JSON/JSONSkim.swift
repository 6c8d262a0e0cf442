/// A JSON document read in place, without building a ``JSONValue`` tree, when it has the plain
/// shape payment tokens and their decrypted data have: objects, numbers, and strings of ASCII
/// without escapes.
///
/// Anything else — arrays, `true`, `false`, `null`, an escape or a byte outside ASCII in a
/// string, a byte-order mark, a duplicate key, nesting deeper than ``maxDepth``, or a document
/// that is not JSON at all — makes ``read(_:)`` answer `nil`, and the caller parses with
/// ``JSONParser`` instead (whose errors it reports). Where the skim answers, the parser accepts
/// the same document and finds the same members, in the same order, with the same text
/// (`JSONSkimTests` holds the two against each other), so a reader that uses the skim when it can
/// gives the answers of one that always parses, faster (a token's JSON read with its Base64
/// decoded in 1.7 µs instead of 2.4, its decrypted data in 0.6 instead of 1.2: docs/benchmarks.md)
/// and without copying a kilobytes-long Base64 member into a `String` first.
package struct JSONSkim: Sendable {
    /// A value in the document: where its text lies, or an object's members.
    package enum Value: Sendable {
        /// A string's contents (between the quotes; no escapes, ASCII only).
        case string(Range<Int>)
        /// A number's text, valid by JSON's grammar.
        case number(Range<Int>)
        /// An object's members.
        case object(Object)
    }

    /// An object's members in document order (keys are unique).
    package struct Object: Sendable {
        /// Each member's key (its contents between the quotes) and value.
        package var members: [(key: Range<Int>, value: Value)]
    }

    /// The document.
    package let bytes: [UInt8]
    /// Its one top-level value.
    package let root: Value

    /// How deep objects may nest (deeper documents are left to the parser).
    package static let maxDepth = 16

    /// `bytes` read in place, or `nil` when it is not of the plain shape (see above).
    package static func read(_ bytes: [UInt8]) -> JSONSkim? {
        let root: Value? = bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(buffer: buffer)
            reader.skipSpace()
            guard let value = reader.value(depth: 0) else { return nil }
            reader.skipSpace()
            return reader.index == buffer.count ? value : nil
        }
        guard let root else { return nil }
        return JSONSkim(bytes: bytes, root: root)
    }

    /// The value of `object`'s member named `key` (ASCII), if it has one.
    package func member(_ key: StaticString, of object: Object) -> Value? {
        let length = key.utf8CodeUnitCount
        return bytes.withUnsafeBufferPointer { buffer in
            for member in object.members where member.key.count == length {
                precondition(member.key.upperBound <= buffer.count, "an object of another document")
                if Self.equal(buffer.baseAddress! + member.key.lowerBound, key.utf8Start, length) {
                    return member.value
                }
            }
            return nil
        }
    }

    /// The text of `range` (a string's contents or a number), as a `String`.
    package func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// Whether `range`'s text is exactly `expected`.
    package func text(_ range: Range<Int>, is expected: StaticString) -> Bool {
        precondition(range.upperBound <= bytes.count, "a range of another document")
        return range.count == expected.utf8CodeUnitCount
            && bytes.withUnsafeBufferPointer {
                Self.equal($0.baseAddress! + range.lowerBound, expected.utf8Start, range.count)
            }
    }

    /// `body` over the bytes of `range`.
    package func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "a range of another document")
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Whether the `count` bytes at `a` and `b` are the same (keys are short).
    static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for offset in 0..<count where a[offset] != b[offset] { return false }
        return true
    }

    /// The reading itself, over the document's bytes.
    private struct Reader {
        let buffer: UnsafeBufferPointer<UInt8>
        var index = 0

        init(buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

        mutating func skipSpace() { index = JSONParser.spaceEnd(buffer, from: index) }

        mutating func value(depth: Int) -> Value? {
            guard index < buffer.count else { return nil }
            switch buffer[index] {
            case UInt8(ascii: "{"): return depth < JSONSkim.maxDepth ? object(depth: depth + 1) : nil
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number().map { .number($0) }
            default: return nil
            }
        }

        /// A string's contents: printable ASCII up to the closing quote, no escapes.
        mutating func string() -> Range<Int>? {
            let start = index + 1
            let (end, ascii) = JSONParser.plainRunEnd(buffer, from: start)
            guard ascii, end < buffer.count, buffer[end] == UInt8(ascii: "\"") else { return nil }
            index = end + 1
            return start..<end
        }

        /// A number, by the parser's grammar (``JSONParser/numberEnd(_:from:)``).
        mutating func number() -> Range<Int>? {
            let start = index
            let (end, failure) = JSONParser.numberEnd(buffer, from: start)
            guard failure == nil else { return nil }
            index = end
            return start..<end
        }

        mutating func object(depth: Int) -> Value? {
            index += 1
            var members: [(key: Range<Int>, value: Value)] = []
            members.reserveCapacity(8)
            skipSpace()
            if index < buffer.count, buffer[index] == UInt8(ascii: "}") {
                index += 1
                return .object(Object(members: members))
            }
            while true {
                skipSpace()
                guard index < buffer.count, buffer[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                for other in members where other.key.count == key.count {
                    // A duplicate key: the parser refuses the document (and says so).
                    if JSONSkim.equal(
                        buffer.baseAddress! + other.key.lowerBound,
                        buffer.baseAddress! + key.lowerBound,
                        key.count
                    ) {
                        return nil
                    }
                }
                skipSpace()
                guard index < buffer.count, buffer[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipSpace()
                guard let value = value(depth: depth) else { return nil }
                members.append((key, value))
                skipSpace()
                guard index < buffer.count else { return nil }
                if buffer[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard buffer[index] == UInt8(ascii: "}") else { return nil }
                index += 1
                return .object(Object(members: members))
            }
        }
    }
}
