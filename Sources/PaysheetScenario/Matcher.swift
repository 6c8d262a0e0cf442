import PaysheetModel

/// The scenario format's matching rules: objects by subset, arrays element by element, scalars
/// exactly, and the `$absent` / `$present` matchers.
public enum Matcher {
    /// `nil` when `actual` matches `expected`, else where and why not.
    public static func mismatch(expected: JSONValue, actual: JSONValue?, path: String = "") -> String? {
        if case .object(let eo) = expected, eo.members.count == 1, let k = eo.keys.first, k.hasPrefix("$") {
            let empty: Bool
            switch actual {
            case nil, .null?: empty = true
            case .string(let s)?: empty = s.isEmpty
            default: empty = false
            }
            if k == "$absent" { return empty ? nil : "\(label(path)): expected absent, found \(actual!.compactText)" }
            return empty ? "\(label(path)): expected present, found \(actual?.compactText ?? "nothing")" : nil
        }
        guard let actual else { return "\(label(path)): missing, expected \(expected.compactText)" }
        switch (expected, actual) {
        case (.object(let eo), .object(let ao)):
            for m in eo {
                if let r = mismatch(expected: m.value, actual: ao[m.key], path: path + "." + m.key) { return r }
            }
            return nil
        case (.array(let ea), .array(let aa)):
            if ea.count != aa.count {
                return "\(label(path)): expected \(ea.count) element(s), found \(aa.count): \(actual.compactText)"
            }
            for (i, (e, a)) in zip(ea, aa).enumerated() {
                if let r = mismatch(expected: e, actual: a, path: "\(path)[\(i)]") { return r }
            }
            return nil
        case (.number(let e), .number(let a)):
            if e == a || Double(e) == Double(a) { return nil }
            return "\(label(path)): expected \(e), found \(a)"
        default:
            return expected == actual
                ? nil : "\(label(path)): expected \(expected.compactText), found \(actual.compactText)"
        }
    }

    private static func label(_ path: String) -> String { path.isEmpty ? "value" : String(path.drop { $0 == "." }) }
}
