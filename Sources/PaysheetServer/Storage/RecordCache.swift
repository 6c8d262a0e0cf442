import Foundation
import NIOConcurrencyHelpers

/// Stored JSON bodies and the values they decode to, for the bodies this process wrote or read
/// lately: a payment or order read back after its own write is not decoded again.
///
/// Decoding is a pure function of the text, so a hit is always right, whoever wrote the row; the
/// cache only saves work (Foundation's `JSONDecoder` was about a tenth of the server's CPU per
/// payment). Bounded in count and in bytes of text held: when either is full, it starts over.
final class RecordCache: Sendable {
    private struct Key: Hashable {
        let type: ObjectIdentifier
        let text: String
    }

    private struct Entries {
        var values: [Key: any Sendable] = [:]
        var bytes = 0
    }

    private let entries = NIOLockedValueBox(Entries())
    private let capacity: Int
    private let byteCapacity: Int

    /// A cache of at most `capacity` bodies holding at most `byteCapacity` bytes of text (the
    /// decoded values are of the same order).
    init(capacity: Int = 4096, byteCapacity: Int = 16 << 20) {
        self.capacity = capacity
        self.byteCapacity = byteCapacity
    }

    /// The value `text` decoded to, if it is still here.
    func value<T: Sendable>(_ type: T.Type, for text: String) -> T? {
        entries.withLockedValue { $0.values[Key(type: ObjectIdentifier(type), text: text)] } as? T
    }

    /// Remembers that `text` is `value`.
    func remember<T: Sendable>(_ value: T, for text: String) {
        let size = text.utf8.count
        guard size <= byteCapacity / 4 else { return }  // a body that large is not worth keeping
        entries.withLockedValue { entries in
            if entries.values.count >= capacity || entries.bytes + size > byteCapacity {
                entries.values.removeAll(keepingCapacity: true)
                entries.bytes = 0
            }
            if entries.values.updateValue(value, forKey: Key(type: ObjectIdentifier(T.self), text: text)) == nil {
                entries.bytes += size
            }
        }
    }

    /// How many bodies it holds.
    var count: Int { entries.withLockedValue { $0.values.count } }

    /// How many bytes of text it holds.
    var byteCount: Int { entries.withLockedValue { $0.bytes } }
}
