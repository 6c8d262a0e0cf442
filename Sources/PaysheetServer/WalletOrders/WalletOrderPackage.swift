import Crypto
import Foundation
import PaysheetModel
import PaysheetToken
import UnionPay

/// A signed order package (`.order`), as Wallet requires it: a ZIP archive of the order's files
/// (`order.json`, the merchant's logo), `manifest.json` (each file's SHA-256, hexadecimal) and
/// `signature` (a detached CMS signature over the manifest by the Order Type ID certificate).
enum WalletOrderPackage {
    /// The MIME type of an order package.
    static let contentType = "application/vnd.apple.order"

    /// The package of `files`, signed by `signer` at `signingTime`, its entries dated `modified`.
    static func build(
        _ files: [(name: String, contents: Data)],
        signer: OrderPackageSigner,
        signingTime: Date,
        modified: Date
    ) throws -> Data {
        var manifest = JSONObject()
        for (name, contents) in files { manifest[name] = .string(Hex.encode(SHA256.hash(data: contents))) }
        let manifestBytes = Data(JSONValue.object(manifest).compactText.utf8)
        let signature = try signer.signature(of: Array(manifestBytes), at: signingTime)
        return ZipArchive(
            files: files + [("manifest.json", manifestBytes), ("signature", Data(signature))]
        ).encoded(date: modified)
    }
}
