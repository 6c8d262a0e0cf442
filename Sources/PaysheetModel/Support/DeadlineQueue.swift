/// Deadlines by id, in the order they fall due: the core of ``Deadlines``, without a clock or a
/// task (time is an input).
///
/// It says when the one timer that serves them all must be set: ``add(_:at:)`` answers an
/// instant only when the new deadline falls before the one the timer is set for, and
/// ``expire(at:)`` answers the next. A removed deadline stays in the heap until an expiry pops
/// it or the heap is rebuilt (when dead entries outnumber the live ones), so removal is a
/// dictionary's; the timer set for a removed deadline still goes off, finds nothing due, and is
/// set for the next.
package struct DeadlineQueue<Instant: Comparable & Sendable>: Sendable {
    /// Every added deadline not yet popped, removed ones included: a binary min-heap on `at`.
    private var heap: [(at: Instant, id: UInt64)] = []
    /// The deadlines neither due nor removed.
    private var live: [UInt64: Instant] = [:]
    /// The instant the timer is set for (the earliest deadline when it was set), if it is set.
    package private(set) var armed: Instant?

    package init() {}

    /// How many deadlines are neither due nor removed.
    package var count: Int { live.count }

    /// Adds `id`, due `at`; returns the instant to set the timer for when it must be set anew
    /// (nothing set, or set for later), else `nil`.
    package mutating func add(_ id: UInt64, at: Instant) -> Instant? {
        assert(live[id] == nil, "deadline \(id) added twice")
        live[id] = at
        push((at, id))
        if heap.count > 64, heap.count > 2 * live.count { rebuild() }
        if let armed, armed <= at { return nil }
        armed = at
        return at
    }

    /// Removes `id`; `true` when it was neither due nor removed before.
    @discardableResult
    package mutating func remove(_ id: UInt64) -> Bool {
        live.removeValue(forKey: id) != nil
    }

    /// The timer went off at `now`: the ids due by then, earliest first, and the instant to set
    /// the timer for next (`nil`: no deadline is left, the timer stays unset).
    package mutating func expire(at now: Instant) -> (due: [UInt64], next: Instant?) {
        var due: [UInt64] = []
        while let top = heap.first, top.at <= now {
            pop()
            if live.removeValue(forKey: top.id) != nil { due.append(top.id) }
        }
        while let top = heap.first, live[top.id] == nil { pop() }
        armed = heap.first?.at
        return (due, armed)
    }

    // MARK: The heap

    private mutating func push(_ entry: (at: Instant, id: UInt64)) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].at < heap[parent].at else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func pop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(from: 0)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var least = left
            if left + 1 < heap.count, heap[left + 1].at < heap[left].at { least = left + 1 }
            guard heap[least].at < heap[parent].at else { return }
            heap.swapAt(least, parent)
            parent = least
        }
    }

    /// The heap of the live deadlines only (Floyd's construction).
    private mutating func rebuild() {
        heap = live.map { (at: $0.value, id: $0.key) }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }
}
