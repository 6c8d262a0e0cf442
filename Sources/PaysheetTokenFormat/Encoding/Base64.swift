/// Standard Base64 (RFC 4648 §4, with padding), as Apple uses in payment tokens.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let table: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { values[Int(character)] = UInt8(index) }
        return values
    }()

    /// The bytes of `text`, or `nil` when it is not valid padded Base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// The bytes of Base64 UTF-8 `input`, or `nil` when it is not valid padded Base64.
    public static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = input.count
        guard count % 4 == 0 else { return nil }
        if count == 0 { return [] }
        var padding = 0
        if input[count - 1] == UInt8(ascii: "=") { padding += 1 }
        if input[count - 2] == UInt8(ascii: "=") { padding += 1 }
        let outCount = count / 4 * 3 - padding
        return table.withUnsafeBufferPointer { lookup -> [UInt8]? in
            // Whole quads first, three bytes each without a check per byte; the one with padding
            // last. Invalid characters (table value 0xFF) are caught once, at the end.
            let quads = count / 4 - (padding > 0 ? 1 : 0)
            var invalid: UInt8 = 0
            // Zero-filled then written, rather than `init(unsafeUninitializedCapacity:)`, whose
            // unspecialized path looked up type metadata on every call.
            var out = [UInt8](repeating: 0, count: outCount)
            out.withUnsafeMutableBufferPointer { buffer in
                guard let source = input.baseAddress, let target = buffer.baseAddress else { return }
                var read = 0
                var written = 0
                for _ in 0..<quads {
                    let first = lookup[Int(source[read])]
                    let second = lookup[Int(source[read + 1])]
                    let third = lookup[Int(source[read + 2])]
                    let fourth = lookup[Int(source[read + 3])]
                    invalid |= first | second | third | fourth
                    let bits = UInt32(first) << 18 | UInt32(second) << 12 | UInt32(third) << 6 | UInt32(fourth)
                    target[written] = UInt8(truncatingIfNeeded: bits >> 16)
                    target[written + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                    target[written + 2] = UInt8(truncatingIfNeeded: bits)
                    read += 4
                    written += 3
                }
                if padding > 0 {
                    let first = lookup[Int(source[read])]
                    let second = lookup[Int(source[read + 1])]
                    let third = padding == 2 ? 0 : lookup[Int(source[read + 2])]
                    invalid |= first | second | third
                    let bits = UInt32(first) << 18 | UInt32(second) << 12 | UInt32(third) << 6
                    target[written] = UInt8(truncatingIfNeeded: bits >> 16)
                    if padding == 1 { target[written + 1] = UInt8(truncatingIfNeeded: bits >> 8) }
                }
            }
            return invalid & 0xC0 == 0 ? out : nil
        }
    }

    /// `bytes` as padded Base64 text.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var read = 0
        while read < input.count {
            let first = UInt32(input[read])
            let second = read + 1 < input.count ? UInt32(input[read + 1]) : 0
            let third = read + 2 < input.count ? UInt32(input[read + 2]) : 0
            let bits = first << 16 | second << 8 | third
            out.append(alphabet[Int(bits >> 18 & 63)])
            out.append(alphabet[Int(bits >> 12 & 63)])
            out.append(read + 1 < input.count ? alphabet[Int(bits >> 6 & 63)] : UInt8(ascii: "="))
            out.append(read + 2 < input.count ? alphabet[Int(bits & 63)] : UInt8(ascii: "="))
            read += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
