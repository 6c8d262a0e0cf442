import AsyncHTTPClient
import Hummingbird
import HummingbirdCore
import Logging
import PaysheetToken
import ServiceLifecycle
import UnionPay
import X509

/// What a merchant server takes from a sandbox for what its configuration leaves unset: the
/// merchant's keys and certificates, the acquirer's gateway, merchant sessions and the browser's
/// tools. This library has none (a production server links no sandbox); `PaysheetSandboxServer`
/// composes Paysheet's (`paysheet serve`). Each requirement is asked only for the part it stands
/// in for, when the configuration does not name that part; a server without a sandbox refuses
/// such a configuration with a ``ConfigurationError``.
package protocol ServerSandbox: Sendable {
    /// The sandbox merchant's token key in `dataFolder` (made on first use) and the file of its
    /// payment processing certificate (tokens are encrypted to it).
    func merchantKey(
        dataFolder: String,
        merchantIdentifier: String
    ) throws -> (
        key: MerchantKey, certificateFile: String
    )
    /// The root the sandbox's payment tokens chain to (`tokens.trustSandbox`).
    func tokenRoot(dataFolder: String) throws -> Certificate
    /// The secure key (`signMethod=11`) the sandbox gateway shares with merchant `merchantId`.
    func acquirerSecureKey(dataFolder: String, merchantId: String) throws -> String
    /// The ACP signing credentials the sandbox issued merchant `merchantId`.
    func acquirerMerchantCredentials(dataFolder: String, merchantId: String) throws -> ACPCredentials
    /// The sandbox gateway's root and middle certificate, which its signatures chain to.
    func acquirerTrust(dataFolder: String) throws -> (roots: [Certificate], intermediates: [Certificate])
    /// The sandbox's encryption credentials for card data (the sandbox gateway decrypts with their key).
    func acquirerEncryption(dataFolder: String) throws -> ACPCredentials
    /// The sandbox gateway (when no `acquirer.gatewayURL` is set), served by `server` with
    /// `configuration`: it knows `merchants` and their `secureKeys`, and decrypts card data with
    /// `encryption`.
    func acquirerGateway(
        dataFolder: String,
        merchants: [ACPCredentials],
        secureKeys: [String: String],
        encryption: ACPCredentials?,
        paymentDataField: String,
        http: HTTPClient,
        server: HTTPServerBuilder,
        configuration: ApplicationConfiguration,
        logger: Logger
    ) throws -> any Service
    /// The sandbox's signer of order packages for `orderTypeIdentifier` (an Order Type ID
    /// certificate from the sandbox's CA, kept in `dataFolder`, made on first use).
    func orderSigner(dataFolder: String, orderTypeIdentifier: String) throws -> OrderPackageSigner
    /// Issues the merchant sessions of a server whose `merchantValidation` is not `apple`.
    var merchantSessions: any MerchantSessionIssuer { get }
    /// The browser's tools (`paysheet.js`, its bridge, the demo store), whose simulated sheets
    /// encrypt their tokens to `merchantKey` and accept the sessions of ``merchantSessions``.
    func browserRoutes(dataFolder: String, merchantKey: MerchantKey) throws -> ExtraRoutes
}

extension MerchantServer {
    /// `sandbox`, or a ``ConfigurationError`` saying that `what` is unset and no sandbox stands in.
    static func sandbox(_ sandbox: (any ServerSandbox)?, for what: String) throws -> any ServerSandbox {
        guard let sandbox else {
            throw ConfigurationError(
                "\(what): this server has no sandbox to take it from (paysheet serve composes one; the PaysheetServer library alone does not)"
            )
        }
        return sandbox
    }
}
