import Foundation

/// A merchant API key as stored: never the key itself, only its SHA-256.
public struct APIKeyRecord: Sendable, Equatable, Codable {
    /// The key's public id (`key_` and 16 hexadecimal digits), shown by `paysheet api-key list`.
    public var id: String
    /// A name for people (`checkout back end`, `staff`).
    public var name: String
    /// When it was created.
    public var createdAt: Date
    /// When it was revoked, if it was.
    public var revokedAt: Date?
}

/// Merchant API keys: `psk_`, the key's 16 hexadecimal id digits, `_`, then 256 random bits in
/// Base64url. Only a hash is stored, in the database, so that every server sees every key.
public struct APIKeys: Sendable {
    let store: PaymentStore
    let now: @Sendable () -> Date

    /// The keys of `store`.
    public init(store: PaymentStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    static let prefix = "psk_"

    /// Creates a key named `name`; returns its record and the key, which is never shown again.
    public func create(name: String) async throws -> (record: APIKeyRecord, key: String) {
        let digits = Secrets.hex(16)
        let key = Self.prefix + digits + Secrets.make("_")
        let record = APIKeyRecord(id: "key_" + digits, name: name, createdAt: now(), revokedAt: nil)
        try await store.insertAPIKey(record, hash: Secrets.hash(key))
        return (record, key)
    }

    /// Every key, newest first.
    public func list() async throws -> [APIKeyRecord] { try await store.apiKeys() }

    /// Revokes `id` (`key_…`); `false` when there is no such key or it was revoked already.
    public func revoke(_ id: String) async throws -> Bool { try await store.revokeAPIKey(id, at: now()) }

    /// How many keys are not revoked.
    public func activeCount() async throws -> Int { try await list().filter { $0.revokedAt == nil }.count }

    /// The key record `key` names, when the key is one of ours and not revoked.
    func verify(_ key: String) async throws -> APIKeyRecord? {
        let bytes = Array(key.utf8)
        // psk_ + 16 hex + _ + 43 Base64url characters.
        guard bytes.count == 4 + 16 + 1 + 43, key.hasPrefix(Self.prefix), bytes[20] == UInt8(ascii: "_") else {
            return nil
        }
        let digits = String(decoding: bytes[4..<20], as: UTF8.self)
        guard digits.allSatisfy(\.isHexDigit) else { return nil }
        guard let (record, hash) = try await store.apiKey("key_" + digits), record.revokedAt == nil else { return nil }
        return Secrets.matches(key, storedHash: hash) ? record : nil
    }
}
