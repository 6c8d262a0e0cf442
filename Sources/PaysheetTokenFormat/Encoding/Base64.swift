/// Standard Base64 (RFC 4648 §4, with padding), as Apple uses in payment tokens.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// The bytes of `text`, or `nil` when it is not valid padded Base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// The bytes of Base64 UTF-8 `input`, or `nil` when it is not valid padded Base64.
    public static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let n = input.count
        guard n % 4 == 0 else { return nil }
        if n == 0 { return [] }
        var padding = 0
        if input[n - 1] == UInt8(ascii: "=") { padding += 1 }
        if input[n - 2] == UInt8(ascii: "=") { padding += 1 }
        let outCount = n / 4 * 3 - padding
        return table.withUnsafeBufferPointer { t -> [UInt8]? in
            var ok = true
            let out = [UInt8](unsafeUninitializedCapacity: outCount) { buffer, initialized in
                var o = 0
                var i = 0
                while i < n {
                    let last = i + 4 == n
                    let a = t[Int(input[i])]
                    let b = t[Int(input[i + 1])]
                    let c = last && padding == 2 ? 0 : t[Int(input[i + 2])]
                    let d = last && padding >= 1 ? 0 : t[Int(input[i + 3])]
                    if (a | b | c | d) & 0xC0 != 0 {
                        ok = false
                        break
                    }
                    let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    buffer[o] = UInt8(truncatingIfNeeded: v >> 16)
                    o += 1
                    if o < outCount {
                        buffer[o] = UInt8(truncatingIfNeeded: v >> 8)
                        o += 1
                    }
                    if o < outCount {
                        buffer[o] = UInt8(truncatingIfNeeded: v)
                        o += 1
                    }
                    i += 4
                }
                initialized = ok ? outCount : 0
            }
            return ok ? out : nil
        }
    }

    /// `bytes` as padded Base64 text.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var i = 0
        while i < input.count {
            let b0 = UInt32(input[i])
            let b1 = i + 1 < input.count ? UInt32(input[i + 1]) : 0
            let b2 = i + 2 < input.count ? UInt32(input[i + 2]) : 0
            let v = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(v >> 18 & 63)])
            out.append(alphabet[Int(v >> 12 & 63)])
            out.append(i + 1 < input.count ? alphabet[Int(v >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < input.count ? alphabet[Int(v & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
