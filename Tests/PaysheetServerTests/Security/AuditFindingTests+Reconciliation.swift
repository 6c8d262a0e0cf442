import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import PaysheetModel
import Testing
import UnionPay
@testable import PaysheetServer

/// An acquirer that serves settlement files only, looked up as UnionPay looks them up: its file
/// transfer names the clearing day by month and day (`settleDate` MMDD), so the latest file of
/// that month and day answers. Records the days it was asked for.
final class FileOnlyAcquirer: Acquirer, @unchecked Sendable {
    private let lock = NSLock()
    private var files: [String: [SettledTransaction]] = [:]
    private var asked: [String] = []

    /// From now on the file of `day` (`YYYYMMDD`) exists, named as UnionPay names it.
    func publish(_ day: String, _ transactions: [SettledTransaction] = []) {
        lock.withLock { files[day] = transactions }
    }

    /// The days asked for, in order.
    var askedDays: [String] { lock.withLock { asked } }

    var name: String { "files" }

    func settlementFile(day: String, now: Date) async -> SettlementFile {
        lock.withLock {
            asked.append(day)
            guard let latest = files.keys.filter({ $0.hasSuffix(day.suffix(4)) }).max(),
                let transactions = files[latest]
            else { return .notReady }
            return .file(name: "777290058110048_\(latest).zip", transactions: transactions)
        }
    }

    func charge(_ request: ChargeRequest) async -> SubmitAnswer { .unknown(reason: "not an acquirer of charges") }
    func query(_ identity: TransactionIdentity) async -> TransactionStatus { .notFound }
    func refund(
        _ identity: TransactionIdentity,
        amount: Money,
        originalReference: String
    ) async
        -> SubmitAnswer
    { .unknown(reason: "not an acquirer of refunds") }
    func void(
        _ identity: TransactionIdentity,
        amount: Money,
        originalReference: String
    ) async
        -> SubmitAnswer
    { .unknown(reason: "not an acquirer of voids") }
    func parseNotification(_ body: String) throws -> AcquirerNotification {
        throw ServiceError.invalid(nil, "no notifications here")
    }
    func newIdentity(paymentId: String, now: Date) -> TransactionIdentity {
        TransactionIdentity(orderId: paymentId, txnTime: TransactionTime.format(now))
    }
}

/// Audit finding 5: a clearing day is reconciled with that day's file only (its year included),
/// impossible days are refused, and the scheduler comes back for a day whose file was missing or
/// late until its report is complete.
@Suite(.serialized) struct AuditReconciliationTests {
    /// 2026-11-25 11:00 Beijing: after the default reconcile hour.
    static let now = TransactionTime.parse("20261125110000")!

    func service(_ store: PaymentStore, _ acquirer: FileOnlyAcquirer, now: Date = Self.now) -> ReconciliationService {
        ReconciliationService(store: store, acquirer: acquirer, logger: Logger(label: "test"), now: { now })
    }

    /// A succeeded charge sent at `txnTime`, stored with its order.
    func storeSucceededCharge(
        _ store: PaymentStore,
        _ n: Int,
        txnTime: String,
        amount: Int = 1_000
    ) async throws
        -> PaymentRecord
    {
        let configuration = LifecycleConfiguration()
        let sent = TransactionTime.parse(txnTime)!
        var lifecycle = PaymentLifecycle(expectedAmount: amount, submittedAt: sent, configuration: configuration)
        _ = lifecycle.receive(.answer(.accepted(reference: "Q\(n)")), now: sent, configuration: configuration)
        _ = lifecycle.receive(
            .notification(.succeeded(amount: .yuan(amount), reference: "Q\(n)")),
            now: sent,
            configuration: configuration
        )
        let order = OrderRecord(
            id: "ord_audit\(n)",
            status: .created,
            currency: Currency("CNY")!,
            countryCode: "CN",
            lineItems: [.init(label: "Tea", amount: "10.00")],
            shippingMethods: [],
            amount: amount,
            applicationData: "e30=",
            createdAt: sent
        )
        try await store.insert(order)
        let payment = PaymentRecord(
            id: "pay_audit\(n)",
            orderId: order.id,
            kind: .charge,
            identity: TransactionIdentity(orderId: "payaudit\(n)", txnTime: txnTime),
            amount: .yuan(amount),
            lifecycle: lifecycle,
            createdAt: sent
        )
        guard case .inserted = try await store.insert(payment, cause: "created", order: order) else {
            Issue.record("the payment was not stored")
            return payment
        }
        return payment
    }

    func settled(_ payment: PaymentRecord) -> SettledTransaction {
        SettledTransaction(identity: payment.identity, reference: "Q", amount: payment.amount.minorUnits, type: "01")
    }

    @Test(arguments: TestDatabases.kinds) func aDayIsNeverComparedWithAnotherYearsFile(kind: String) async throws {
        try await TestDatabases.withStore(kind) { store in
            let acquirer = FileOnlyAcquirer()
            let paid = try await storeSucceededCharge(store, 1, txnTime: "20261121093000")
            acquirer.publish("20261121", [settled(paid)])
            let reconciliation = service(store, acquirer)
            // A year earlier, the same month and day: UnionPay answers with this year's file.
            do {
                let outcome = try await reconciliation.run(day: "20251121")
                Issue.record("2025-11-21 was reconciled against 2026-11-21's file: \(outcome)")
            } catch let error as ServiceError {
                #expect(error.code == "settlement_file_mismatch", "\(error)")
                #expect(error.kind == .unprocessable)
                #expect(error.message.contains("20261121") && error.message.contains("20251121"), "\(error.message)")
            }
            #expect(try await store.reconciliation(day: "20251121") == nil, "a report was stored for 2025-11-21")
            // The day itself balances.
            guard case .report(let report) = try await reconciliation.run(day: "20261121") else {
                Issue.record("2026-11-21 was not reconciled")
                return
            }
            #expect(report.matched == 1 && report.differences.isEmpty)
            // A day that has not come yet has no file: the acquirer is not asked (it would answer
            // with last year's).
            acquirer.publish("20251201")
            let asked = acquirer.askedDays.count
            guard case .notReady = try await reconciliation.run(day: "20261201") else {
                Issue.record("2026-12-01 was reconciled on 2026-11-25")
                return
            }
            #expect(acquirer.askedDays.count == asked)
        }
    }

