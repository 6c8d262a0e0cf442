import Foundation
import UnionPay
import UnionPaySandbox

/// What keeps a server from starting in production mode: one line per problem. A production
/// server trusts no sandbox key, certificate or token, serves none of the sandbox's tools, and
/// speaks to its database and its public over TLS.
public enum ProductionCheck {
    /// The problems of `c` that can be told from the settings alone (the database's API keys
    /// are checked once it is open, by ``problems(activeAPIKeys:)``).
    public static func problems(_ c: ServerConfiguration) -> [String] {
        var out: [String] = []
        let sandbox = ServerConfiguration()
        if c.tokens.trustSandbox {
            out.append(
                "tokens.trustSandbox is on: sandbox payment tokens would be accepted (PAYSHEET_TRUST_SANDBOX=false)"
            )
        }
        if c.sandboxTools {
            out.append(
                "sandboxTools is on: paysheet.js, its browser bridge, the demo store and /v1/sandbox/* would be served (PAYSHEET_SANDBOX_TOOLS=false)"
            )
        }
        if c.acquirer.gatewayURL == nil {
            out.append(
                "acquirer.gatewayURL is not set: the built-in sandbox gateway would take the payments (PAYSHEET_ACQUIRER_URL)"
            )
        }
        if c.acquirer.merchantId == sandbox.acquirer.merchantId {
            out.append(
                "acquirer.merchantId is the sandbox's \(sandbox.acquirer.merchantId) (PAYSHEET_ACQUIRER_MERCHANT_ID)"
            )
        }
        if c.acquirer.signingKeyFile == nil || c.acquirer.signingCertificateFile == nil {
            out.append(
                "acquirer.signingKeyFile and acquirer.signingCertificateFile are not set: the sandbox's ACP certificate would sign (PAYSHEET_ACQUIRER_KEY, PAYSHEET_ACQUIRER_CERTIFICATE)"
            )
        }
        if c.acquirer.signMethod == "11" && c.acquirer.secureKeyFile == nil {
            out.append(
                "acquirer.signMethod is 11 without acquirer.secureKeyFile: the sandbox's secure key would sign (PAYSHEET_ACQUIRER_SECURE_KEY)"
            )
        }
        if c.acquirer.trustedRootFiles?.isEmpty ?? true || c.acquirer.intermediateFiles?.isEmpty ?? true {
            out.append(
                "acquirer.trustedRootFiles and acquirer.intermediateFiles are not set: the sandbox's root and middle certificate would be trusted for the gateway's signatures (PAYSHEET_ACQUIRER_ROOTS, PAYSHEET_ACQUIRER_INTERMEDIATES)"
            )
        }
        if c.acquirer.encryptionCertificateFile == nil {
            out.append(
                "acquirer.encryptionCertificateFile is not set: card data would be encrypted to the sandbox's encryption certificate (PAYSHEET_ACQUIRER_ENCRYPTION_CERTIFICATE, UnionPay's acp_prod_enc.cer)"
            )
        }
        if let owners = c.acquirer.gatewayOwners, owners.contains(UnionPaySandboxPKI.gatewayOwner) {
            out.append(
                "acquirer.gatewayOwners accepts \(UnionPaySandboxPKI.gatewayOwner), the test environment's and the sandbox's gateway (PAYSHEET_ACQUIRER_OWNERS)"
            )
        }
        if c.tokens.certificateFile == nil || c.tokens.keyFile == nil {
            out.append(
                "tokens.certificateFile and tokens.keyFile are not set: tokens would decrypt with the sandbox merchant's key (PAYSHEET_PAYMENT_CERTIFICATE, PAYSHEET_PAYMENT_KEY)"
            )
        }
        if c.merchant.merchantIdentifier == sandbox.merchant.merchantIdentifier {
            out.append("merchant.merchantIdentifier is the sandbox's \(sandbox.merchant.merchantIdentifier)")
        }
        if c.merchantValidation != "apple" {
            out.append(
                "merchantValidation is \"\(c.merchantValidation)\": merchant sessions would be the sandbox's (PAYSHEET_MERCHANT_VALIDATION=apple)"
            )
        }
        if let url = c.databaseURL, url.hasPrefix("postgres") {
            let mode = PostgresTLSMode(url: url)
            if mode != .require && mode != .verifyCA && mode != .verifyFull {
                out.append(
                    "the PostgreSQL URL does not ask for TLS: add sslmode=require or sslmode=verify-full (and sslrootcert=CA_FILE)"
                )
            }
        }
        if let url = c.publicURL {
            if URLComponents(string: url)?.scheme?.lowercased() != "https" {
                out.append("publicURL \(url) is not https")
            }
        } else {
            out.append(
                "publicURL is not set: the gateway's notifications need the server's https address (PAYSHEET_PUBLIC_URL)"
            )
        }
        return out
    }

    /// The problem of a database with `activeAPIKeys` keys.
    public static func problems(activeAPIKeys: Int) -> [String] {
        activeAPIKeys > 0
            ? []
            : ["no API key exists: create one with paysheet api-key create (the merchant's calls would all be refused)"]
    }
}

/// The server refused to start in production mode.
public struct ProductionRefusal: Error, CustomStringConvertible, Sendable {
    /// One line per problem.
    public var problems: [String]
    public var description: String {
        "paysheet serve refuses to start in production mode:\n" + problems.map { "  - " + $0 }.joined(separator: "\n")
    }
}
