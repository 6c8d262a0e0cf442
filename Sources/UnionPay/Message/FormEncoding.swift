/// `application/x-www-form-urlencoded`, as UnionPay's SDKs send it.
enum FormEncoding {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Percent-encodes everything but the unreserved characters of RFC 3986.
    static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `+` and `%XX`; `nil` when an escape is broken or the bytes are not UTF-8.
    static func decode<S: Collection>(_ bytes: S) -> String? where S.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                let highIndex = bytes.index(after: index)
                guard highIndex != bytes.endIndex else { return nil }
                let lowIndex = bytes.index(after: highIndex)
                guard lowIndex != bytes.endIndex, let high = nibble(bytes[highIndex]), let low = nibble(bytes[lowIndex])
                else { return nil }
                out.append(high << 4 | low)
                index = lowIndex
            } else {
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
