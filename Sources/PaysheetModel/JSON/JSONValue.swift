import Foundation

/// A JSON value that keeps object keys in their original order.
///
/// Paysheet reads requests, updates and scenarios as `JSONValue` first, so that it can apply the
/// same WebIDL conversion rules a browser applies to a page's JavaScript values (a `null` country
/// code becomes the string `"null"`, a number where a sequence is expected is a `TypeError`, …).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, kept as the text it was written with (so `10.00` stays `10.00`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The value as an object, or `nil`.
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    /// The value as an array, or `nil`.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    /// The value as a string, or `nil`.
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The value as a boolean, or `nil`.
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    /// The value as a number, or `nil`.
    public var doubleValue: Double? { if case .number(let n) = self { return Double(n) } else { return nil } }
    /// Whether the value is JSON `null`.
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// Looks up a key when the value is an object.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// How JavaScript's `String(value)` would print this value (used where WebIDL converts to
    /// `DOMString`).
    public var javaScriptString: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return Self.javaScriptNumberString(n)
        case .string(let s): return s
        case .array(let a): return a.map { $0.isNull ? "" : $0.javaScriptString }.joined(separator: ",")
        case .object: return "[object Object]"
        }
    }

    /// How JavaScript prints the number written as `text`.
    public static func javaScriptNumberString(_ text: String) -> String {
        guard let d = Double(text) else { return text }
        if d == d.rounded(), abs(d) < 1e21 {
            return String(format: "%.0f", d) == "-0" ? "0" : String(format: "%.0f", d)
        }
        var s = "\(d)"
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }
}

/// A JSON object: key/value pairs in document order, with lookup by key.
public struct JSONObject: Sendable, Hashable, Sequence {
    /// The members in document order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// An empty object.
    public init() { members = [] }

    /// An object with these members, in this order.
    public init(_ members: [(String, JSONValue)]) {
        self.members = []
        for (k, v) in members { self[k] = v }
    }

    /// The value for `key`; setting `nil` removes the key, setting a value keeps the key's place.
    public subscript(key: String) -> JSONValue? {
        get { members.first(where: { $0.key == key })?.value }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }
    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> { members.makeIterator() }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.members.count == b.members.count && a.members.allSatisfy { b[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        for m in members.sorted(by: { $0.key < $1.key }) {
            hasher.combine(m.key)
            hasher.combine(m.value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }
}
