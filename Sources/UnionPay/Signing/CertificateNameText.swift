import Foundation
import SwiftASN1
import X509

/// The text of the names in certificates, whatever string type they are written in.
///
/// swift-certificates decodes UTF8String, PrintableString and IA5String and leaves the other
/// string types as `ASN1Any` (printed `ASN1Any([20, …])`); UnionPay's test certificates (CFCA's)
/// write their CN as a T61String. The owner field is read as UnionPay's SDKs read it: a T61String
/// byte by byte as ISO 8859-1 (BouncyCastle's `ASN1T61String.getString`, OpenSSL's
/// `ASN1_STRING_to_UTF8` under PHP's `openssl_x509_parse`); messages show a T61String whose bytes
/// are UTF-8 as that text, which is what its writer meant.
enum CertificateNameText {
    /// The text of `value` as UnionPay's SDKs read it; `nil` when it is not a string.
    static func sdkText(_ value: RelativeDistinguishedName.Attribute.Value) -> String? {
        text(value, t61AsUTF8: false)
    }

    /// The text of `value` for a person: as ``sdkText(_:)``, but a T61String holding UTF-8 as that
    /// text.
    static func readableText(_ value: RelativeDistinguishedName.Attribute.Value) -> String? {
        text(value, t61AsUTF8: true)
    }

    /// `name` as swift-certificates prints it (`CN=…,O=…,C=…`), with every string value as text
    /// (``readableText(_:)``) and control characters escaped as `\XX` (RFC 4514).
    static func describe(_ name: DistinguishedName) -> String {
        name.reversed().map { rdn in
            rdn.map { attribute in
                guard String(attribute.value) == nil, let text = readableText(attribute.value) else {
                    return String(describing: attribute)
                }
                let shown = RelativeDistinguishedName.Attribute(type: attribute.type, utf8String: text)
                return escapingControls(String(describing: shown))
            }.joined(separator: "+")
        }.joined(separator: ",")
    }

    static func text(_ value: RelativeDistinguishedName.Attribute.Value, t61AsUTF8: Bool) -> String? {
        if let decoded = String(value) { return decoded }
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(ASN1Any(value))) != nil, let node = try? DER.parse(serializer.serializedBytes),
            node.identifier.tagClass == .universal, case .primitive(let content) = node.content
        else { return nil }
        let bytes = Array(content)
        switch node.identifier.tagNumber {
        case 20:  // T61String (TeletexString)
            if t61AsUTF8, let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
            return latin1(bytes)
        case 18, 21, 25, 26, 27:  // NumericString, VideotexString, GraphicString, VisibleString, GeneralString
            return latin1(bytes)
        case 28:  // UniversalString
            return String(bytes: bytes, encoding: .utf32BigEndian)
        case 30:  // BMPString
            return String(bytes: bytes, encoding: .utf16BigEndian)
        default:
            return nil
        }
    }

    static func latin1(_ bytes: [UInt8]) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    static func escapingControls(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value) {
                out += "\\" + String(format: "%02X", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
