import Crypto
import _CryptoExtras
import Foundation
import NIOConcurrencyHelpers
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
        let padding = Self.nonzeroRandomBytes(k - message.count - 3)
        block.replaceSubrange(2..<(2 + padding.count), with: padding)
        block.replaceSubrange((k - message.count)..<k, with: message)
        return Data(modulus.power(block, exponent)).base64EncodedString()
    }

    /// `count` random bytes, none of them zero (PKCS #1 v1.5's padding string), from BoringSSL's
    /// generator in one draw or a few (a byte at a time from the system's cost a system call each).
    static func nonzeroRandomBytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            let draw = SymmetricKey(size: SymmetricKeySize(bitCount: 8 * (count - out.count + 8)))
            draw.withUnsafeBytes { bytes in
                for byte in bytes where byte != 0 && out.count < count { out.append(byte) }
            }
        }
        return out
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

/// Arithmetic modulo an odd RSA modulus in Montgomery form (64-bit limbs, least significant
/// first): what the public-key operation `m^e mod n` needs, and no more. Its sequence of
/// multiplications depends only on the public exponent, and each multiplication's final
/// subtraction is always done and kept or dropped by a mask, so that no branch in the source
/// depends on the message (the card data); the machine code was not inspected.
struct Montgomery: Sendable {
    let n: [UInt64]
    /// −n⁻¹ mod 2⁶⁴.
    let n0inv: UInt64
    /// R² mod n (R = 2^(64k)).
    let r2: [UInt64]
    let byteCount: Int

    init?(modulus bytes: [UInt8]) {
        let trimmed = Array(bytes.drop(while: { $0 == 0 }))
        guard trimmed.count >= 64, let last = trimmed.last, last & 1 == 1 else { return nil }
        byteCount = trimmed.count
        n = Self.limbs(trimmed, count: (trimmed.count + 7) / 8)
        // n⁻¹ mod 2⁶⁴ by Newton's iteration (each step doubles the correct low bits: 1, 2, 4, …, 64).
        var inverse: UInt64 = 1
        for _ in 0..<6 { inverse = inverse &* (2 &- n[0] &* inverse) }
        n0inv = 0 &- inverse
        // R² mod n: 1 doubled 2 · 64k times, reduced as it goes.
        var r = [UInt64](repeating: 0, count: n.count)
        r[0] = 1
        for _ in 0..<(128 * n.count) { Self.double(&r, n) }
        r2 = r
    }

    /// Big-endian `bytes` as `count` little-endian limbs.
    static func limbs(_ bytes: [UInt8], count: Int) -> [UInt64] {
        var out = [UInt64](repeating: 0, count: count)
        for (i, byte) in bytes.reversed().enumerated() where i / 8 < count {
            out[i / 8] |= UInt64(byte) << (8 * UInt64(i % 8))
        }
        return out
    }

    /// `a` = 2a mod n (`a` < n).
    static func double(_ a: inout [UInt64], _ n: [UInt64]) {
        var carry: UInt64 = 0
        for i in 0..<a.count {
            let next = a[i] >> 63
            a[i] = a[i] << 1 | carry
            carry = next
        }
        if carry == 1 || !less(a, n) { subtract(&a, n) }
    }

    static func less(_ a: [UInt64], _ b: [UInt64]) -> Bool {
        for i in stride(from: a.count - 1, through: 0, by: -1) where a[i] != b[i] { return a[i] < b[i] }
        return false
    }

    /// `a` −= `b`, modulo 2^(64k), without a branch on the values; returns the borrow out of the
    /// top limb (1 when `a` < `b`).
    @discardableResult
    static func subtract(_ a: inout [UInt64], _ b: [UInt64]) -> UInt64 {
        var borrow: UInt64 = 0
        for index in 0..<a.count {
            let (difference1, borrow1) = a[index].subtractingReportingOverflow(b[index])
            let (difference2, borrow2) = difference1.subtractingReportingOverflow(borrow)
            a[index] = difference2
            borrow = bit(borrow1) | bit(borrow2)
        }
        return borrow
    }

