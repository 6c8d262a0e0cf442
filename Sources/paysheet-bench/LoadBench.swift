import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PaysheetModel
import PaysheetRSA
import PaysheetToken
import PaysheetTokenFormat
import X509
import _CryptoExtras

// `paysheet-bench load --server URL --data FOLDER [--payments N] [--concurrency C]
//  [--declines FRACTION] [--refunds FRACTION] [--out FILE] [--sweep 1,2,4,8,16,32 [--sweep-payments N] [--sweep-only]] [--warmup N]`
//
// A load generator on loopback against a running `paysheet serve`: creates N orders, issues a
// sandbox token for each (encrypted to the server's certificate, signed by the data folder's
// sandbox CA), then authorizes them C at a time and prints authorized payments per second and
// p50/p99 latency, next to a baseline measured in the same run (GET /health at the same
// concurrency: the server's HTTP and database round trip without any payment work).
// Transport errors and 5xx are retried with the same Idempotency-Key (a client riding out a
// server restart); `--out` writes every order id and the outcome the client saw (fault runs).
// `--sweep` then searches for the concurrency where the rate saturates and prints the p99 there;
// `--sweep-only` skips the baseline and the timed run (load_bench.sh's later rounds).

struct LoadOptions {
    var server = "http://127.0.0.1:8080"
    var data = ".paysheet"
    var payments = 1000
    var concurrency = 32
    var declines = 0.0
    var refunds = 0.0
    /// Servers whose `/metrics` are summed for the round trips (several behind a load balancer);
    /// by default `server`.
    var metricsFrom: [String] = []
    /// The share of shoppers who cancel (the sheet dismissed) while their charge is in flight.
    var cancels = 0.0
    /// The saturation search's concurrencies (`--sweep 1,2,4,8,16,32`; empty: none) and payments at each.
    var sweep: [Int] = []
    var sweepPayments = 300
    /// Only the warm-up and the saturation search (no baseline, no timed run).
    var sweepOnly = false
    /// Payments authorized before the timed ones and not counted (`--warmup N`): the timed run
    /// then measures a server whose code paths, caches, connections and prepared statements are
    /// warm, as the saturation search (which runs after it) always did.
    var warmup = 0
    var out: String?
    var merchantIdentifier = "merchant.dev.paysheet.sandbox"
    /// The merchant API key (orders with free-form lines, refunds); authorizations use each
    /// order's client secret. `--api-key`, else `$PAYSHEET_API_KEY`.
    var apiKey = ProcessInfo.processInfo.environment["PAYSHEET_API_KEY"] ?? ""
    /// Processes whose CPU time is read over the timed authorizations (`LABEL=PID`,
    /// `LABEL=name:COMMAND` for every process of that name, or `LABEL=tree:PID` for a process and
    /// its descendants, such as one PostgreSQL cluster's postmaster and backends).
    var watched: [(label: String, processes: ProcessSet)] = []

    init(_ args: [String]) throws {
        var i = 0
        func value() throws -> String {
            i += 1
            guard i < args.count else { throw LoadError("\(args[i - 1]) needs a value") }
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--server": server = try value()
            case "--data": data = try value()
            case "--payments": payments = Int(try value()) ?? payments
            case "--concurrency": concurrency = Int(try value()) ?? concurrency
            case "--declines": declines = Double(try value()) ?? 0
            case "--refunds": refunds = Double(try value()) ?? 0
            case "--cancels": cancels = Double(try value()) ?? 0
            case "--out": out = try value()
            case "--api-key": apiKey = try value()
            case "--cpu-of":
                let setting = try value()
                guard let equals = setting.firstIndex(of: "=") else {
                    throw LoadError("--cpu-of takes LABEL=PID, LABEL=name:COMMAND or LABEL=tree:PID")
                }
                let target = setting[setting.index(after: equals)...]
                if target.hasPrefix("name:") {
                    watched.append((String(setting[..<equals]), .named(String(target.dropFirst(5)))))
                } else if target.hasPrefix("tree:") {
                    guard let pid = Int32(target.dropFirst(5)) else { throw LoadError("--cpu-of takes LABEL=tree:PID") }
                    watched.append((String(setting[..<equals]), .tree(pid)))
                } else if target.contains(",") {
                    let pids = target.split(separator: ",").compactMap { Int32($0) }
                    guard !pids.isEmpty else { throw LoadError("--cpu-of takes LABEL=PID,PID,…") }
                    watched.append((String(setting[..<equals]), .pids(pids)))
                } else {
                    guard let pid = Int32(target) else {
                        throw LoadError("--cpu-of takes LABEL=PID, LABEL=name:COMMAND or LABEL=tree:PID")
                    }
                    watched.append((String(setting[..<equals]), .pid(pid)))
                }
            case "--metrics-from": metricsFrom.append(try value())
            case "--sweep": sweep = try value().split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
            case "--sweep-payments": sweepPayments = max(1, Int(try value()) ?? sweepPayments)
            case "--sweep-only": sweepOnly = true
            case "--warmup": warmup = max(0, Int(try value()) ?? 0)
            default: throw LoadError("unknown option \(args[i])")
            }
            i += 1
        }
    }
}

