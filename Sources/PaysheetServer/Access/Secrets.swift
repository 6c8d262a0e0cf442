import PaysheetModel
import Crypto
import Foundation
import PaysheetToken
import PaysheetTokenFormat

/// Random secrets, their stored hashes and constant-time comparison.
///
/// A secret is 32 random bytes from the system's generator (256 bits), written as unpadded
/// Base64url after a prefix that says what it is. Only its SHA-256 is stored; since the secret
/// itself carries 256 bits, a fast hash is enough (nothing to guess from the hash).
package enum Secrets {
    /// `prefix` followed by `bytes` random bytes in unpadded Base64url.
    static func make(_ prefix: String, bytes: Int = 32) -> String {
        prefix + base64url(randomBytes(bytes))
    }

    /// `count` random hexadecimal digits.
    package static func hex(_ count: Int) -> String {
        String(Hex.encode(randomBytes((count + 1) / 2)).prefix(count))
    }

    /// `count` bytes from the system's generator, eight at a time (each draw is a system call;
    /// drawing one byte a call made 48 calls a payment).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var out: [UInt8] = []
        out.reserveCapacity(count + 7)
        while out.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { out.append(contentsOf: $0) }
        }
        out.removeLast(out.count - count)
        return out
    }

    /// Unpadded Base64url (RFC 4648 §5) of `bytes`.
    static func base64url(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        for byte in Data(bytes).base64EncodedString().utf8 {
            switch byte {
            case UInt8(ascii: "+"): text.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): text.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: text.append(byte)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The stored form of `secret`: SHA-256, hexadecimal.
    static func hash(_ secret: String) -> String { Hex.encode(SHA256.hash(data: Data(secret.utf8))) }

    /// Whether `secret` hashes to `storedHash`, comparing every byte whatever the first difference.
    static func matches(_ secret: String, storedHash: String) -> Bool {
        constantTimeEqual(Array(hash(secret).utf8), Array(storedHash.utf8))
    }
}
