import Crypto
import _CryptoExtras
import Foundation
import X509

/// UnionPay's encryption of sensitive fields (the card number `accNo`, and the `encryptedInfo`
/// of composite fields): RSA with PKCS #1 v1.5 padding under UnionPay's encryption certificate,
/// Base64, the certificate's serial in decimal sent as `encryptCertId` — what the SDKs'
/// `encryptData` (`openssl_public_encrypt`, `RSA/ECB/PKCS1Padding`) produce.
///
/// swift-crypto offers RSA encryption with OAEP only, so the public-key operation (`m^e mod n`,
/// a few Montgomery multiplications) is done here; the result is checked against BoringSSL's
/// private-key operation in the tests and against Python's `cryptography` in the interop test.
public struct SensitiveDataEncryptor: Sendable {
    /// `encryptCertId`: the encryption certificate's serial in decimal.
    public let certId: String
    let modulus: Montgomery
    let exponent: [UInt8]

    /// An encryptor for the RSA key of `certificate` (UnionPay's `acp_prod_enc.cer`, or the sandbox's).
    public init(certificate: Certificate) throws(ACPError) {
        guard let key = _RSA.Signing.PublicKey(certificate.publicKey), let primitives = try? key.getKeyPrimitives()
        else {
            throw ACPError(.credentials, "the encryption certificate does not hold an RSA key")
        }
        guard let modulus = Montgomery(modulus: [UInt8](primitives.modulus)) else {
            throw ACPError(.credentials, "the encryption certificate's RSA modulus is unusable")
        }
        self.modulus = modulus
        self.exponent = [UInt8](primitives.publicExponent)
        self.certId = ACPSigner.decimal(certificate.serialNumber.bytes[...])
    }

    /// `text` encrypted in blocks of at most `modulus bytes − 11` bytes, each Base64, joined by `.`.
    func encryptLong(_ text: String) -> String {
        let bytes = [UInt8](text.utf8)
        let size = modulus.byteCount - 11
        guard bytes.count > size else { return encrypt(text) }
        return stride(from: 0, to: bytes.count, by: size).map { start in
            encrypt(bytes: Array(bytes[start..<min(bytes.count, start + size)]))
        }.joined(separator: ".")
    }

    /// `text` encrypted and Base64-encoded (at most one block: `modulus bytes − 11` bytes).
    public func encrypt(_ text: String) -> String { encrypt(bytes: [UInt8](text.utf8)) }

    func encrypt(bytes message: [UInt8]) -> String {
        let k = modulus.byteCount
        precondition(message.count <= k - 11, "a sensitive field is longer than one RSA block")
        var block = [UInt8](repeating: 0, count: k)
        block[1] = 2
        var generator = SystemRandomNumberGenerator()
        for i in 2..<(k - message.count - 1) { block[i] = UInt8.random(in: 1...255, using: &generator) }
        block.replaceSubrange((k - message.count)..<k, with: message)
        return Data(modulus.power(block, exponent)).base64EncodedString()
    }
}

/// The gateway's side of ``SensitiveDataEncryptor``: its encryption key's private operation
/// (BoringSSL's raw RSA) and the PKCS #1 v1.5 unpadding.
public struct SensitiveDataDecryptor: Sendable {
    /// `encryptCertId` of the certificate whose key this is.
    public let certId: String
    let key: _RSA.BlindSigning.PrivateKey<SHA384>

    /// A decryptor with the key of `credentials`.
    public init(credentials: ACPCredentials) throws(ACPError) {
        guard
            let key = try? _RSA.BlindSigning.PrivateKey<SHA384>(
                derRepresentation: credentials.privateKey.derRepresentation
            )
        else {
            throw ACPError(.credentials, "the encryption key is not usable for RSA decryption")
        }
        self.key = key
        self.certId = ACPSigner.decimal(credentials.certificate.serialNumber.bytes[...])
    }

    /// The text of ``SensitiveDataEncryptor/encryptLong(_:)``'s pieces.
    func decryptLong(_ text: String) throws(ACPError) -> String {
        var bytes: [UInt8] = []
        for piece in text.split(separator: ".", omittingEmptySubsequences: false) {
            bytes += try decryptBytes(String(piece))
        }
        guard let out = String(bytes: bytes, encoding: .utf8) else {
            throw ACPError(.malformed, "an encrypted field is not UTF-8 text")
        }
        return out
    }

    /// The text of a Base64 ciphertext; one error for every way it can be wrong.
    public func decrypt(_ base64: String) throws(ACPError) -> String {
        guard let text = String(bytes: try decryptBytes(base64), encoding: .utf8) else {
            throw ACPError(.malformed, "an encrypted field is not UTF-8 text")
        }
        return text
    }

    func decryptBytes(_ base64: String) throws(ACPError) -> [UInt8] {
        let failure = ACPError(
            .malformed,
            "an encrypted field does not decrypt with the encryption certificate \(certId)"
        )
        guard let cipher = Data(base64Encoded: base64), let raw = try? key.blindSignature(for: cipher) else {
            throw failure
        }
        let block = raw.withUnsafeBytes { [UInt8]($0) }
        guard block.count > 11, block[0] == 0, block[1] == 2, let end = block[2...].firstIndex(of: 0), end >= 10 else {
            throw failure
        }
        return Array(block[(end + 1)...])
    }
}

