@preconcurrency import Crypto

/// Apple's key derivation for EC_v1: NIST SP 800-56A §5.8.1 single-step KDF with SHA-256, one
/// round: `SHA-256(00000001 ‖ Z ‖ 0x0D ‖ "id-aes256-GCM" ‖ "Apple" ‖ SHA-256(merchant id))`.
/// `Z` is the full 32-byte shared secret, leading zero bytes included.
package enum AppleKDF {
    private static let algorithmAndPartyU: [UInt8] = [0x0D] + Array("id-aes256-GCM".utf8) + Array("Apple".utf8)

    package static func symmetricKey(sharedSecret: SharedSecret, merchantIdentifierHash: [UInt8]) -> SymmetricKey {
        var hasher = SHA256()
        hasher.update(data: [0, 0, 0, 1] as [UInt8])
        sharedSecret.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(data: algorithmAndPartyU)
        hasher.update(data: merchantIdentifierHash)
        return SymmetricKey(data: hasher.finalize())
    }
}
