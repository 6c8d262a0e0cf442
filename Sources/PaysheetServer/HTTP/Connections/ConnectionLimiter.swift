import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Admits connections to one HTTP server: at most ``Limits/total`` open at once and at most
/// ``Limits/perAddress`` from one client address. It is shared by every connection of the server
/// (thread-safe; each call takes one lock).
///
/// A connection over the per-address cap is refused. At the total cap, a new connection evicts
/// the open connection that has waited longest without a request in progress (an idle keep-alive
/// connection, or one still sending its head: neither has anything of the server's to lose);
/// when every open connection is in a request, the new one is refused. So an attacker's idle and
/// byte-a-second connections never keep a new client out, and what the server holds is bounded.
/// Refusals are logged at most once a second, with the number since the last line.
final class ConnectionLimiter: Sendable {
    /// The caps.
    struct Limits: Sendable, Equatable {
        var total: Int
        var perAddress: Int
    }

    /// Why a connection was refused.
    enum Refusal: String, Sendable, Equatable {
        case perAddress = "too many connections from this address"
        case full = "too many connections in requests"
    }

    /// An admitted connection's handle.
    struct Ticket: Sendable, Hashable {
        let id: Int
        let address: String
    }

    private struct Entry {
        let address: String
        let channel: any Channel
        var evictable: Bool
        var since: NIODeadline
    }

    private struct State {
        var nextId = 0
        var entries: [Int: Entry] = [:]
        var perAddress: [String: Int] = [:]
        var refusedSinceLog = 0
        var lastLog: NIODeadline?
        var evicted = 0
    }

    let limits: Limits
    let name: String
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    init(limits: Limits, name: String, logger: Logger) {
        self.limits = limits
        self.name = name
        self.logger = logger
    }

    /// Open connections (admitted and not yet closed or evicted).
    var openCount: Int { state.withLockedValue { $0.entries.count } }

    /// Connections evicted so far to make room for new ones.
    var evictedCount: Int { state.withLockedValue { $0.evicted } }

    /// Admits `channel` from `address` at `now`, or says why not. At the total cap the longest
    /// waiting evictable connection is closed to make room.
    func admit(_ channel: any Channel, address: String, now: NIODeadline) -> Result<Ticket, RefusalError> {
        var victim: (any Channel)?
        var logLine: String?
        let result: Result<Ticket, RefusalError> = state.withLockedValue { state in
            func refuse(_ refusal: Refusal) -> Result<Ticket, RefusalError> {
                state.refusedSinceLog += 1
                if state.lastLog.map({ now - $0 >= .seconds(1) }) ?? true {
                    logLine =
                        "\(name): refused \(state.refusedSinceLog) connection(s) since the last line; "
                        + "latest from \(address): \(refusal.rawValue) (open \(state.entries.count), caps "
                        + "\(limits.total) total and \(limits.perAddress) per address)"
                    state.lastLog = now
                    state.refusedSinceLog = 0
                }
                return .failure(RefusalError(refusal: refusal))
            }
            if state.perAddress[address, default: 0] >= limits.perAddress { return refuse(.perAddress) }
            if state.entries.count >= limits.total {
                let oldest = state.entries.filter { $0.value.evictable }.min { $0.value.since < $1.value.since }
                guard let (id, entry) = oldest else { return refuse(.full) }
                victim = entry.channel
                Self.remove(id, from: &state)
                state.evicted += 1
            }
            let id = state.nextId
            state.nextId += 1
            state.entries[id] = Entry(address: address, channel: channel, evictable: true, since: now)
            state.perAddress[address, default: 0] += 1
            return .success(Ticket(id: id, address: address))
        }
        victim?.close(promise: nil)
        if let logLine { logger.warning("\(logLine)") }
        return result
    }

    /// The connection's evictability changed at `now` (see ``ConnectionDeadlines/isEvictable``).
    func update(_ ticket: Ticket, evictable: Bool, now: NIODeadline) {
        state.withLockedValue { state in
            guard var entry = state.entries[ticket.id], entry.evictable != evictable else { return }
            entry.evictable = evictable
            entry.since = now
            state.entries[ticket.id] = entry
        }
    }

    /// The connection closed (a no-op when it was evicted).
    func release(_ ticket: Ticket) {
        state.withLockedValue { state in Self.remove(ticket.id, from: &state) }
    }

    private static func remove(_ id: Int, from state: inout State) {
        guard let entry = state.entries.removeValue(forKey: id) else { return }
        let left = state.perAddress[entry.address, default: 1] - 1
        state.perAddress[entry.address] = left > 0 ? left : nil
    }

    /// A refused connection's error.
    struct RefusalError: Error, Equatable {
        let refusal: Refusal
    }
}
