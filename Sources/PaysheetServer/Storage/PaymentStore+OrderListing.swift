import PaysheetPayments
import Foundation

/// Which orders a listing (`GET /v1/orders`) wants: all by default.
struct OrderFilter: Sendable, Equatable {
    /// Only orders in this status.
    var status: OrderStatus?
    /// Only orders created at or after this instant (to the second).
    var createdFrom: Date?
    /// Only orders created before this instant (to the second).
    var createdTo: Date?
    /// Only orders older than this order (the previous page's last).
    var before: String?
}

extension PaymentStore {
    /// At most `limit` orders that `filter` wants, newest first.
    func orders(_ filter: OrderFilter, limit: Int) async throws -> [OrderRecord] {
        var conditions: [String] = []
        var binds: [SQLValue] = []
        func bind(_ value: SQLValue) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        if let status = filter.status { conditions.append("status = " + bind(.text(status.rawValue))) }
        if let from = filter.createdFrom {
            conditions.append("created_at >= " + bind(.text(PaymentStore.timestamp(from))))
        }
        if let to = filter.createdTo { conditions.append("created_at < " + bind(.text(PaymentStore.timestamp(to)))) }
        if let before = filter.before, let anchor = try await order(before) {
            let t = bind(.text(PaymentStore.timestamp(anchor.createdAt)))
            let i = bind(.text(anchor.id))
            conditions.append("(created_at < \(t) OR (created_at = \(t) AND id < \(i)))")
        }
        var sql = "SELECT body FROM orders"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY orders.created_at DESC, orders.id DESC LIMIT " + bind(.int(limit))
        return try await database.read(sql, binds).map { try $0.record(OrderRecord.self, "body") }
    }
}