/// Arithmetic modulo an odd RSA modulus in Montgomery form (32-bit limbs, least significant first).
struct Montgomery: Sendable {
    let n: [UInt32]
    let n0inv: UInt32
    let r2: [UInt32]
    let byteCount: Int

    init?(modulus bytes: [UInt8]) {
        let trimmed = Array(bytes.drop(while: { $0 == 0 }))
        guard trimmed.count >= 64, trimmed.last! & 1 == 1 else { return nil }
        byteCount = trimmed.count
        n = Self.limbs(trimmed, count: (trimmed.count + 3) / 4)
        // -n^-1 mod 2^32 by Newton's iteration.
        var inverse: UInt32 = 1
        for _ in 0..<5 { inverse = inverse &* (2 &- n[0] &* inverse) }
        n0inv = 0 &- inverse
        // R^2 mod n (R = 2^(32k)): 1 doubled 2 * 32k times, reduced as it goes.
        var r = [UInt32](repeating: 0, count: n.count)
        r[0] = 1
        for _ in 0..<(64 * n.count) { r = Self.doubled(r, n) }
        r2 = r
    }

    static func limbs(_ bytes: [UInt8], count: Int) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: count)
        for (i, byte) in bytes.reversed().enumerated() where i / 4 < count {
            out[i / 4] |= UInt32(byte) << (8 * UInt32(i % 4))
        }
        return out
    }

    static func doubled(_ a: [UInt32], _ n: [UInt32]) -> [UInt32] {
        var out = a
        var carry: UInt32 = 0
        for i in 0..<a.count {
            out[i] = a[i] << 1 | carry
            carry = a[i] >> 31
        }
        if carry == 1 || !less(out, n) { subtract(&out, n) }
        return out
    }

    static func less(_ a: [UInt32], _ b: [UInt32]) -> Bool {
        for i in stride(from: a.count - 1, through: 0, by: -1) where a[i] != b[i] { return a[i] < b[i] }
        return false
    }

    static func subtract(_ a: inout [UInt32], _ b: [UInt32]) {
        var borrow: UInt64 = 0
        for i in 0..<a.count {
            let d = UInt64(a[i]) &- UInt64(b[i]) &- borrow
            a[i] = UInt32(truncatingIfNeeded: d)
            borrow = d >> 63
        }
    }

    /// a · b · R⁻¹ mod n (CIOS).
    func multiply(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        let k = n.count
        var t = [UInt32](repeating: 0, count: k + 2)
        for i in 0..<k {
            var carry: UInt64 = 0
            for j in 0..<k {
                let s = UInt64(t[j]) + UInt64(a[j]) * UInt64(b[i]) + carry
                t[j] = UInt32(truncatingIfNeeded: s)
                carry = s >> 32
            }
            var s = UInt64(t[k]) + carry
            t[k] = UInt32(truncatingIfNeeded: s)
            t[k + 1] = UInt32(s >> 32)
            let m = t[0] &* n0inv
            s = UInt64(t[0]) + UInt64(m) * UInt64(n[0])
            carry = s >> 32
            for j in 1..<k {
                s = UInt64(t[j]) + UInt64(m) * UInt64(n[j]) + carry
                t[j - 1] = UInt32(truncatingIfNeeded: s)
                carry = s >> 32
            }
            s = UInt64(t[k]) + carry
            t[k - 1] = UInt32(truncatingIfNeeded: s)
            t[k] = t[k + 1] + UInt32(s >> 32)
        }
        var result = Array(t[0..<k])
        if t[k] != 0 || !Self.less(result, n) { Self.subtract(&result, n) }
        return result
    }

    /// `base`^`exponent` mod n, both big-endian bytes; the result big-endian, `byteCount` long.
    func power(_ base: [UInt8], _ exponent: [UInt8]) -> [UInt8] {
        let one = [UInt32](repeating: 0, count: n.count).enumerated().map { $0.offset == 0 ? UInt32(1) : 0 }
        let m = multiply(Self.limbs(base, count: n.count), r2)
        var x = multiply(one, r2)
        for byte in exponent {
            for bit in stride(from: 7, through: 0, by: -1) {
                x = multiply(x, x)
                if (byte >> UInt8(bit)) & 1 == 1 { x = multiply(x, m) }
            }
        }
        let plain = multiply(x, one)
        var out = [UInt8](repeating: 0, count: byteCount)
        for i in 0..<byteCount {
            out[byteCount - 1 - i] = UInt8(truncatingIfNeeded: plain[i / 4] >> (8 * UInt32(i % 4)))
        }
        return out
    }
}

/// The encryption certificate a client uses now; replaced when UnionPay rotates it (both are
/// valid for a month meanwhile).
public final class EncryptionCertificate: @unchecked Sendable {
    private let lock = NSLock()
    private var encryptor: SensitiveDataEncryptor?

    init(_ encryptor: SensitiveDataEncryptor?) { self.encryptor = encryptor }

    /// The encryptor in use (`nil`: card data goes in clear).
    public var current: SensitiveDataEncryptor? { lock.withLock { encryptor } }

    func replace(with new: SensitiveDataEncryptor) { lock.withLock { encryptor = new } }
}