struct LoadError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// CPU seconds (user + system) a process has used so far, from `/proc/PID/stat`; nil off Linux.
func cpuSeconds(pid: Int32?) -> Double? {
    let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8), let close = text.lastIndex(of: ")") else {
        return nil
    }
    // Fields after the command name: state is field 3, utime 14 and stime 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The processes one `--cpu-of` names.
enum ProcessSet {
    /// One process; `nil`: this one.
    case pid(Int32?)
    /// Every process whose command name is this.
    case named(String)
    /// These processes (several servers under one label).
    case pids([Int32])
    /// A process and every process it started, and they started (a PostgreSQL cluster: its
    /// postmaster, backends and background workers, not another cluster's on the same machine).
    case tree(Int32)

    /// CPU seconds each has used so far, by pid (empty off Linux).
    func cpuSeconds() -> [Int32: Double] {
        switch self {
        case .pid(let pid):
            return paysheet_bench.cpuSeconds(pid: pid).map { [pid ?? 0: $0] } ?? [:]
        case .pids(let pids):
            var out: [Int32: Double] = [:]
            for pid in pids { if let seconds = paysheet_bench.cpuSeconds(pid: pid) { out[pid] = seconds } }
            return out
        case .named(let command):
            var out: [Int32: Double] = [:]
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry),
                    let name = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                    name.trimmingCharacters(in: .whitespacesAndNewlines) == command,
                    let seconds = paysheet_bench.cpuSeconds(pid: pid)
                else { continue }
                out[pid] = seconds
            }
            return out
        case .tree(let root):
            var children: [Int32: [Int32]] = [:]
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry), let parent = parentPid(pid) else { continue }
                children[parent, default: []].append(pid)
            }
            var out: [Int32: Double] = [:]
            var pending = [root]
            while let pid = pending.popLast() {
                if let seconds = paysheet_bench.cpuSeconds(pid: pid) { out[pid] = seconds }
                pending += children[pid] ?? []
            }
            return out
        }
    }
}

/// The parent of `pid` (field 4 of `/proc/PID/stat`).
func parentPid(_ pid: Int32) -> Int32? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    return fields.count > 1 ? Int32(fields[1]) : nil
}

/// Latencies, in seconds.
struct Latencies {
    var values: [Double] = []
    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }
}

actor Results {
    var latencies = Latencies()
    var outcomes: [String: Int] = [:]
    var records: [[String: String]] = []
    var retries = 0
    func add(_ latency: Double?, _ outcome: String, _ record: [String: String]? = nil) {
        if let latency { latencies.values.append(latency) }
        outcomes[outcome, default: 0] += 1
        if let record { records.append(record) }
    }
    func retried() { retries += 1 }
}

func runLoad(_ args: [String]) async -> Int32 {
    do {
        let options = try LoadOptions(args)
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(30),
            concurrentHTTP1ConnectionsPerHostSoftLimit: options.concurrency
        )
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let code = try await load(options, http)
            try? await http.shutdown()
            return code
        } catch {
            try? await http.shutdown()
            throw error
        }
    } catch {
        FileHandle.standardError.write(Data("paysheet-bench load: \(error)\n".utf8))
        return 2
    }
}

