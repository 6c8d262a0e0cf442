/// The card networks a simulated device offers, with the API version that introduced each
/// (Apple's "Supporting payment networks" table).
public enum PaymentNetwork {
    /// Canonical spelling and first API version.
    public static let all: [(name: String, version: Int)] = [
        ("amex", 1), ("chinaUnionPay", 1), ("discover", 1), ("interac", 1), ("masterCard", 1),
        ("privateLabel", 1), ("visa", 1), ("jcb", 2), ("carteBancaire", 3), ("cartesBancaires", 4),
        ("eftpos", 4), ("electron", 4), ("maestro", 4), ("vPay", 4), ("elo", 5), ("mada", 5),
        ("girocard", 11), ("mir", 11), ("dankort", 13), ("bancomat", 14), ("bancontact", 14),
        ("bankAxept", 15),
    ]

    private static let byLowercase: [String: (name: String, version: Int)] =
        Dictionary(uniqueKeysWithValues: all.map { ($0.name.lowercased(), $0) })

    /// The canonical name of `name` (case-insensitive) if the device offers it to a session of
    /// `version` under `profile`; `nil` otherwise. WebKit itself gates only `jcb` (< 2) and the old
    /// `carteBancaire` (< 3); newer networks are missing on devices whose Safari predates them.
    public static func canonical(_ name: String, version: Int, profile: SafariProfile) -> String? {
        guard let n = byLowercase[name.lowercased()] else { return nil }
        if n.name == "jcb", version < 2 { return nil }
        if n.name == "carteBancaire", version < 3 { return nil }
        if n.version > profile.currentAPIVersion { return nil }
        return n.name
    }
}
