import PaysheetTokenFormat

/// The merchant keys a server decrypts with, found by a token's `publicKeyHash` so that old and
/// new payment processing certificates work side by side while one is being rotated.
public struct MerchantKeyring: Sendable {
    /// A few keys (one, two while rotating): found by comparing 32 bytes, cheaper than hashing them.
    private var keys: [MerchantKey] = []

    /// A keyring holding `keys`.
    public init(_ keys: [MerchantKey] = []) {
        for key in keys { add(key) }
    }

    /// Adds `key`, replacing any key with the same public key hash.
    public mutating func add(_ key: MerchantKey) {
        if let index = keys.firstIndex(where: { $0.publicKeyHash == key.publicKeyHash }) {
            keys[index] = key
        } else {
            keys.append(key)
        }
    }

    /// The key whose public key hash is `hash`.
    public func key(forPublicKeyHash hash: [UInt8]) -> MerchantKey? {
        keys.first { $0.publicKeyHash == hash }
    }

    /// The number of keys.
    public var count: Int { keys.count }

    /// The Base64 public key hashes of the keys, sorted, for messages.
    public var publicKeyHashes: [String] { keys.map { Base64.encode($0.publicKeyHash) }.sorted() }
}
