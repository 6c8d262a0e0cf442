/// One ACP 5.1.0 message: the flat `key=value` fields UnionPay's gateway exchanges.
///
/// Empty values are dropped, as the official SDKs drop them before signing and sending.
public struct ACPMessage: Sendable, Equatable, CustomStringConvertible {
    /// The fields.
    public private(set) var fields: [String: String]

    /// A message with `fields` (empty values dropped).
    public init(_ fields: [String: String] = [:]) {
        self.fields = fields.filter { !$0.value.isEmpty }
    }

    /// The value of `key`; setting `nil` or `""` removes it.
    public subscript(key: String) -> String? {
        get { fields[key] }
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
        fields.keys.sorted().map { FormEncoding.encode($0) + "=" + FormEncoding.encode(fields[$0]!) }.joined(separator: "&")
    }

    /// Parses a form-encoded body.
    public init(formEncoded body: String) throws(ACPError) {
        var fields: [String: String] = [:]
        let bytes = Array(body.utf8)
        guard !bytes.isEmpty else { throw ACPError(.malformed, "the message is empty (form-encoded key=value pairs expected)") }
        for (n, part) in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).enumerated() {
            guard let eq = part.firstIndex(of: UInt8(ascii: "=")) else {
                throw ACPError(.malformed, "pair \(n + 1) has no '=' (form-encoded key=value pairs expected)")
            }
            guard let key = FormEncoding.decode(part[part.startIndex..<eq]), !key.isEmpty,
                  let value = FormEncoding.decode(part[part.index(after: eq)...]) else {
                throw ACPError(.malformed, "pair \(n + 1) has a broken percent escape or is not UTF-8")
            }
            guard fields[key] == nil else { throw ACPError(.malformed, "field \(key) appears twice") }
            if !value.isEmpty { fields[key] = value }
        }
        self.fields = fields
    }

    /// `value` of a field that must be present.
    public func required(_ key: String) throws(ACPError) -> String {
        guard let value = fields[key] else { throw ACPError(.malformed, "the message has no \(key)") }
        return value
    }

    /// Fields whose values are never shown (card data, personal data).
    public static let confidentialFields: Set<String> = ["cardTransData", "tokenPayData", "accNo", "customerInfo", "encryptCertId", "riskRateInfo"]

    /// The fields for logs: no `signature`, no certificate, confidential values replaced by `***`.
    public var description: String {
        fields.keys.sorted().filter { $0 != "signature" && $0 != "signPubKeyCert" }
            .map { "\($0)=\(ACPMessage.confidentialFields.contains($0) ? "***" : fields[$0]!)" }.joined(separator: "&")
    }
}
