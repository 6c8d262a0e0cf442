import PaysheetModel
import Crypto
import Foundation
import PaysheetToken

/// Seals stored card credentials (merchant tokens) with AES-256-GCM under a key kept in a file
/// of its own (mode 600; a group- or world-readable file is refused), never in the database.
/// Each sealed value is bound to its row's id (associated data), so a credential copied to
/// another agreement does not open.
public struct CredentialVault: Sendable {
    /// The key's bytes (a `SymmetricKey` is made per use: it is not `Sendable`).
    let keyBytes: Data
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    /// A vault with `key` (32 bytes).
    init(key: Data) { self.keyBytes = key }

    /// The vault of the key file `path`; made (32 random bytes, mode 600) when absent. Several
    /// servers started at once on one folder agree on one key (`KeyFile/privateKeyTextCreatingOnce(_:make:)`).
    public static func loadOrCreate(path: String) throws -> CredentialVault {
        let text = try KeyFile.privateKeyTextCreatingOnce(path) {
            Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() + "\n"
        }
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32
        else {
            throw StorageError("the credential key \(path) is not 32 bytes in Base64")
        }
        return CredentialVault(key: data)
    }

    /// `credential` sealed for the row `id`.
    func seal(_ credential: MerchantTokenCredential, for id: String) throws -> String {
        let plaintext = try JSONEncoder().encode(credential)
        let box = try AES.GCM.seal(plaintext, using: key, authenticating: Data(id.utf8))
        return box.combined!.base64EncodedString()
    }

    /// The credential sealed for the row `id`; an error when it was sealed for another row or key.
    func open(_ sealed: String, for id: String) throws -> MerchantTokenCredential {
        guard let data = Data(base64Encoded: sealed) else { throw StorageError("a sealed credential is not Base64") }
        do {
            let plaintext = try AES.GCM.open(
                try AES.GCM.SealedBox(combined: data),
                using: key,
                authenticating: Data(id.utf8)
            )
            return try JSONDecoder().decode(MerchantTokenCredential.self, from: plaintext)
        } catch {
            throw StorageError("the credential of \(id) does not open with this server's credential key")
        }
    }
}
