/// A small regular-expression engine for the patterns of Google's address metadata and
/// libphonenumber: literals, `\d`, classes with ranges and negation, groups (capturing or not),
/// alternation and the quantifiers `? * + {n} {n,} {n,m}`, matched on UTF-8 bytes by
/// backtracking. It compiles each pattern once; matching a postal code or a phone number takes
/// well under a microsecond, which Foundation's and Swift's regex engines do not.
struct Pattern: Sendable {
    indirect enum Node: Sendable {
        case bytes(ByteSet)
        case sequence([Node])
        case alternation([Node])
        case repetition(Node, min: Int, max: Int)
        case end
        case start
        case wordBoundary
    }

    struct ByteSet: Sendable {
        var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        mutating func insert(_ b: UInt8) {
            let bit = UInt64(1) << UInt64(b & 63)
            switch b >> 6 {
            case 0: bits.0 |= bit
            case 1: bits.1 |= bit
            case 2: bits.2 |= bit
            default: bits.3 |= bit
            }
        }
        func contains(_ b: UInt8) -> Bool {
            let bit = UInt64(1) << UInt64(b & 63)
            switch b >> 6 {
            case 0: return bits.0 & bit != 0
            case 1: return bits.1 & bit != 0
            case 2: return bits.2 & bit != 0
            default: return bits.3 & bit != 0
            }
        }
        mutating func invert() { bits = (~bits.0, ~bits.1, ~bits.2, ~bits.3) }
    }

    struct SyntaxError: Error, CustomStringConvertible {
        let pattern: String
        let offset: Int
        var description: String { "pattern \(pattern) has unsupported syntax at \(offset)" }
    }

    let source: String
    private let root: Node

    /// Compiles `source`; throws on syntax this engine does not support.
    init(_ source: String) throws {
        self.source = source
        var parser = Parser(bytes: Array(source.utf8), source: source)
        root = try parser.parseAlternation()
        guard parser.index == parser.bytes.count else { throw SyntaxError(pattern: source, offset: parser.index) }
    }

    /// Whether the whole of `text` matches.
    func matches(_ text: String) -> Bool {
        let input = Array(text.utf8)
        return Self.match(root, input, 0) { $0 == input.count }
    }

    /// Whether a prefix of `text` matches (Python's `re.match`).
    func matchesPrefix(_ text: String) -> Bool {
        let input = Array(text.utf8)
        return Self.match(root, input, 0) { _ in true }
    }

    private static func match(_ node: Node, _ input: [UInt8], _ i: Int, _ next: (Int) -> Bool) -> Bool {
        switch node {
        case .bytes(let set):
            return i < input.count && set.contains(input[i]) && next(i + 1)
        case .end:
            return i == input.count && next(i)
        case .start:
            return i == 0 && next(i)
        case .wordBoundary:
            func word(_ j: Int) -> Bool {
                guard j >= 0, j < input.count else { return false }
                let c = input[j]
                return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
            }
            return word(i - 1) != word(i) && next(i)
        case .sequence(let nodes):
            return sequence(nodes[...], input, i, next)
        case .alternation(let options):
            for option in options where match(option, input, i, next) { return true }
            return false
        case .repetition(let inner, let min, let max):
            return repeatMatch(inner, min: min, max: max, count: 0, input, i, next)
        }
    }

    private static func sequence(_ nodes: ArraySlice<Node>, _ input: [UInt8], _ i: Int, _ next: (Int) -> Bool) -> Bool {
        guard let first = nodes.first else { return next(i) }
        return match(first, input, i) { j in sequence(nodes.dropFirst(), input, j, next) }
    }

    private static func repeatMatch(_ inner: Node, min: Int, max: Int, count: Int, _ input: [UInt8], _ i: Int,
                                    _ next: (Int) -> Bool) -> Bool {
        // Greedy: try one more, then stop (guarding against empty iterations).
        if count < max, match(inner, input, i, { j in j > i && repeatMatch(inner, min: min, max: max, count: count + 1, input, j, next) }) {
            return true
        }
        return count >= min && next(i)
    }

    private struct Parser {
        let bytes: [UInt8]
        let source: String
        var index = 0

        func fail() -> SyntaxError { SyntaxError(pattern: source, offset: index) }

        mutating func parseAlternation() throws -> Node {
            var options = [try parseSequence()]
            while index < bytes.count, bytes[index] == UInt8(ascii: "|") {
                index += 1
                options.append(try parseSequence())
            }
            return options.count == 1 ? options[0] : .alternation(options)
        }

