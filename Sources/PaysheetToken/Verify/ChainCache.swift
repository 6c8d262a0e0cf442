import Foundation

/// Validated signing chains by their exact bytes, so that verifying a token from a known signer
/// costs one signature check, not a chain walk. An entry holds the interval in which every
/// certificate of the chain is valid; a verification time outside it validates the chain again.
final class ChainCache: @unchecked Sendable {
    // `@unchecked`: `entries` is only touched under `lock` (`Synchronization.Mutex` needs macOS 15,
    // the package supports macOS 14, and PaysheetToken depends on nothing that has a checked lock).
    struct Entry {
        let key: SignerKey
        let notBefore: Date
        let notAfter: Date
        let signer: String
    }

    /// A chain's bytes (its certificates, then the signer's identifier), compared whole but hashed
    /// by their length and last 64 bytes (the signer identifier's end and the certificates'
    /// signatures, which differ between chains): hashing every byte of a 2.5 kB chain with the
    /// standard library's SipHash cost about 2 µs per token, a twentieth of the whole verification.
    struct Key: Hashable {
        let bytes: [UInt8]
        func hash(into hasher: inout Hasher) {
            hasher.combine(bytes.count)
            bytes.suffix(64).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        static func == (a: Key, b: Key) -> Bool { a.bytes == b.bytes }
    }

    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private let capacity: Int

    init(capacity: Int = 64) { self.capacity = capacity }

    func entry(for key: [UInt8], at time: Date) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[Key(bytes: key)], entry.notBefore <= time, time <= entry.notAfter else { return nil }
        return entry
    }

    func store(_ entry: Entry, for key: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[Key(bytes: key)] = entry
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}
