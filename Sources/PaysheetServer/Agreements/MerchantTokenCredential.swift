import Foundation

/// The plaintext of an agreement's credential.
struct MerchantTokenCredential: Codable, Sendable {
    /// The MPAN.
    var accountNumber: String
    /// `YYMMDD`.
    var expiration: String
    /// `merchantTokenIdentifier`.
    var tokenIdentifier: String
}