        mutating func parseSequence() throws -> Node {
            var items: [Node] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: "|"), bytes[index] != UInt8(ascii: ")") {
                var atom = try parseAtom()
                atom = try parseQuantifier(atom)
                items.append(atom)
            }
            return items.count == 1 ? items[0] : .sequence(items)
        }

        mutating func parseQuantifier(_ atom: Node) throws -> Node {
            guard index < bytes.count else { return atom }
            switch bytes[index] {
            case UInt8(ascii: "?"): index += 1; return .repetition(atom, min: 0, max: 1)
            case UInt8(ascii: "*"): index += 1; return .repetition(atom, min: 0, max: Int.max)
            case UInt8(ascii: "+"): index += 1; return .repetition(atom, min: 1, max: Int.max)
            case UInt8(ascii: "{"):
                index += 1
                let low = number()
                var high = low
                if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    high = index < bytes.count && bytes[index] == UInt8(ascii: "}") ? Int.max : number()
                }
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}"), low >= 0, high >= low else { throw fail() }
                index += 1
                return .repetition(atom, min: low, max: high)
            default: return atom
            }
        }

        mutating func number() -> Int {
            var n = 0
            var any = false
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                n = n * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
                any = true
            }
            return any ? n : -1
        }

        mutating func parseAtom() throws -> Node {
            let c = bytes[index]
            switch c {
            case UInt8(ascii: "("):
                index += 1
                if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "?"), bytes[index + 1] == UInt8(ascii: ":") { index += 2 }
                let inner = try parseAlternation()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ")") else { throw fail() }
                index += 1
                return inner
            case UInt8(ascii: "["):
                return .bytes(try parseClass())
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail() }
                let e = bytes[index]
                index += 1
                if e == UInt8(ascii: "b") { return .wordBoundary }
                return .bytes(try escape(e))
            case UInt8(ascii: "$"):
                index += 1
                return .end
            case UInt8(ascii: "."):
                index += 1
                var set = ByteSet()
                set.invert()
                return .bytes(set)
            case UInt8(ascii: "^"):
                index += 1
                return .start
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{"):
                throw fail()
            default:
                index += 1
                var set = ByteSet()
                set.insert(c)
                return .bytes(set)
            }
        }

        func escape(_ e: UInt8) throws -> ByteSet {
            var set = ByteSet()
            switch e {
            case UInt8(ascii: "d"): for d in UInt8(ascii: "0")...UInt8(ascii: "9") { set.insert(d) }
            case UInt8(ascii: "s"): for s in [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C] as [UInt8] { set.insert(s) }
            case UInt8(ascii: "w"):
                for b in UInt8(ascii: "0")...UInt8(ascii: "9") { set.insert(b) }
                for b in UInt8(ascii: "a")...UInt8(ascii: "z") { set.insert(b) }
                for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { set.insert(b) }
                set.insert(UInt8(ascii: "_"))
            default:
                guard !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(e), !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(e),
                      !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(e) else { throw fail() }
                set.insert(e)
            }
            return set
        }

        mutating func parseClass() throws -> ByteSet {
            index += 1
            var set = ByteSet()
            var negate = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "^") { negate = true; index += 1 }
            var first = true
            while index < bytes.count, bytes[index] != UInt8(ascii: "]") || first {
                first = false
                var low = bytes[index]
                index += 1
                if low == UInt8(ascii: "\\") {
                    guard index < bytes.count else { throw fail() }
                    let e = bytes[index]
                    index += 1
                    let escaped = try escape(e)
                    if e == UInt8(ascii: "d") || e == UInt8(ascii: "s") || e == UInt8(ascii: "w") {
                        for b in 0...255 where escaped.contains(UInt8(b)) { set.insert(UInt8(b)) }
                        continue
                    }
                    low = e
                }
                if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-"), bytes[index + 1] != UInt8(ascii: "]") {
                    var high = bytes[index + 1]
                    index += 2
                    if high == UInt8(ascii: "\\"), index < bytes.count { high = bytes[index]; index += 1 }
                    guard high >= low else { throw fail() }
                    for b in low...high { set.insert(b) }
                } else {
                    set.insert(low)
                }
            }
            guard index < bytes.count else { throw fail() }
            index += 1
            if negate { set.invert() }
            return set
        }
    }
}