/// One call, retried on transport errors and 5xx (same key) until `deadline`.
func call(
    _ http: HTTPClient,
    _ method: HTTPMethod,
    _ url: String,
    _ body: String?,
    key: String?,
    auth: String? = nil,
    results: Results,
    deadline: Date = Date().addingTimeInterval(180)
) async throws -> (Int, JSONValue) {
    var useKey = key
    while true {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let auth, !auth.isEmpty { request.headers.add(name: "Authorization", value: "Bearer " + auth) }
        if let useKey { request.headers.add(name: "Idempotency-Key", value: useKey) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        do {
            let response = try await http.execute(request, timeout: .seconds(40))
            let bytes = try await response.body.collect(upTo: 1 << 22)
            let status = Int(response.status.code)
            let json = (try? JSONParser.parse(Array(buffer: bytes))) ?? .null
            if status < 500 && !(status == 409 && json["error"]?["code"] == "idempotency_key_in_use") {
                return (status, json)
            }
            // A key held by a request the server lost in a crash: the order-level guard makes a
            // retry without the key safe (it never charges an order twice).
            if status == 409 { useKey = nil }
        } catch {
            if Date() > deadline { throw error }
        }
        await results.retried()
        try await Task.sleep(for: .milliseconds(300))
    }
}

func load(_ o: LoadOptions, _ http: HTTPClient) async throws -> Int32 {
    let results = Results()
    // 0. The server's certificate and the sandbox CA.
    let (_, merchant) = try await call(http, .GET, o.server + "/v1/sandbox/merchant", nil, key: nil, results: results)
    guard let pem = merchant["paymentProcessingCertificate"]?.stringValue else {
        throw LoadError("the server publishes no sandbox merchant certificate")
    }
    let recipient = try TokenRecipient(certificate: Certificate(pemEncoded: pem))
    let issuer = SandboxTokenIssuer(pki: try SandboxPKI.load(folder: o.data + "/sandbox-ca"))

    // A warm-up, then the saturation search only (`--sweep-only`: a later round of load_bench.sh).
    if o.sweepOnly {
        if o.warmup > 0 {
            _ = try await payNewOrders(o.warmup, concurrency: o.concurrency, o, http, recipient, issuer, Results())
        }
        try await sweep(o, http, recipient: recipient, issuer: issuer)
        return 0
    }

    // 1. Baseline: GET /health at the same concurrency for about 2 s.
    let baselineRate = await healthBaseline(o, http)

    // 1b. The crypto ceiling: ACP needs three RSA-2048 signatures per payment (the merchant's
    // request, the gateway's answer and its notification); measured here on one core.
    let rsaRate = try rsaSignatureRate()
    let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
    let ceiling = rsaRate * cores / 3

    // 2. Orders.
    let orderStart = Date()
    let orders = try await createOrders(o.payments, o, http, results)
    let orderRate = Double(orders.count) / Date().timeIntervalSince(orderStart)

    // 3. Tokens (client side, not timed).
    let bodies = try authorizationBodies(orders, recipient: recipient, issuer: issuer)

    // 3b. A warm-up, not counted.
    if o.warmup > 0 {
        _ = try await payNewOrders(o.warmup, concurrency: o.concurrency, o, http, recipient, issuer, Results())
    }

    // 4. Authorizations, timed.
    let watched = o.watched.isEmpty ? [] : o.watched + [("load generator", ProcessSet.pid(nil))]
    let cpuBefore = watched.map { $0.processes.cpuSeconds() }
    let roundTripsBefore = await databaseRoundTrips(http, o)
    let elapsed = try await authorizeAll(
        orders,
        bodies: bodies,
        concurrency: o.concurrency,
        cancels: o.cancels,
        o,
        http,
        results
    )
    let cpuAfter = watched.map { $0.processes.cpuSeconds() }

    // 5. Refunds of a share of the paid orders (fault runs).
    let refunded = o.refunds > 0 ? try await refundShare(o, http, results) : 0

    let latencies = await results.latencies
    let rate = Double(orders.count) / elapsed
    let outcomes = await results.outcomes
    print(
        String(
            format: "baseline  GET /health:              %8.0f requests/s  (concurrency %d)",
            baselineRate,
            o.concurrency
        )
    )
    print(String(format: "orders    POST /v1/orders:          %8.0f orders/s", orderRate))
    print(
        String(
            format: "payments  POST …/authorize:         %8.0f authorized payments/s  = %.3f × the /health baseline",
            rate,
            rate / baselineRate
        )
    )
    // A server restarted during the run (a fault run) starts its counts again: nothing to print.
    if let before = roundTripsBefore, let after = await databaseRoundTrips(http, o), !orders.isEmpty,
        after["", default: 0] >= before["", default: 0]
    {
        // Counted by the server (every statement it sent PostgreSQL, BEGIN and COMMIT included)
        // over the timed authorizations, whatever settled them (answer, notification, query).
        let perPayment = { (kind: String) in
            Double(after[kind, default: 0] - before[kind, default: 0]) / Double(orders.count)
        }
        print(
            String(format: "database  %.1f round trips per payment (PostgreSQL, counted by the server)", perPayment(""))
        )
        let kinds = after.keys.filter { !$0.isEmpty && perPayment($0) >= 0.05 }.sorted {
            perPayment($0) > perPayment($1)
        }
        print(
            "database  by statement, per payment: "
                + kinds.map { "\($0) " + String(format: "%.2f", perPayment($0)) }.joined(separator: ", ")
        )
    }
    print(
        String(
            format:
                "ceiling   RSA-2048 signatures:      %8.0f /s on one core → %.0f payments/s on %.0f cores at 3 signatures each; payments = %.2f × that ceiling",
            rsaRate,
            ceiling,
            cores,
            rate / ceiling
        )
    )
    print(
        String(
            format: "latency   authorize p50 %.1f ms, p99 %.1f ms, max %.1f ms",
            latencies.percentile(0.5) * 1000,
            latencies.percentile(0.99) * 1000,
            (latencies.values.max() ?? 0) * 1000
        )
    )
    if !watched.isEmpty {
        printCPU(watched, before: cpuBefore, after: cpuAfter, payments: orders.count, cores: cores, rsaRate: rsaRate)
    }
    print(
        "outcomes  \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
            + (o.refunds > 0 ? ", refunds \(refunded)" : "") + ", client retries \(await results.retries)"
    )
    if let out = o.out {
        let data = try JSONSerialization.data(withJSONObject: await results.records, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: out))
    }
    if !o.sweep.isEmpty { try await sweep(o, http, recipient: recipient, issuer: issuer) }
    return 0
}

