import PaysheetPayments
import Foundation

extension PaymentStore {
    /// At most `limit` stored reconciliations, the latest clearing day first; only days before
    /// `before` (`YYYYMMDD`) when given.
    func reconciliations(before: String?, limit: Int) async throws -> [ReconciliationReport] {
        var sql = "SELECT body FROM reconciliations"
        var binds: [SQLValue] = []
        if let before {
            binds.append(.text(before))
            sql += " WHERE day < $1"
        }
        binds.append(.int(limit))
        sql += " ORDER BY reconciliations.day DESC LIMIT $\(binds.count)"
        return try await database.read(sql, binds).map { try $0.record(ReconciliationReport.self, "body") }
    }
}
