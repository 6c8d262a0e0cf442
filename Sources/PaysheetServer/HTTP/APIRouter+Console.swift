import PaysheetPayments
import Foundation
import Hummingbird
import NIOCore

/// The merchant console (`/console`) and the listings it reads. The console is static: anyone may
/// load it, and every call it makes needs the merchant's key.
extension APIRouter {
    /// A request's query (Hummingbird's `Parameters`: names and values as the URI has them).
    typealias Query = Parameters

    /// The console's files (anyone) and the listings of agreements and reconciliations (a merchant key).
    func addConsoleRoutes(_ router: Router<APIRequestContext>) throws {
        for asset in ConsoleAssets.all {
            let body = try ConsoleAssets.load(asset.file)
            let headers = ConsoleAssets.headers(asset.contentType)
            router.get(RouterPath(stringLiteral: asset.path)) { _, _ -> Response in
                Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
            }
        }
        // A merchant key: agreements, newest first.
        router.get("/v1/agreements") { request, _ -> Response in
            _ = try await access.merchant(request)
            let query = request.uri.queryParameters
            let limit = try Self.limit(query)
            let page = try await store.agreements(before: query["before"].map(String.init), limit: limit + 1)
            var views: [AgreementView] = []
            for agreement in page.prefix(limit) { views.append(try await payments.agreementView(agreement)) }
            return try JSONBody.response(
                AgreementListView(agreements: views, next: page.count > limit ? page[limit - 1].id : nil)
            )
        }
        // A merchant key: the stored reconciliations, the latest day first, each in brief.
        router.get("/v1/reconciliations") { request, _ -> Response in
            _ = try await access.merchant(request)
            let query = request.uri.queryParameters
            let limit = try Self.limit(query)
            let before = query["before"].map(String.init)
            if let before, !ReconciliationService.isDay(before) {
                throw APIError.invalid("before", "before is a clearing day YYYYMMDD")
            }
            let page = try await store.reconciliations(before: before, limit: limit + 1)
            return try JSONBody.response(
                ReconciliationListView(
                    reconciliations: page.prefix(limit).map(ReconciliationSummaryView.init),
                    next: page.count > limit ? page[limit - 1].day : nil
                )
            )
        }
    }

    /// `GET /v1/orders` (a merchant key): the orders the query's filters want, newest first.
    func listOrders(_ request: Request) async throws -> Response {
        _ = try await access.merchant(request)
        let query = request.uri.queryParameters
        let limit = try Self.limit(query)
        var filter = try Self.orderFilter(query)
        filter.before = query["before"].map(String.init)
        let page = try await store.orders(filter, limit: limit + 1)
        var views: [OrderView] = []
        for order in page.prefix(limit) {
            views.append(
                try await OrderView.make(order, service: orders, store: store, withRequest: false, for: .merchant)
            )
        }
        return try JSONBody.response(OrderListView(orders: views, next: page.count > limit ? page[limit - 1].id : nil))
    }

    /// The filters of an order listing: `status`, `createdFrom` and `createdTo` (RFC 3339).
    static func orderFilter(_ query: Query) throws -> OrderFilter {
        var filter = OrderFilter()
        if let statusText = query["status"] {
            guard let known = OrderStatus(rawValue: String(statusText)) else {
                throw APIError.invalid(
                    "status",
                    "\(statusText) is not an order status (\(OrderStatus.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            filter.status = known
        }
        filter.createdFrom = try query["createdFrom"].map { try instant($0, field: "createdFrom") }
        filter.createdTo = try query["createdTo"].map { try instant($0, field: "createdTo") }
        if let from = filter.createdFrom, let to = filter.createdTo, from >= to {
            throw APIError.invalid("createdTo", "createdTo is not after createdFrom")
        }
        return filter
    }

    /// An RFC 3339 date and time (`2026-11-22T00:00:00Z`, `2026-11-22T08:00:00.000+08:00`).
    static func instant(_ text: Substring, field: String) throws -> Date {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard text.count <= 40, let date = plain.date(from: String(text)) ?? fractional.date(from: String(text))
        else {
            throw APIError.invalid(field, "\(field) is a date and time as RFC 3339 has it: 2026-11-22T00:00:00Z")
        }
        return date
    }

    /// A listing's page size: `limit`, 1 to 100 (20 when absent).
    static func limit(_ query: Query) throws -> Int {
        guard let text = query["limit"] else { return 20 }
        guard let number = Int(String(text)), (1...100).contains(number) else {
            throw APIError.invalid("limit", "limit is 1 to 100")
        }
        return number
    }
}

/// `GET /v1/agreements` answer.
struct AgreementListView: Encodable {
    var agreements: [AgreementView]
    /// Pass as `before` for the next page; absent on the last.
    var next: String?
}

/// One day's reconciliation in brief: what `GET /v1/reconciliations/{day}` has in full.
struct ReconciliationSummaryView: Encodable {
    var day: String
    var fileName: String
    var checkedAt: Date
    var fileTransactions: Int
    var matched: Int
    var awaitingNextFile: Int
    /// How many differences the day has (0: it balances).
    var differenceCount: Int

    init(_ report: ReconciliationReport) {
        day = report.day
        fileName = report.fileName
        checkedAt = report.checkedAt
        fileTransactions = report.fileTransactions
        matched = report.matched
        awaitingNextFile = report.awaitingNextFile
        differenceCount = report.differences.count
    }
}

/// `GET /v1/reconciliations` answer.
struct ReconciliationListView: Encodable {
    var reconciliations: [ReconciliationSummaryView]
    /// Pass as `before` for the next page; absent on the last.
    var next: String?
}