/// GET /health at `o.concurrency` for about 2 s: the server's rate with no work, the baseline.
func healthBaseline(_ o: LoadOptions, _ http: HTTPClient) async -> Double {
    let baselineStart = Date()
    let baseline = Results()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<o.concurrency {
            group.addTask {
                while Date().timeIntervalSince(baselineStart) < 2 {
                    let sent = Date()
                    _ = try? await call(http, .GET, o.server + "/health", nil, key: nil, results: baseline)
                    await baseline.add(Date().timeIntervalSince(sent), "ok")
                }
            }
        }
    }
    return Double(await baseline.latencies.values.count) / Date().timeIntervalSince(baselineStart)
}

/// RSA-2048 PKCS #1 v1.5 signatures per second on one core, for about a second, on the RSA
/// backend the server and gateway use (`RSABackendChoice`).
func rsaSignatureRate() throws -> Double {
    let rsa = RSAPrivateKeyOperations(try _RSA.Signing.PrivateKey(keySize: .bits2048))
    let rsaStart = Date()
    var signatures = 0
    while Date().timeIntervalSince(rsaStart) < 1 {
        _ = rsa.signSHA256(Array("txnAmt=100&txnType=01\(signatures)".utf8))
        signatures += 1
    }
    return Double(signatures) / Date().timeIntervalSince(rsaStart)
}

