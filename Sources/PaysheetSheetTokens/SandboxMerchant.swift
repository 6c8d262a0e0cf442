import Foundation
import PaysheetToken

/// The sandbox merchant in a data folder: the sandbox token PKI (`sandbox-ca/`) and the
/// merchant's payment processing key and certificate (`merchants/ID/`), created on first use.
public enum SandboxMerchant {
    /// The merchant key of `merchantIdentifier` under `dataFolder`, created (and issued by the
    /// folder's sandbox PKI) when missing.
    /// `keyType` `.rsa` is the merchant's RSA-2048 certificate for RSA_v1 tokens, kept beside the
    /// EC one (`merchants/ID-rsa/`).
    public static func loadOrCreate(
        dataFolder: String,
        merchantIdentifier: String,
        keyType: MerchantCredentials.KeyType = .ec
    ) throws -> MerchantKey {
        let folder = dataFolder + "/merchants/" + merchantIdentifier + (keyType == .ec ? "" : "-" + keyType.rawValue)
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
            keyType: keyType,
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
