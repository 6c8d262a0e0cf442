import Foundation

/// Stored JSON bodies and the values they decode to, for the bodies this process wrote or read
/// lately: a payment or order read back after its own write is not decoded again.
///
/// Decoding is a pure function of the text, so a hit is always right, whoever wrote the row; the
/// cache only saves work (Foundation's `JSONDecoder` was about a tenth of the server's CPU per
/// payment). Bounded: when full, it starts over.
final class RecordCache: @unchecked Sendable {
    private struct Key: Hashable {
        let type: ObjectIdentifier
        let text: String
    }

    private let lock = NSLock()
    private var values: [Key: any Sendable] = [:]
    private let capacity: Int

    /// A cache of at most `capacity` bodies.
    init(capacity: Int = 4096) { self.capacity = capacity }

    /// The value `text` decoded to, if it is still here.
    func value<T: Sendable>(_ type: T.Type, for text: String) -> T? {
        lock.withLock { values[Key(type: ObjectIdentifier(type), text: text)] } as? T
    }

    /// Remembers that `text` is `value`.
    func remember<T: Sendable>(_ value: T, for text: String) {
        lock.withLock {
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[Key(type: ObjectIdentifier(T.self), text: text)] = value
        }
    }

    /// How many bodies it holds.
    var count: Int { lock.withLock { values.count } }
}