/// Refunds 1.00 of `o.refunds` of the paid, uncanceled orders (fault runs); how many were made.
func refundShare(_ o: LoadOptions, _ http: HTTPClient, _ results: Results) async throws -> Int {
    let records = await results.records
    let canceled = Set(records.filter { $0["client"] == "canceled" }.compactMap { $0["order"] })
    let paid = records.filter { $0["client"] == "paid" && !canceled.contains($0["order"] ?? "") }.compactMap {
        $0["order"]
    }
    let chosen = paid.prefix(Int(Double(paid.count) * o.refunds))
    var refunded = 0
    try await withThrowingTaskGroup(of: Int.self) { group in
        for id in chosen {
            group.addTask {
                let (status, _) = try await call(
                    http,
                    .POST,
                    o.server + "/v1/orders/\(id)/refunds",
                    #"{"amount":"1.00"}"#,
                    key: "load-refund-\(id)",
                    auth: o.apiKey,
                    results: results
                )
                return status == 201 ? 1 : 0
            }
        }
        for try await made in group { refunded += made }
    }
    return refunded
}

/// The CPU each watched process used per payment over the timed run, and what 500 payments/s
/// would leave each payment on `cores`.
func printCPU(
    _ watched: [(label: String, processes: ProcessSet)],
    before: [[Int32: Double]],
    after: [[Int32: Double]],
    payments: Int,
    cores: Double,
    rsaRate: Double
) {
    var parts: [String] = []
    var total = 0.0
    for (index, process) in watched.enumerated() where !after[index].isEmpty {
        // Processes that started during the run count from zero.
        let used = after[index].reduce(0.0) { $0 + $1.value - (before[index][$1.key] ?? 0) }
        let perPayment = used / Double(max(1, payments)) * 1000
        total += perPayment
        parts.append(String(format: "%@ %.2f", process.label, perPayment))
    }
    print(
        String(
            format: "cpu       per payment (ms): %@; total %.2f ms → at most %.0f payments/s on %.0f cores",
            parts.joined(separator: ", "),
            total,
            cores * 1000 / max(total, 0.001),
            cores
        )
    )
    // The issue's target, in the same unit: what 500/s leaves each payment, and the RSA share of it.
    print(
        String(
            format:
                "budget    500 payments/s on %.0f cores leaves %.2f ms of CPU per payment; its 3 RSA-2048 signatures alone take %.2f ms",
            cores,
            cores * 1000 / 500,
            3000 / rsaRate
        )
    )
}

/// The servers' count of PostgreSQL round trips (`/metrics`, with the merchant key, summed over
/// `--metrics-from`) under the key `""`, and of statements by kind (`INSERT idempotency_keys`,
/// `BEGIN`, …) under theirs; nil without them.
func databaseRoundTrips(_ http: HTTPClient, _ o: LoadOptions) async -> [String: Int]? {
    var counts: [String: Int] = [:]
    let statementPrefix = #"paysheet_database_statements_total{statement=""#
    for server in o.metricsFrom.isEmpty ? [o.server] : o.metricsFrom {
        var request = HTTPClientRequest(url: server + "/metrics")
        if !o.apiKey.isEmpty { request.headers.add(name: "Authorization", value: "Bearer " + o.apiKey) }
        guard let response = try? await http.execute(request, timeout: .seconds(10)), response.status == .ok,
            let body = try? await response.body.collect(upTo: 1 << 22)
        else { return nil }
        var found = false
        for line in String(buffer: body).split(separator: "\n") {
            guard let value = line.split(separator: " ").last, let number = Double(value) else { continue }
            if line.hasPrefix("paysheet_database_round_trips_total") {
                counts["", default: 0] += Int(number)
                found = true
            } else if line.hasPrefix(statementPrefix), let end = line.range(of: #""}"#) {
                let kind = String(line[line.index(line.startIndex, offsetBy: statementPrefix.count)..<end.lowerBound])
                counts[kind, default: 0] += Int(number)
            }
        }
        guard found else { return nil }
    }
    return counts
}

