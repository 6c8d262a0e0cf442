extension JSONValue {
    /// Compact JSON text, keys in their stored order.
    public var compactText: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// Indented JSON text (two spaces), keys in their stored order.
    public var prettyText: String {
        var out = ""
        write(to: &out, indent: "  ", level: 0)
        return out
    }

    private func write(to out: inout String, indent: String?, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let digits): out += digits
        case .string(let text): JSONValue.writeString(text, to: &out)
        case .array(let elements):
            if elements.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: indent, count: level + 1) }
                element.write(to: &out, indent: indent, level: level + 1)
            }
            if let indent { out += "\n" + String(repeating: indent, count: level) }
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (index, member) in members.members.enumerated() {
                if index > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: indent, count: level + 1) }
                JSONValue.writeString(member.key, to: &out)
                out += indent == nil ? ":" : ": "
                member.value.write(to: &out, indent: indent, level: level + 1)
            }
            if let indent { out += "\n" + String(repeating: indent, count: level) }
            out += "}"
        }
    }

    static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
