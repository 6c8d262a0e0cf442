import Foundation

/// The decrypted token's payment data as the merchant forwards it to the gateway: UnionPay's
/// `{key=value&key=value}` field syntax, Base64-encoded (as its other composite fields are).
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
              text.hasPrefix("{"), text.hasSuffix("}") else {
            throw ACPError(.malformed, "the payment data field is not Base64 of {key=value&…}")
        }
        var values: [String: String] = [:]
        for pair in text.dropFirst().dropLast().split(separator: "&") {
            guard let eq = pair.firstIndex(of: "=") else {
                throw ACPError(.malformed, "the payment data field has a pair without '='")
            }
            values[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        self.values = values
    }

    /// The last four digits of `accNo`, masked as UnionPay masks it (`621234******1234` style).
    public var maskedAccount: String? {
        guard let acc = values["accNo"], acc.count >= 10 else { return nil }
        return String(acc.prefix(6)) + String(repeating: "*", count: acc.count - 10) + String(acc.suffix(4))
    }
}
