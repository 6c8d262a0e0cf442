/// A minimal, allocation-light BER reader: it reads one TLV at a time and never descends into a
/// node it is not asked about, so a certificate inside a signature costs one length read. It
/// accepts definite and indefinite lengths (constructed nodes only), low tag numbers, and bounds
/// every read and the nesting depth: any input ends in a node or a `PaymentTokenError`.
struct BERReader {
    struct Node {
        /// The identifier octet (class, constructed bit, tag number ≤ 30).
        let tag: UInt8
        /// Offset of the identifier octet.
        let start: Int
        /// Offset of the first content octet.
        let contentStart: Int
        /// Offset after the last content octet (before an end-of-contents marker).
        let contentEnd: Int
        /// Offset after the node (after its end-of-contents marker, if any).
        let end: Int
        /// Whether the length was indefinite.
        let indefinite: Bool

        var isConstructed: Bool { tag & 0x20 != 0 }
    }

    let bytes: [UInt8]
    static let maxDepth = 24

    func fail(_ what: String) -> PaymentTokenError { BERNodes.fail(what) }

    /// The node starting at `offset`, which must end by `limit`.
    func node(at offset: Int, limit: Int, depth: Int = 0) throws(PaymentTokenError) -> Node {
        guard depth < Self.maxDepth else { throw fail("nested more than \(Self.maxDepth) levels") }
        guard offset + 2 <= limit, limit <= bytes.count else { throw fail("truncated at byte \(offset)") }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else { throw fail("high tag number at byte \(offset)") }
        let first = bytes[offset + 1]
        var position = offset + 2
        if first == 0x80 {
            guard tag & 0x20 != 0 else { throw fail("indefinite length on a primitive at byte \(offset)") }
            var cursor = position
            while true {
                guard cursor + 2 <= limit else { throw fail("missing end-of-contents for the node at byte \(offset)") }
                if bytes[cursor] == 0, bytes[cursor + 1] == 0 { break }
                cursor = try node(at: cursor, limit: limit, depth: depth + 1).end
            }
            return Node(
                tag: tag,
                start: offset,
                contentStart: position,
                contentEnd: cursor,
                end: cursor + 2,
                indefinite: true
            )
        }
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count <= 4 else { throw fail("length of \(count) octets at byte \(offset)") }
            guard position + count <= limit else { throw fail("truncated length at byte \(offset)") }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard length <= limit - position else {
            throw fail("the node at byte \(offset) claims \(length) bytes; \(limit - position) remain")
        }
        return Node(
            tag: tag,
            start: offset,
            contentStart: position,
            contentEnd: position + length,
            end: position + length,
            indefinite: false
        )
    }

    /// The children of a constructed node.
    func children(_ parent: Node, depth: Int = 1) throws(PaymentTokenError) -> [Node] {
        guard parent.isConstructed else { throw fail("the node at byte \(parent.start) is not constructed") }
        var out: [Node] = []
        var cursor = parent.contentStart
        while cursor < parent.contentEnd {
            let child = try node(at: cursor, limit: parent.contentEnd, depth: depth)
            out.append(child)
            cursor = child.end
        }
        return out
    }

    /// The content octets of `node`, joining the segments of a constructed string.
    func content(_ node: Node, depth: Int = 1) throws(PaymentTokenError) -> [UInt8] {
        if !node.isConstructed { return Array(bytes[node.contentStart..<node.contentEnd]) }
        var out: [UInt8] = []
        for part in try children(node, depth: depth) {
            guard part.tag & 0x1F == node.tag & 0x1F else {
                throw fail("a segment of the string at byte \(node.start) has another type")
            }
            out += try content(part, depth: depth + 1)
        }
        return out
    }

    /// The whole encoding of `node`.
    func encoding(_ node: Node) -> ArraySlice<UInt8> { bytes[node.start..<node.end] }
}

/// Object identifiers as content octets, for cheap comparison, and as dotted text for messages.
enum OIDText {
    static func dotted(_ content: ArraySlice<UInt8>) -> String {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for byte in content {
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
            }
            if value > UInt64(1) << 56 { return "(invalid OID)" }
        }
        guard let first = arcs.first else { return "(empty OID)" }
        let head = first < 80 ? [first / 40, first % 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }
}
