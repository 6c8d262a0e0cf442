/// The sessions a page constructed, by their number: 1 for the first, as the page, the events
/// and the public API count them. The one place that turns a number into a position.
struct SessionRecords: Sendable {
    private var records: [SessionRecord] = []

    /// How many sessions were constructed.
    var count: Int { records.count }

    /// The numbers of the sessions, in order.
    var numbers: Range<Int> { 1..<(records.count + 1) }

    /// Whether session `number` exists.
    func contains(_ number: Int) -> Bool { number >= 1 && number <= records.count }

    /// Whether a session other than `number` satisfies `predicate`.
    func contains(otherThan number: Int, where predicate: (SessionRecord) -> Bool) -> Bool {
        records.indices.contains { $0 + 1 != number && predicate(records[$0]) }
    }

    /// Whether any session satisfies `predicate`.
    func contains(where predicate: (SessionRecord) -> Bool) -> Bool { records.contains(where: predicate) }

    /// Session `number` (which exists).
    subscript(number: Int) -> SessionRecord {
        get { records[number - 1] }
        set { records[number - 1] = newValue }
    }

    /// Adds a session and returns its number.
    mutating func append(_ record: SessionRecord) -> Int {
        records.append(record)
        return records.count
    }
}
