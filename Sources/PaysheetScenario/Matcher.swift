import PaysheetModel

/// The scenario format's matching rules: objects by subset, arrays element by element, scalars
/// exactly, and the `$absent` / `$present` matchers.
public enum Matcher {
    /// `nil` when `actual` matches `expected`, else where and why not.
    public static func mismatch(expected: JSONValue, actual: JSONValue?, path: String = "") -> String? {
        if case .object(let matcherObject) = expected, matcherObject.members.count == 1,
            let matcher = matcherObject.keys.first, matcher.hasPrefix("$")
        {
            let empty: Bool
            switch actual {
            case nil, .null?: empty = true
            case .string(let text)?: empty = text.isEmpty
            default: empty = false
            }
            if matcher == "$absent" {
                return empty ? nil : "\(label(path)): expected absent, found \(actual!.compactText)"
            }
            return empty ? "\(label(path)): expected present, found \(actual?.compactText ?? "nothing")" : nil
        }
        guard let actual else { return "\(label(path)): missing, expected \(expected.compactText)" }
        switch (expected, actual) {
        case (.object(let expectedMembers), .object(let actualMembers)):
            for member in expectedMembers {
                if let found = mismatch(
                    expected: member.value,
                    actual: actualMembers[member.key],
                    path: path + "." + member.key
                ) {
                    return found
                }
            }
            return nil
        case (.array(let expectedElements), .array(let actualElements)):
            if expectedElements.count != actualElements.count {
                return
                    "\(label(path)): expected \(expectedElements.count) element(s), found \(actualElements.count): \(actual.compactText)"
            }
            for (index, (expectedElement, actualElement)) in zip(expectedElements, actualElements).enumerated() {
                if let found = mismatch(expected: expectedElement, actual: actualElement, path: "\(path)[\(index)]") {
                    return found
                }
            }
            return nil
        case (.number(let expectedNumber), .number(let actualNumber)):
            if expectedNumber == actualNumber || Double(expectedNumber) == Double(actualNumber) { return nil }
            return "\(label(path)): expected \(expectedNumber), found \(actualNumber)"
        default:
            return expected == actual
                ? nil : "\(label(path)): expected \(expected.compactText), found \(actual.compactText)"
        }
    }

    private static func label(_ path: String) -> String { path.isEmpty ? "value" : String(path.drop { $0 == "." }) }
}
