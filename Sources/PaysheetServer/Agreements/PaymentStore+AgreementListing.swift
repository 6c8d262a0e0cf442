import PaysheetPayments
import Foundation

extension PaymentStore {
    /// At most `limit` agreements, newest first; after `before` (an agreement's id: the previous
    /// page's last) when given.
    func agreements(before: String?, limit: Int) async throws -> [AgreementRecord] {
        var sql = "SELECT body FROM agreements"
        var binds: [SQLValue] = []
        if let before, let anchor = try await agreement(before) {
            binds = [.int(PaymentStore.ms(anchor.startedAt)), .text(anchor.id)]
            sql += " WHERE (created_ms < $1 OR (created_ms = $1 AND id < $2))"
        }
        binds.append(.int(limit))
        sql += " ORDER BY agreements.created_ms DESC, agreements.id DESC LIMIT $\(binds.count)"
        return try await database.read(sql, binds).map { try $0.record(AgreementRecord.self, "body") }
    }
}