/// An order made for the load: its id, amount, the token's application data, whether the sandbox
/// declines it, and the credential that authorizes it (its client secret).
typealias LoadOrder = (id: String, amount: String, applicationData: [UInt8], decline: Bool, secret: String)

/// Creates `count` orders, `o.concurrency` at a time.
func createOrders(_ count: Int, _ o: LoadOptions, _ http: HTTPClient, _ results: Results) async throws -> [LoadOrder] {
    var orders: [LoadOrder] = []
    try await withThrowingTaskGroup(of: (String, String, [UInt8], Bool, String).self) { group in
        var next = 0
        func add() {
            let number = next
            next += 1
            let decline = o.declines > 0 && Double(number % 100) < o.declines * 100
            let amount = decline ? "66.64" : "\(10 + number % 50).\(number % 10)0"
            group.addTask {
                let body =
                    #"{"currencyCode":"CNY","countryCode":"CN","lineItems":[{"label":"Load test item","amount":"\#(amount)"}]}"#
                let (status, json) = try await call(
                    http,
                    .POST,
                    o.server + "/v1/orders",
                    body,
                    key: "load-order-\(UUID().uuidString)",
                    auth: o.apiKey,
                    results: results
                )
                guard status == 201, let id = json["id"]?.stringValue,
                    let appData = json["paymentRequest"]?["applicationData"]?.stringValue.flatMap({
                        Data(base64Encoded: $0)
                    })
                else {
                    throw LoadError("POST /v1/orders answered \(status): \(json.compactText)")
                }
                // The shopper's page authorizes with the order's client secret (the floor issues none).
                return (id, amount, Array(appData), decline, json["clientSecret"]?.stringValue ?? o.apiKey)
            }
        }
        for _ in 0..<min(o.concurrency, count) { add() }
        while let made = try await group.next() {
            orders.append((made.0, made.1, made.2, made.3, made.4))
            if next < count { add() }
        }
    }
    return orders
}

/// The authorization body of each order: a sandbox token for its amount and application data.
func authorizationBodies(
    _ orders: [LoadOrder],
    recipient: TokenRecipient,
    issuer: SandboxTokenIssuer
) throws -> [String] {
    var bodies: [String] = []
    for order in orders {
        let payment = try SandboxPayment.sample(network: "visa", amount: order.amount, currency: "CNY")
        let token = try issuer.issue(payment, to: recipient, applicationData: order.applicationData)
        let authorization: JSONValue = [
            "token": [
                "paymentMethod": ["displayName": "Visa 4321", "network": "Visa", "type": "credit"],
                "transactionIdentifier": .string(token.header.transactionId.uppercased()),
                "paymentData": token.jsonValue,
            ]
        ]
        bodies.append(JSONValue.object(["payment": authorization]).compactText)
    }
    return bodies
}

/// One authorization, with the order's client secret: its latency and outcome (`paid`, `declined`
/// or `http STATUS`).
func authorize(
    _ order: LoadOrder,
    body: String,
    _ o: LoadOptions,
    _ http: HTTPClient,
    _ results: Results
) async throws -> (latency: Double, outcome: String) {
    let start = Date()
    let (status, json) = try await call(
        http,
        .POST,
        o.server + "/v1/orders/\(order.id)/authorize",
        body,
        key: "load-pay-\(order.id)",
        auth: order.secret,
        results: results
    )
    let latency = Date().timeIntervalSince(start)
    guard status == 200 else { return (latency, "http \(status)") }
    return (latency, json["result"]?["status"]?.compactText == "0" ? "paid" : "declined")
}

