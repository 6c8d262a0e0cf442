import Foundation

/// Encodes any `Encodable` value straight into a ``JSONValue`` (no text round trip), keeping the
/// order in which the value encodes its keys. Optional `nil` members are left out, as
/// `JSONEncoder` does.
public struct JSONValueEncoder {
    /// A new encoder.
    public init() {}

    /// Encodes `value`.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        if let json = value as? JSONValue { return json }
        let box = EncodingBox(codingPath: [])
        try value.encode(to: box)
        return box.result ?? .object(JSONObject())
    }
}

extension Encodable {
    /// This value as a ``JSONValue``.
    public var jsonValue: JSONValue {
        // Wire types encode only strings, numbers, booleans, arrays and objects: no failure path.
        (try? JSONValueEncoder().encode(self)) ?? .null
    }
}

private final class Ref {
    var value: JSONValue?
    init(_ v: JSONValue? = nil) { value = v }
}

private final class EncodingBox: Encoder {
    var codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] = [:]
    var storage: Ref?
    var objectRef: ObjectRef?
    var arrayRef: ArrayRef?

    init(codingPath: [CodingKey]) { self.codingPath = codingPath }

    var result: JSONValue? {
        if let objectRef {
            var members = objectRef.object
            for (key, box) in objectRef.pending { members[key] = box.result ?? .null }
            return .object(members)
        }
        if let arrayRef { return .array(arrayRef.items.map { $0.resolved }) }
        return storage?.value
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if objectRef == nil { objectRef = ObjectRef() }
        return KeyedEncodingContainer(KeyedBox<Key>(ref: objectRef!, codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if arrayRef == nil { arrayRef = ArrayRef() }
        return UnkeyedBox(ref: arrayRef!, codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer { SingleBox(box: self) }
}

private final class ObjectRef {
    var object = JSONObject()
    var pending: [(String, EncodingBox)] = []
}

private final class ArrayRef {
    var items: [Item] = []
    enum Item {
        case value(JSONValue)
        case box(EncodingBox)
        var resolved: JSONValue {
            switch self {
            case .value(let value): return value
            case .box(let box): return box.result ?? .null
            }
        }
    }
}

private func primitive(_ value: Encodable, path: [CodingKey]) throws -> JSONValue {
    switch value {
    case let typed as JSONValue: return typed
    case let typed as String: return .string(typed)
    case let typed as Bool: return .bool(typed)
    case let typed as Int: return .number(String(typed))
    case let typed as Int64: return .number(String(typed))
    case let typed as UInt: return .number(String(typed))
    case let typed as UInt16: return .number(String(typed))
    case let typed as UInt32: return .number(String(typed))
    case let typed as UInt64: return .number(String(typed))
    case let typed as Double: return .number(JSONValue.javaScriptNumberString("\(typed)"))
    case let typed as Decimal: return .number("\(typed)")
    default:
        let box = EncodingBox(codingPath: path)
        try value.encode(to: box)
        return box.result ?? .null
    }
}

private struct KeyedBox<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let ref: ObjectRef
    var codingPath: [CodingKey]

    mutating func encodeNil(forKey key: Key) throws { ref.object[key.stringValue] = .null }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        ref.object[key.stringValue] = try primitive(value, path: codingPath + [key])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        defer_(key).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        defer_(key).unkeyedContainer()
    }
    mutating func superEncoder() -> Encoder { defer_(nil) }
    mutating func superEncoder(forKey key: Key) -> Encoder { defer_(key) }
    private func defer_(_ key: Key?) -> EncodingBox {
        let name = key?.stringValue ?? "super"
        let box = EncodingBox(codingPath: codingPath + (key.map { [$0] } ?? []))
        ref.object[name] = .null
        ref.pending.append((name, box))
        return box
    }
}

private struct UnkeyedBox: UnkeyedEncodingContainer {
    let ref: ArrayRef
    var codingPath: [CodingKey]
    var count: Int { ref.items.count }

    mutating func encodeNil() throws { ref.items.append(.value(.null)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        ref.items.append(.value(try primitive(value, path: codingPath)))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let box = EncodingBox(codingPath: codingPath)
        ref.items.append(.box(box))
        return box.container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        let box = EncodingBox(codingPath: codingPath)
        ref.items.append(.box(box))
        return box.unkeyedContainer()
    }
    mutating func superEncoder() -> Encoder {
        let box = EncodingBox(codingPath: codingPath)
        ref.items.append(.box(box))
        return box
    }
}

private struct SingleBox: SingleValueEncodingContainer {
    let box: EncodingBox
    var codingPath: [CodingKey] { box.codingPath }
    mutating func encodeNil() throws { box.storage = Ref(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { box.storage = Ref(try primitive(value, path: codingPath)) }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        // Each JSON kind is taken by exactly one of these tries, so their order changes no
        // result; each try that fails builds and throws a `DecodingError`, so the commonest
        // kinds go first (strings, then objects: a payment token's `paymentData` was 14 thrown
        // errors with booleans and numbers first, 2 now — a tenth of the authorize body's decoding).
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let members = try? container.decode([String: JSONValue].self) {
            self = .object(JSONObject(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Decimal.self) {
            self = .number("\(number)")
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let digits): try container.encode(Decimal(string: digits) ?? 0)
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements)
        case .object(let members):
            var dictionary: [String: JSONValue] = [:]
            for member in members { dictionary[member.key] = member.value }
            try container.encode(dictionary)
        }
    }
}

/// Decodes a `Decodable` value from a ``JSONValue`` through Foundation's `JSONDecoder`.
public func decodeJSONValue<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(value.compactText.utf8))
}
