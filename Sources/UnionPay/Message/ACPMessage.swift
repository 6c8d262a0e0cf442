/// One ACP 5.1.0 message: the flat `key=value` fields UnionPay's gateway exchanges.
///
/// Messages made here drop empty values, as UnionPay's Java SDK does before signing and sending.
/// Messages received keep every field as it came, empty ones included (the PHP SDK sends and
/// signs `riskRateInfo=`), so that the signature is checked over exactly what was signed; an empty
/// value reads as absent.
///
/// On the wire: requests and notifications are `application/x-www-form-urlencoded`
/// (``formEncoded``, ``init(formEncoded:)``); UnionPay's synchronous answers are raw
/// `key=value&…` with values as they are — no percent-encoding, `+` is a plus — and the SDKs
/// parse them so (``rawEncoded``, ``init(raw:)``).
public struct ACPMessage: Sendable, Equatable, CustomStringConvertible {
    /// The fields.
    public private(set) var fields: [String: String]

    /// A message with `fields` (empty values dropped).
    public init(_ fields: [String: String] = [:]) {
        self.fields = fields.filter { !$0.value.isEmpty }
    }

    /// The value of `key` (`nil` when absent or empty); setting `nil` or `""` removes it.
    public subscript(key: String) -> String? {
        get { fields[key].flatMap { $0.isEmpty ? nil : $0 } }
        set {
            if let newValue, !newValue.isEmpty { fields[key] = newValue } else { fields.removeValue(forKey: key) }
        }
    }

    /// The text that is signed: every field but `signature`, keys in ascending byte order,
    /// joined as `key=value&key=value` with raw (not percent-encoded) values.
    public var signingString: String {
        var parts: [String] = []
        parts.reserveCapacity(fields.count)
        for key in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) where key != "signature" {
            parts.append(key + "=" + fields[key]!)
        }
        return parts.joined(separator: "&")
    }

    /// The body to post: `application/x-www-form-urlencoded`, keys sorted.
    public var formEncoded: String {
        fields.keys.sorted().map { FormEncoding.encode($0) + "=" + FormEncoding.encode(fields[$0]!) }.joined(
            separator: "&"
        )
    }

    /// A synchronous answer as UnionPay's gateway writes it: `key=value` joined by `&`, keys
    /// sorted, values raw.
    public var rawEncoded: String {
        fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).map { $0 + "=" + fields[$0]! }.joined(
            separator: "&"
        )
    }

    /// Parses a synchronous answer as UnionPay's SDKs do: pairs split at `&` outside `{…}`
    /// (composite values such as `{accNo=…&expired=…}` keep theirs), the key up to the first `=`,
    /// the value as it is.
    public init(raw body: String) throws(ACPError) {
        let bytes = Array(body.utf8)
        guard !bytes.isEmpty else { throw ACPError(.malformed, "the answer is empty (key=value pairs expected)") }
        var fields: [String: String] = [:]
        var depth = 0
        var start = 0
        var count = 0
        func pair(_ part: ArraySlice<UInt8>) throws(ACPError) {
            count += 1
            guard !part.isEmpty else { return }
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else {
                throw ACPError(.malformed, "pair \(count) of the answer has no '='")
            }
            guard let key = String(validating: part[part.startIndex..<equals], as: UTF8.self), !key.isEmpty,
                let value = String(validating: part[part.index(after: equals)...], as: UTF8.self)
            else {
                throw ACPError(.malformed, "pair \(count) of the answer is not UTF-8")
            }
            guard fields[key] == nil else { throw ACPError(.malformed, "field \(key) appears twice") }
            fields[key] = value
        }
        for (i, b) in bytes.enumerated() {
            if b == UInt8(ascii: "{") { depth += 1 }
            if b == UInt8(ascii: "}") { depth = max(0, depth - 1) }
            if b == UInt8(ascii: "&"), depth == 0 {
                try pair(bytes[start..<i])
                start = i + 1
            }
        }
        try pair(bytes[start...])
        guard !fields.isEmpty else { throw ACPError(.malformed, "the answer has no fields") }
        self.fields = fields
    }

    /// Parses a form-encoded body (a request or a notification), keeping empty values as sent.
    public init(formEncoded body: String) throws(ACPError) {
        var fields: [String: String] = [:]
        let bytes = Array(body.utf8)
        guard !bytes.isEmpty else {
            throw ACPError(.malformed, "the message is empty (form-encoded key=value pairs expected)")
        }
        for (n, part) in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).enumerated() {
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else {
                throw ACPError(.malformed, "pair \(n + 1) has no '=' (form-encoded key=value pairs expected)")
            }
            guard let key = FormEncoding.decode(part[part.startIndex..<equals]), !key.isEmpty,
                let value = FormEncoding.decode(part[part.index(after: equals)...])
            else {
                throw ACPError(.malformed, "pair \(n + 1) has a broken percent escape or is not UTF-8")
            }
            guard fields[key] == nil else { throw ACPError(.malformed, "field \(key) appears twice") }
            fields[key] = value
        }
        self.fields = fields
    }

    /// `value` of a field that must be present (and not empty).
    public func required(_ key: String) throws(ACPError) -> String {
        guard let value = self[key] else { throw ACPError(.malformed, "the message has no \(key)") }
        return value
    }

    /// Fields whose values are never shown (card data, personal data).
    public static let confidentialFields: Set<String> = [
        "cardTransData", "tokenPayData", "accNo", "customerInfo", "encryptCertId", "riskRateInfo",
    ]

    /// The fields for logs: no `signature`, no certificate, confidential values replaced by `***`.
    public var description: String {
        fields.keys.sorted().filter { $0 != "signature" && $0 != "signPubKeyCert" }
            .map {
                "\($0)=\(ACPMessage.confidentialFields.contains($0) && fields[$0]?.isEmpty == false ? "***" : fields[$0]!)"
            }.joined(separator: "&")
    }
}