/// The authorizations of `orders`, `concurrency` at a time, each recorded in `results` (its
/// latency, its outcome, and for fault runs the order and what the client saw); a `cancels` share of
/// the shoppers also dismiss the sheet while their charge is in flight. Returns the seconds they took.
func authorizeAll(
    _ orders: [LoadOrder],
    bodies: [String],
    concurrency: Int,
    cancels: Double,
    _ o: LoadOptions,
    _ http: HTTPClient,
    _ results: Results
) async throws -> Double {
    let start = Date()
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        func add() {
            let number = next
            next += 1
            if cancels > 0 && Double(number % 100) >= 100 - cancels * 100 {
                // This shopper dismisses the sheet while the charge is in flight (0 to 1.5 s in).
                group.addTask {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 0...1_500)))
                    let (status, json) = try await call(
                        http,
                        .POST,
                        o.server + "/v1/orders/\(orders[number].id)/cancel",
                        "{}",
                        key: "load-cancel-\(orders[number].id)",
                        auth: orders[number].secret,
                        results: results
                    )
                    await results.add(
                        nil,
                        "cancel \(status == 200 ? "accepted" : "refused")",
                        [
                            "order": orders[number].id, "amount": orders[number].amount, "client": "canceled",
                            "cancel": json["status"]?.stringValue ?? "http \(status)",
                        ]
                    )
                }
            }
            group.addTask {
                let (latency, outcome) = try await authorize(orders[number], body: bodies[number], o, http, results)
                await results.add(
                    latency,
                    outcome,
                    ["order": orders[number].id, "amount": orders[number].amount, "client": outcome]
                )
            }
        }
        for _ in 0..<min(concurrency, orders.count) { add() }
        while try await group.next() != nil { if next < orders.count { add() } }
    }
    return Date().timeIntervalSince(start)
}

/// `count` new orders, each paid by one shopper (no cancels) at `concurrency`, their outcomes in
/// `results`; the seconds the authorizations took (the orders and tokens are made before).
func payNewOrders(
    _ count: Int,
    concurrency: Int,
    _ o: LoadOptions,
    _ http: HTTPClient,
    _ recipient: TokenRecipient,
    _ issuer: SandboxTokenIssuer,
    _ results: Results
) async throws -> Double {
    let orders = try await createOrders(count, o, http, Results())
    let bodies = try authorizationBodies(orders, recipient: recipient, issuer: issuer)
    return try await authorizeAll(orders, bodies: bodies, concurrency: concurrency, cancels: 0, o, http, results)
}

/// The saturation search: `o.sweepPayments` payments at each concurrency of `o.sweep`, their rate
/// and latency, and where the rate saturates (the lowest concurrency within 10% of the best
/// rate): the p99 there is the latency target's.
func sweep(_ o: LoadOptions, _ http: HTTPClient, recipient: TokenRecipient, issuer: SandboxTokenIssuer) async throws {
    var levels: [(concurrency: Int, rate: Double, p50: Double, p99: Double)] = []
    for concurrency in o.sweep {
        let results = Results()
        let elapsed = try await payNewOrders(
            o.sweepPayments,
            concurrency: concurrency,
            o,
            http,
            recipient,
            issuer,
            results
        )
        let paid = await results.outcomes["paid"] ?? 0
        let latencies = await results.latencies
        let level = (
            concurrency: concurrency, rate: Double(paid) / elapsed, p50: latencies.percentile(0.5) * 1000,
            p99: latencies.percentile(0.99) * 1000
        )
        levels.append(level)
        print(
            String(
                format:
                    "sweep     concurrency %3d: %6.0f authorized payments/s, p50 %6.1f ms, p99 %6.1f ms (%d of %d paid)",
                concurrency,
                level.rate,
                level.p50,
                level.p99,
                paid,
                o.sweepPayments
            )
        )
    }
    // Where the rate saturates: the lowest concurrency whose rate is within 10% of the best
    // (the knee). One noisy level cannot move it past the plateau, as a rule comparing
    // neighbours could; load_bench.sh applies the same rule to the medians of its rounds.
    guard let best = levels.map(\.rate).max(), let saturated = levels.first(where: { $0.rate >= 0.9 * best }) else {
        return
    }
    print(
        String(
            format:
                "saturation concurrency %d (the lowest within 10%% of the best rate, %.0f/s): %.0f payments/s, p99 %.1f ms",
            saturated.concurrency,
            best,
            saturated.rate,
            saturated.p99
        )
    )
    if let best = levels.max(by: { $0.rate < $1.rate }) {
        print(
            String(
                format: "best      %.0f payments/s at concurrency %d (p99 %.1f ms)",
                best.rate,
                best.concurrency,
                best.p99
            )
        )
    }
}