    @Test func impossibleDaysAreRefusedWithAClearError() async throws {
        let impossible = ["20260230", "20261131", "20250229", "20261301", "20260001", "20260100", "00001301"]
        for day in impossible { #expect(!ReconciliationService.isDay(day), "\(day)") }
        for day in ["20260228", "20240229", "20261130", "20261231"] {
            #expect(ReconciliationService.isDay(day), "\(day)")
        }
        try await TestServer.inProcess { server in
            for day in impossible {
                let (status, body) = try await server.send("POST", "/v1/reconciliations", #"{"day":"\#(day)"}"#)
                #expect(status == 400, "\(day): \(status) \(body.compactText)")
                #expect(body["error"]?["field"] == "day", "\(day)")
                #expect(try await server.send("GET", "/v1/reconciliations/\(day)", nil).0 == 404)
            }
        }
        try await TestDatabases.withStore("sqlite") { store in
            let acquirer = FileOnlyAcquirer()
            acquirer.publish("20260230")
            await #expect(throws: ServiceError.self) { try await service(store, acquirer).run(day: "20260230") }
            #expect(acquirer.askedDays.isEmpty)
        }
    }

    @Test(arguments: TestDatabases.kinds) func theSandboxsFileOfThisYearDoesNotReconcileLastYear(
        kind: String
    ) async throws {
        try await TestServer.inProcess(database: kind) { server in
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder([
                "currencyCode": "CNY", "lineItems": [["label": "Tea", "amount": "100.00"]],
            ])
            #expect(try await server.pay(order, factory: factory).paid)
            // The file of today, as if the day had ended.
            var clock = HTTPClientRequest(url: server.gatewayURL + "/sandbox/clock")
            clock.method = .PUT
            clock.body = .bytes(ByteBuffer(string: #"{"fileOffsetSeconds": 86400}"#))
            #expect(try await server.http.execute(clock, timeout: .seconds(5)).status == .ok)
            let today = String(TransactionTime.format(Date()).prefix(8))
            // The same month and day a year (on 29 February, four years) earlier.
            let year = Int(today.prefix(4))!
            let earlier = String(today.hasSuffix("0229") ? year - 4 : year - 1) + today.dropFirst(4)
            let (status, body) = try await server.send("POST", "/v1/reconciliations", #"{"day":"\#(earlier)"}"#)
            #expect(status == 422, "\(earlier) was answered \(status) \(body.compactText)")
            #expect(body["error"]?["code"] == "settlement_file_mismatch")
            #expect(try await server.send("GET", "/v1/reconciliations/\(earlier)", nil).0 == 404)
            let (todayStatus, report) = try await server.send("POST", "/v1/reconciliations", #"{"day":"\#(today)"}"#)
            #expect(todayStatus == 201 && report["matched"] == 1, "\(report.compactText)")
        }
    }

    @Test(arguments: TestDatabases.kinds) func theSchedulerComesBackForADayWhoseFileWasMissingOrLate(
        kind: String
    ) async throws {
        try await TestDatabases.withStore(kind) { store in
            let acquirer = FileOnlyAcquirer()
            // Sent just before the 22nd's cut-off: it clears on the 23rd.
            let late = try await storeSucceededCharge(store, 1, txnTime: "20261122235950")
            let onTime = try await storeSucceededCharge(store, 2, txnTime: "20261123100000")
            // On the 23rd the 22nd was reconciled while the 23rd's file did not exist yet: its
            // report says one payment awaits the next file.
            acquirer.publish("20261122")
            let dayBefore = TransactionTime.parse("20261123110000")!
            guard case .report(let waiting) = try await service(store, acquirer, now: dayBefore).run(day: "20261122")
            else {
                Issue.record("2026-11-22 was not reconciled on the 23rd")
                return
            }
            #expect(waiting.awaitingNextFile == 1)
            // The 23rd's file came late, after the 24th's checks; now (the 25th) it is there, with the 24th's.
            acquirer.publish("20261123", [settled(late), settled(onTime)])
            acquirer.publish("20261124")
            let scheduler = ReconciliationScheduler(
                service: service(store, acquirer),
                store: store,
                hour: 10,
                interval: 600,
                ready: Readiness(),
                logger: Logger(label: "test")
            )
            await scheduler.reconcileDue()
            let reports = (
                try await store.reconciliation(day: "20261122"), try await store.reconciliation(day: "20261123"),
                try await store.reconciliation(day: "20261124")
            )
            #expect(reports.0?.awaitingNextFile == 0, "the 22nd still awaits the 23rd's file")
            #expect(reports.0?.differences.isEmpty == true)
            #expect(reports.1?.matched == 2, "the 23rd was never reconciled")
            #expect(reports.1?.differences.isEmpty == true)
            #expect(reports.2 != nil, "the 24th was not reconciled")
            // Complete reports are not made again; days that never had a file (the 18th to the
            // 21st here) are asked for again, at every check of the week.
            let asked = acquirer.askedDays.count
            await scheduler.reconcileDue()
            let again = acquirer.askedDays[asked...]
            #expect(Set(again) == ["20261118", "20261119", "20261120", "20261121"], "asked again: \(again)")
        }
    }
}
