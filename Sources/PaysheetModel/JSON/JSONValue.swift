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
    public var objectValue: JSONObject? { if case .object(let members) = self { return members } else { return nil } }
    /// The value as an array, or `nil`.
    public var arrayValue: [JSONValue]? { if case .array(let elements) = self { return elements } else { return nil } }
    /// The value as a string, or `nil`.
    public var stringValue: String? { if case .string(let text) = self { return text } else { return nil } }
    /// The value as a boolean, or `nil`.
    public var boolValue: Bool? { if case .bool(let flag) = self { return flag } else { return nil } }
    /// The value as a number, or `nil`.
    public var doubleValue: Double? { if case .number(let digits) = self { return Double(digits) } else { return nil } }
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
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let digits): return Self.javaScriptNumberString(digits)
        case .string(let text): return text
        case .array(let elements): return elements.map { $0.isNull ? "" : $0.javaScriptString }.joined(separator: ",")
        case .object: return "[object Object]"
        }
    }

    /// How JavaScript prints the number written as `text`.
    public static func javaScriptNumberString(_ text: String) -> String {
        guard let number = Double(text) else { return text }
        if number == number.rounded(), abs(number) < 1e21 {
            return String(format: "%.0f", number) == "-0" ? "0" : String(format: "%.0f", number)
        }
        var printed = "\(number)"
        if printed.hasSuffix(".0") { printed.removeLast(2) }
        return printed
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
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
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

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count && lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        for member in members.sorted(by: { $0.key < $1.key }) {
            hasher.combine(member.key)
            hasher.combine(member.value)
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
