import Crypto
import _CryptoExtras
import Foundation
import PaysheetModel

/// Signs a message as ACP 5.0.0 messages are signed (`signMethod=01`), so that a 5.0.0 client can
/// validate it: the lowercase hexadecimal SHA-1 of the ``ACPMessage/signingString``, signed
/// SHA1withRSA, Base64 in `signature`; the signing certificate's serial in decimal in `certId`, by
/// which UnionPay's SDKs find the certificate among their verification certificates (5.0.0
/// messages carry no `signPubKeyCert`). What the SDKs' `validate` checks when `version` is 5.0.0
/// (`SecureUtil.sha1X16` then `validateSignBySoft`, SHA1withRSA; PHP: `sha1()` then
/// `openssl_verify` with `OPENSSL_ALGO_SHA1`).
///
/// The sandbox gateway signs its refusal of a 5.0.0 request so; nothing here accepts 5.0.0.
package struct ACPVersion500Signer: ACPMessageSigning {
    let base: ACPSigner

    /// A 5.0.0 signer with `base`'s key and certificate.
    package init(_ base: ACPSigner) { self.base = base }

    package func sign(_ message: inout ACPMessage) {
        message["signPubKeyCert"] = nil
        message["certId"] = base.certId
        message["signMethod"] = "01"
        let digest = Hex.encode(Insecure.SHA1.hash(data: Data(message.signingString.utf8)))
        // RSA PKCS#1 v1.5 signing of a SHA-1 digest with a valid key does not fail.
        let signature = try! base.privateKey.key.signature(
            for: Insecure.SHA1.hash(data: Data(digest.utf8)),
            padding: .insecurePKCS1v1_5
        )
        message["signature"] = signature.rawRepresentation.base64EncodedString()
    }
}
