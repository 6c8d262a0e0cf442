/// One of swift-crypto's RSA keys, shared between tasks. swift-crypto 4.5.2 declares its signing
/// keys `Sendable` but not its encryption keys, which wrap the same immutable BoringSSL key (each
/// operation makes its own `EVP_PKEY_CTX`, and BoringSSL's RSA keys may be used from several
/// threads at once): the key is only read, never changed, after `init`. (Reading it again from its
/// DER for each use instead cost 2 µs per encryption and 280 µs per decryption.)
final class SharedRSAKey<Key>: @unchecked Sendable {
    let key: Key
    init(_ key: Key) { self.key = key }
}
