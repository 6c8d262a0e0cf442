import Foundation

/// How big a simulated world is, and how hostile.
public struct SimulationConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// Servers sharing the store and the acquirer (1–3).
    public var servers: Int
    /// Orders the shoppers and merchants act on.
    public var orders: Int
    /// Whether answers, requests and notifications are lost and duplicated, and servers crash.
    public var faults: Bool
    /// Seconds of simulated time during which actions and faults happen; then the world heals.
    public var horizon: Double
    /// Seconds after the horizon by which everything must be final.
    public var healBound: Double
    /// A fixed script instead of random actions (the exhaustive runs).
    public var script: Script?

    /// A configuration.
    public init(
        servers: Int = 2,
        orders: Int = 3,
        faults: Bool = true,
        horizon: Double = 120,
        healBound: Double = 3 * 3600,
        script: Script? = nil
    ) {
        self.servers = servers
        self.orders = orders
        self.faults = faults
        self.horizon = horizon
        self.healBound = healBound
        self.script = script
    }

    /// The fixed scripts of the exhaustive runs: one order, one server.
    public enum Script: String, Sendable, CaseIterable {
        /// The shopper authorizes, then cancels while the charge may be in flight.
        case authorizeThenCancel = "authorize-cancel"
        /// The shopper authorizes twice (the sheet's retry) while the first charge is in flight.
        case authorizeTwice = "authorize-twice"
        /// The shopper authorizes; the merchant makes two refunds at once.
        case twoRefunds = "two-refunds"
    }

    public var description: String {
        "servers=\(servers) orders=\(orders) faults=\(faults) horizon=\(Int(horizon))"
            + (script.map { " script=\($0.rawValue)" } ?? "")
    }

    /// Reads `servers=2 orders=3 faults=true horizon=120 script=…` (as ``description`` prints it).
    public init?(parsing text: String) {
        self.init()
        for part in text.split(separator: " ") {
            let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { return nil }
            switch kv[0] {
            case "servers":
                guard let v = Int(kv[1]), (1...3).contains(v) else { return nil }
                servers = v
            case "orders":
                guard let v = Int(kv[1]), v >= 1 else { return nil }
                orders = v
            case "faults": faults = kv[1] == "true"
            case "horizon":
                guard let v = Double(kv[1]) else { return nil }
                horizon = v
            case "script":
                guard let s = Script(rawValue: kv[1]) else { return nil }
                script = s
            default: return nil
            }
        }
    }
}
