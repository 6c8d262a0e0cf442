/// A small regular-expression engine for the patterns of Google's address metadata and
/// libphonenumber: literals, `\d`, classes with ranges and negation, groups (capturing or not),
/// alternation and the quantifiers `? * + {n} {n,} {n,m}`, matched on UTF-8 bytes.
///
/// Each pattern is parsed once into a tree and compiled into a flat program (byte sets, splits,
/// jumps) that a backtracking loop runs over the string's own UTF-8 storage: no allocation, no
/// closures, no reference counting per step. Matching a postal code or a phone number takes tens
/// of nanoseconds. Only "does it match" is answered, so the order of alternatives does not matter.
struct Pattern: Sendable {
    indirect enum Node: Sendable {
        case bytes(ByteSet)
        case sequence([Node])
        case alternation([Node])
        case repetition(Node, min: Int, max: Int)
        case end
        case start
        case wordBoundary

        /// Whether the node can match the empty string.
        var nullable: Bool {
            switch self {
            case .bytes: return false
            case .sequence(let nodes): return nodes.allSatisfy(\.nullable)
            case .alternation(let nodes): return nodes.contains(where: \.nullable)
            case .repetition(let inner, let min, _): return min == 0 || inner.nullable
            case .end, .start, .wordBoundary: return true
            }
        }
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
        @inline(__always) func contains(_ b: UInt8) -> Bool {
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

    /// One step of the compiled program.
    enum Instruction: Sendable {
        /// Consume one byte in the set.
        case byte(ByteSet)
        /// Try `first`; on failure, `second`.
        case split(Int, Int)
        case jump(Int)
        case atStart
        case atEnd
        case wordBoundary
        case accept
    }

    struct SyntaxError: Error, CustomStringConvertible {
        let pattern: String
        let offset: Int
        var description: String { "pattern \(pattern) has unsupported syntax at \(offset)" }
    }

    let source: String
    private let program: [Instruction]

    /// Compiles `source`; throws on syntax this engine does not support (including an unbounded
    /// repetition of something that can match nothing, which no metadata pattern has).
    init(_ source: String) throws {
        self.source = source
        var parser = Parser(bytes: Array(source.utf8), source: source)
        let root = try parser.parseAlternation()
        guard parser.index == parser.bytes.count else { throw SyntaxError(pattern: source, offset: parser.index) }
        var compiler = Compiler(source: source)
        try compiler.emit(root)
        compiler.program.append(.accept)
        program = compiler.program
    }

    /// Whether the whole of `text` matches.
    func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { run($0, whole: true) }
    }

    /// Whether a prefix of `text` matches (Python's `re.match`).
    func matchesPrefix(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { run($0, whole: false) }
    }

    /// Whether the whole of `bytes` matches.
    func matches(_ bytes: ArraySlice<UInt8>) -> Bool { bytes.withUnsafeBufferPointer { run($0, whole: true) } }

    /// The backtracking loop: a stack of (instruction, position) alternatives still to try.
    private func run(_ input: UnsafeBufferPointer<UInt8>, whole: Bool) -> Bool {
        program.withUnsafeBufferPointer { prog in
            withUnsafeTemporaryAllocation(of: (Int32, Int32).self, capacity: 64) { fixed in
                var stack = fixed
                var heap: UnsafeMutableBufferPointer<(Int32, Int32)>?
                defer { heap?.deallocate() }
                var depth = 0
                var pc = 0
                var i = 0
                let n = input.count
                while true {
                    var ok: Bool
                    switch prog[pc] {
                    case .byte(let set):
                        ok = i < n && set.contains(input[i])
                        if ok {
                            i += 1
                            pc += 1
                        }
                    case .split(let first, let second):
                        if depth == stack.count {
                            let bigger = UnsafeMutableBufferPointer<(Int32, Int32)>.allocate(capacity: stack.count * 2)
                            _ = bigger.initialize(from: stack)
                            heap?.deallocate()
                            heap = bigger
                            stack = bigger
                        }
                        stack[depth] = (Int32(second), Int32(i))
                        depth += 1
                        pc = first
                        ok = true
                    case .jump(let target):
                        pc = target
                        ok = true
                    case .atStart:
                        ok = i == 0
                        if ok { pc += 1 }
                    case .atEnd:
                        ok = i == n
                        if ok { pc += 1 }
                    case .wordBoundary:
                        @inline(__always) func word(_ j: Int) -> Bool {
                            guard j >= 0, j < n else { return false }
                            let c = input[j]
                            return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                                || c == 0x5F
                        }
                        ok = word(i - 1) != word(i)
                        if ok { pc += 1 }
                    case .accept:
                        if !whole || i == n { return true }
                        ok = false
                    }
                    if !ok {
                        guard depth > 0 else { return false }
                        depth -= 1
                        pc = Int(stack[depth].0)
                        i = Int(stack[depth].1)
                    }
                }
            }
        }
    }

    /// Turns the tree into instructions.
    private struct Compiler {
        let source: String
        var program: [Instruction] = []

        mutating func emit(_ node: Node) throws {
            switch node {
            case .bytes(let set): program.append(.byte(set))
            case .start: program.append(.atStart)
            case .end: program.append(.atEnd)
            case .wordBoundary: program.append(.wordBoundary)
            case .sequence(let nodes): for n in nodes { try emit(n) }
            case .alternation(let options):
                var jumps: [Int] = []
                for (k, option) in options.enumerated() {
                    if k < options.count - 1 {
                        let split = program.count
                        program.append(.split(split + 1, -1))
                        try emit(option)
                        jumps.append(program.count)
                        program.append(.jump(-1))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        try emit(option)
                    }
                }
                for j in jumps { program[j] = .jump(program.count) }
            case .repetition(let inner, let min, let max):
                for _ in 0..<min { try emit(inner) }
                if max == Int.max {
                    guard !inner.nullable else { throw SyntaxError(pattern: source, offset: 0) }
                    let loop = program.count
                    program.append(.split(loop + 1, -1))
                    try emit(inner)
                    program.append(.jump(loop))
                    program[loop] = .split(loop + 1, program.count)
                } else if max > min {
                    // Optional copies, each entered only after the previous one matched.
                    var splits: [Int] = []
                    for _ in min..<max {
                        splits.append(program.count)
                        program.append(.split(program.count + 1, -1))
                        try emit(inner)
                    }
                    for sp in splits { program[sp] = .split(sp + 1, program.count) }
                }
            }
        }
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
            case UInt8(ascii: "?"):
                index += 1
                return .repetition(atom, min: 0, max: 1)
            case UInt8(ascii: "*"):
                index += 1
                return .repetition(atom, min: 0, max: Int.max)
            case UInt8(ascii: "+"):
                index += 1
                return .repetition(atom, min: 1, max: Int.max)
            case UInt8(ascii: "{"):
                index += 1
                let low = number()
                var high = low
                if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    high = index < bytes.count && bytes[index] == UInt8(ascii: "}") ? Int.max : number()
                }
                guard index < bytes.count, bytes[index] == UInt8(ascii: "}"), low >= 0, high >= low else {
                    throw fail()
                }
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
                if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "?"), bytes[index + 1] == UInt8(ascii: ":") {
                    index += 2
                }
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
                guard !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(e),
                    !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(e),
                    !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(e)
                else { throw fail() }
                set.insert(e)
            }
            return set
        }

        mutating func parseClass() throws -> ByteSet {
            index += 1
            var set = ByteSet()
            var negate = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "^") {
                negate = true
                index += 1
            }
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
                    if high == UInt8(ascii: "\\"), index < bytes.count {
                        high = bytes[index]
                        index += 1
                    }
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
