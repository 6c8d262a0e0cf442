import Foundation
import PaysheetToken

/// The sandbox merchant in a data folder: the sandbox token PKI (`sandbox-ca/`) and the
/// merchant's payment processing key and certificate (`merchants/ID/`), created on first use.
public enum SandboxMerchant {
    /// The merchant key of `merchantIdentifier` under `dataFolder`, created (and issued by the
    /// folder's sandbox PKI) when missing.
    public static func loadOrCreate(dataFolder: String, merchantIdentifier: String) throws -> MerchantKey {
        let folder = dataFolder + "/merchants/" + merchantIdentifier
        if FileManager.default.fileExists(atPath: folder + "/certificate.pem") {
            return try MerchantKey(
                certificateFile: folder + "/certificate.pem",
                privateKeyFile: folder + "/key.pem",
                permissions: .refuse
            )
        }
        // Made aside and moved into place in one rename: several servers starting at once on one
        // data folder agree on one key (each used to keep the one it made, and decrypt only its own tokens).
        let credentials = try MerchantCredentials.create(
            merchantIdentifier: merchantIdentifier,
            pki: pki(dataFolder: dataFolder)
        )
        let staging = folder + ".new-" + UUID().uuidString
        _ = try credentials.save(folder: staging)
        try FileManager.default.createDirectory(
            atPath: (folder as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        if rename(staging, folder) != 0 { try? FileManager.default.removeItem(atPath: staging) }
        return try MerchantKey(
            certificateFile: folder + "/certificate.pem",
            privateKeyFile: folder + "/key.pem",
            permissions: .refuse
        )
    }

    /// The sandbox token PKI under `dataFolder`.
    public static func pki(dataFolder: String) throws -> SandboxPKI {
        try SandboxPKI.loadOrCreate(folder: dataFolder + "/sandbox-ca")
    }
}
