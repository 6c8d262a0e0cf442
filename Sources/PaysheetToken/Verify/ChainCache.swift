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

    private let lock = NSLock()
    private var entries: [[UInt8]: Entry] = [:]
    private let capacity: Int

    init(capacity: Int = 64) { self.capacity = capacity }

    func entry(for key: [UInt8], at time: Date) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key], entry.notBefore <= time, time <= entry.notAfter else { return nil }
        return entry
    }

    func store(_ entry: Entry, for key: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = entry
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}
