import Foundation

/// The decrypted token's payment data as the merchant forwards it to the gateway: UnionPay's
/// `{key=value&key=value}` field syntax, Base64-encoded (as its other composite fields are; the
/// Java SDK writes `cardTransData` without Base64, which ``init(received:name:)`` reads too).
///
/// Keys: `accNo` (the DPAN), `expired` (`YYMM`), and either `cryptogram` + `eci` (3-D Secure
/// data) or `emvData` + `pinBlock` (EMV data, China). The value holds a DPAN and a cryptogram:
/// it is built in memory, sent, and never logged or stored.
public struct PaymentDataField: Sendable, Equatable {
    /// The pairs.
    public var values: [String: String]

    /// A field with `values` (empty values dropped).
    public init(_ values: [String: String]) { self.values = values.filter { !$0.value.isEmpty } }

    /// The encoded field value.
    public var encoded: String {
        let inner = values.keys.sorted().map { "\($0)=\(values[$0]!)" }.joined(separator: "&")
        return Data(("{" + inner + "}").utf8).base64EncodedString()
    }

    /// Decodes a field value.
    public init(encoded: String) throws(ACPError) {
        guard let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("{"), text.hasSuffix("}")
        else {
            throw ACPError(.malformed, "the payment data field is not Base64 of {key=value&…}")
        }
        try self.init(braced: text, name: "the payment data field")
    }

    /// Reads a field as UnionPay's SDKs send it: `{key=value&…}` as it is (the Java SDK's
    /// `AcpService.getCardTransData`), or the Base64 of it (the PHP SDK's composite fields,
    /// ``encoded``). `name` says which field in an error, which names what is wrong and never
    /// repeats the value.
    public init(received text: String, name: String) throws(ACPError) {
        if text.hasPrefix("{") {
            try self.init(braced: text, name: name)
            return
        }
        guard let data = Data(base64Encoded: text) else {
            throw ACPError(
                .malformed,
                "\(name) is neither {key=value&…} (as the Java SDK sends it) nor Base64 of it (as the PHP SDK does)"
            )
        }
        guard let decoded = String(data: data, encoding: .utf8) else {
            throw ACPError(.malformed, "\(name) is Base64 of bytes that are not UTF-8 text")
        }
        guard decoded.hasPrefix("{") else {
            throw ACPError(.malformed, "\(name) is Base64 of something other than {key=value&…}")
        }
        try self.init(braced: decoded, name: name + " (Base64)")
    }

    /// Reads UnionPay's `{key=value&…}` syntax as written in a field (as `tokenPayData` is);
    /// `name` says which field in an error.
    public init(braced text: String, name: String) throws(ACPError) {
        guard text.hasPrefix("{") else {
            throw ACPError(.malformed, "\(name) is not {key=value&…}: it does not start with '{'")
        }
        guard text.hasSuffix("}"), text.count > 1 else {
            throw ACPError(.malformed, "\(name) starts with '{' but does not end with '}'")
        }
        var values: [String: String] = [:]
        for (n, pair) in text.dropFirst().dropLast().split(separator: "&").enumerated() {
            guard let equals = pair.firstIndex(of: "=") else {
                throw ACPError(.malformed, "\(name) has a pair without '=' (pair \(n + 1))")
            }
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        self.values = values
    }

    /// What a key or value of UnionPay's `{key=value&…}` syntax cannot hold: `&` separates the
    /// pairs and `{`, `}` delimit the field (and `=` ends a key; a value may hold it, as Base64 does).
    static let reservedCharacters: Set<Character> = ["&", "{", "}"]

    /// Throws when a key or value holds a character the `{key=value&…}` syntax cannot carry
    /// (`&`, `{`, `}`, or `=` in a key), or a key is empty: such a field would be read back as
    /// other pairs than were meant, by the gateway and by ``init(encoded:)``. The error names the
    /// key, never the value.
    public func checkCarriable() throws(ACPError) {
        for key in values.keys.sorted() {
            guard !key.isEmpty, !key.contains(where: { Self.reservedCharacters.contains($0) || $0 == "=" }) else {
                throw ACPError(.malformed, "the payment data has a key UnionPay's {key=value&…} syntax cannot carry")
            }
            guard !values[key]!.contains(where: Self.reservedCharacters.contains) else {
                throw ACPError(
                    .malformed,
                    "the payment data's \(key) holds '&', '{' or '}', which UnionPay's {key=value&…} syntax cannot carry"
                )
            }
        }
    }

    /// The values UnionPay's SDKs move into `encryptedInfo` (as `customerInfo`'s `expired`, `cvn2`, `phoneNo`).
    static let encryptedInfoKeys = ["cryptogram", "emvData", "expired", "pinBlock"]

    /// The field with its sensitive values encrypted as UnionPay's SDKs encrypt `customerInfo`:
    /// `accNo` by itself, the cryptogram, EMV data, PIN block and expiry together in
    /// `encryptedInfo` (`key=value&…`). A text longer than one RSA block is encrypted in pieces
    /// joined by `.` (Paysheet's choice: UnionPay's SDKs encrypt one block).
    public func encrypted(with encryptor: SensitiveDataEncryptor) -> PaymentDataField {
        var out = values
        if let acc = out["accNo"] { out["accNo"] = encryptor.encryptLong(acc) }
        let hidden = Self.encryptedInfoKeys.filter { out[$0] != nil }
        if !hidden.isEmpty {
            out["encryptedInfo"] = encryptor.encryptLong(hidden.map { "\($0)=\(out[$0]!)" }.joined(separator: "&"))
            for key in hidden { out.removeValue(forKey: key) }
        }
        return PaymentDataField(out)
    }

    /// The field encrypted with `encryptor` (``encrypted(with:)``), or an error when it cannot be
    /// sent encrypted: a key or value the syntax cannot carry (``checkCarriable()``), or a
    /// sensitive value (`accNo`, the cryptogram, EMV data, PIN block, expiry) left in clear.
    public func sealed(with encryptor: SensitiveDataEncryptor) throws(ACPError) -> PaymentDataField {
        try checkCarriable()
        let sealed = encrypted(with: encryptor)
        let clear = (["accNo"] + Self.encryptedInfoKeys).filter { key in
            guard let value = values[key] else { return false }
            return sealed.values[key] == value || sealed.values[key] != nil && key != "accNo"
        }
        guard clear.isEmpty else {
            throw ACPError(.malformed, "the payment data's \(clear.joined(separator: ", ")) would be sent in clear")
        }
        return sealed
    }

    /// The field as sent before ``encrypted(with:)``.
    public func decrypted(with decryptor: SensitiveDataDecryptor) throws(ACPError) -> PaymentDataField {
        var out = values
        if let acc = out["accNo"] { out["accNo"] = try decryptor.decryptLong(acc) }
        if let info = out.removeValue(forKey: "encryptedInfo") {
            for pair in try decryptor.decryptLong(info).split(separator: "&") {
                guard let equals = pair.firstIndex(of: "=") else {
                    throw ACPError(.malformed, "encryptedInfo has a pair without '='")
                }
                out[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
        }
        return PaymentDataField(out)
    }

    /// The last four digits of `accNo`, masked as UnionPay masks it (`621234******1234` style).
    public var maskedAccount: String? {
        guard let acc = values["accNo"], acc.count >= 10 else { return nil }
        return String(acc.prefix(6)) + String(repeating: "*", count: acc.count - 10) + String(acc.suffix(4))
    }
}