    /// a · b · R⁻¹ mod n (CIOS: multiplication and reduction interleaved, one limb of `b` at a time).
    func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        let k = n.count
        var t = [UInt64](repeating: 0, count: k + 2)
        t.withUnsafeMutableBufferPointer { t in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    n.withUnsafeBufferPointer { n in
                        for i in 0..<k {
                            // t += a · b[i]
                            var carry: UInt64 = 0
                            let bi = b[i]
                            for j in 0..<k {
                                let (high, low) = a[j].multipliedFullWidth(by: bi)
                                let (sum1, c1) = low.addingReportingOverflow(t[j])
                                let (sum2, c2) = sum1.addingReportingOverflow(carry)
                                t[j] = sum2
                                carry = high &+ Self.bit(c1) &+ Self.bit(c2)
                            }
                            let (top, c3) = t[k].addingReportingOverflow(carry)
                            t[k] = top
                            t[k + 1] = Self.bit(c3)
                            // t = (t + m · n) / 2⁶⁴, m chosen so that the low limb becomes 0.
                            let m = t[0] &* n0inv
                            let (high0, low0) = m.multipliedFullWidth(by: n[0])
                            carry = high0 &+ Self.bit(low0.addingReportingOverflow(t[0]).overflow)
                            for j in 1..<k {
                                let (high, low) = m.multipliedFullWidth(by: n[j])
                                let (sum1, c1) = low.addingReportingOverflow(t[j])
                                let (sum2, c2) = sum1.addingReportingOverflow(carry)
                                t[j - 1] = sum2
                                carry = high &+ Self.bit(c1) &+ Self.bit(c2)
                            }
                            let (last, c4) = t[k].addingReportingOverflow(carry)
                            t[k - 1] = last
                            t[k] = t[k + 1] &+ Self.bit(c4)
                        }
                    }
                }
            }
        }
        // The final subtraction, done always and chosen by a mask rather than a branch, so that the
        // time taken does not depend on the value: t < 2n, and t ≥ n exactly when t's top limb is
        // set or t − n does not borrow.
        var result = Array(t[0..<k])
        let borrow = Self.subtract(&result, n)
        let keepDifference = 0 &- ((t[k] | (borrow ^ 1)) & 1)  // all ones, or all zeros
        for j in 0..<k { result[j] = (result[j] & keepDifference) | (t[j] & ~keepDifference) }
        return result
    }

    /// A carry as a number, without a branch (`c ? 1 : 0` became a conditional jump in the inner
    /// loops, whose mispredictions made them five times slower).
    @inline(__always) static func bit(_ carry: Bool) -> UInt64 { UInt64(unsafeBitCast(carry, to: UInt8.self)) }

    /// `base`^`exponent` mod n, both big-endian bytes; the result big-endian, `byteCount` long.
    func power(_ base: [UInt8], _ exponent: [UInt8]) -> [UInt8] {
        var one = [UInt64](repeating: 0, count: n.count)
        one[0] = 1
        let m = multiply(Self.limbs(base, count: n.count), r2)  // base · R mod n
        var x: [UInt64]?  // nil until the exponent's first 1 bit: its leading zeros cost nothing
        for byte in exponent {
            for bit in stride(from: 7, through: 0, by: -1) {
                if let current = x { x = multiply(current, current) }
                if (byte >> UInt8(bit)) & 1 == 1 { x = x.map { multiply($0, m) } ?? m }
            }
        }
        let plain = multiply(x ?? multiply(one, r2), one)  // out of Montgomery form (x⁰ = 1)
        var out = [UInt8](repeating: 0, count: byteCount)
        for i in 0..<byteCount {
            out[byteCount - 1 - i] = UInt8(truncatingIfNeeded: plain[i / 8] >> (8 * UInt64(i % 8)))
        }
        return out
    }
}

/// The encryption certificate a client uses now; replaced when UnionPay rotates it (both are
/// valid for a month meanwhile).
public final class EncryptionCertificate: Sendable {
    private let encryptor: NIOLockedValueBox<SensitiveDataEncryptor?>

    init(_ encryptor: SensitiveDataEncryptor?) { self.encryptor = NIOLockedValueBox(encryptor) }

    /// The encryptor in use (`nil`: card data goes in clear).
    public var current: SensitiveDataEncryptor? { encryptor.withLockedValue { $0 } }

    func replace(with new: SensitiveDataEncryptor) { encryptor.withLockedValue { $0 = new } }
}
