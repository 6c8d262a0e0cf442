import Foundation
import PaysheetTokenFormat

/// A token whose signature, chain and signing time ``PaymentTokenVerifier`` accepted. Only a
/// verifier makes one, so a decryption that takes a `VerifiedPaymentToken` cannot skip verification.
public struct VerifiedPaymentToken: Sendable {
    /// The token.
    public let token: PaymentTokenData
    /// The CMS signing time.
    public let signingTime: Date
    /// The subject of the signing certificate (for example `CN=ecc-smp-broker-sign_UC4-PROD, …`).
    public let signer: String

    init(token: PaymentTokenData, signingTime: Date, signer: String) {
        self.token = token
        self.signingTime = signingTime
        self.signer = signer
    }
}
