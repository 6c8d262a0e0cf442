import Crypto
import Foundation

extension CredentialVault {
    /// What the agreements table keeps to find an agreement by its merchant token's
    /// `merchantTokenIdentifier` (a lifecycle notification names only that): HMAC-SHA-256 of the
    /// identifier under a key derived from the credential key, in hexadecimal. The identifier
    /// itself is stored only sealed; without the key file the reference tells nothing.
    func tokenReference(_ merchantTokenIdentifier: String) -> String {
        let subkey = HMAC<SHA256>.authenticationCode(
            for: Data("paysheet merchant token reference v1".utf8),
            using: key
        )
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data(merchantTokenIdentifier.utf8),
            using: SymmetricKey(data: Data(subkey))
        )
        return mac.map { String(format: "%02x", $0) }.joined()
    }
}
