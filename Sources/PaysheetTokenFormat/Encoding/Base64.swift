import Foundation

/// Standard Base64 (RFC 4648 §4, with padding), as Apple uses in payment tokens.
public enum Base64 {
    /// The bytes of `text`, or `nil` when it is not valid Base64.
    public static func decode(_ text: String) -> [UInt8]? {
        guard let data = Data(base64Encoded: text) else { return nil }
        return [UInt8](data)
    }

    /// `bytes` as padded Base64 text.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }
}
