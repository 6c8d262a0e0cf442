/// How ACP messages are signed (`signMethod`).
public enum ACPSignMethod: String, Sendable, Codable, CaseIterable {
    /// `01`: SHA256withRSA with the merchant's signing certificate.
    case rsa = "01"
    /// `11`: SHA-256 with the secure key shared with UnionPay (no RSA).
    case secureKey = "11"
}
