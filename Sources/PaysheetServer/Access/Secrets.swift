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
        var generator = SystemRandomNumberGenerator()
        let raw = (0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return prefix + base64url(raw)
    }

    /// `count` random hexadecimal digits.
    package static func hex(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let raw = (0..<((count + 1) / 2)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return String(Hex.encode(raw).prefix(count))
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/",
            with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }

    /// The stored form of `secret`: SHA-256, hexadecimal.
    static func hash(_ secret: String) -> String { Hex.encode(SHA256.hash(data: Data(secret.utf8))) }

    /// Whether `secret` hashes to `storedHash`, comparing every byte whatever the first difference.
    static func matches(_ secret: String, storedHash: String) -> Bool {
        constantTimeEqual(Array(hash(secret).utf8), Array(storedHash.utf8))
    }
}
