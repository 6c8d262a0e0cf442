import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import PaysheetBrowserBridge
import PaysheetServer
import PaysheetSheetTokens
import PaysheetToken
import ServiceLifecycle
import UnionPay
import UnionPaySandbox
import X509

/// Paysheet's sandbox as the merchant server takes it, for what its configuration leaves unset:
/// the sandbox merchant's token keys and the tokens' root (`PaysheetSheetTokens`), the sandbox
/// UnionPay PKI and gateway (`UnionPaySandbox`), the sandbox's merchant sessions and the browser's
/// tools (`PaysheetBrowserBridge`). Everything is kept in the server's data folder and made on
/// first use. One per server: its merchant sessions are that server's.
package struct BuiltInSandbox: ServerSandbox, MerchantTokenEventSandbox {
    /// The server's merchant sessions: its validator issues them, its browser pages check them.
    package let sessions: SandboxMerchantSessions
    /// The merchant tokens its sheets issue and their life-cycle events (docs/agreements.md).
    package let tokenEvents: SandboxMerchantTokenEvents

    /// A sandbox with a fresh merchant-session key and no token events.
    package init() {
        sessions = SandboxMerchantSessions()
        tokenEvents = SandboxMerchantTokenEvents()
    }

    package func merchantTokenEvents(
        merchantIdentifier: String,
        notificationURL: String?,
        clock: @escaping @Sendable () -> Date,
        http: HTTPClient
    ) -> (source: any MerchantTokenEventSource, routes: ExtraRoutes) {
        let events = tokenEvents
        let settings = SandboxTokenEventRoutes.Settings(
            merchantIdentifier: merchantIdentifier,
            notificationURL: notificationURL,
            clock: clock,
            http: http
        )
        return (events, { router, _ in SandboxTokenEventRoutes.add(to: router, events: events, settings: settings) })
    }

    package var merchantSessions: any MerchantSessionIssuer { sessions }

    package func merchantKey(
        dataFolder: String,
        merchantIdentifier: String
    ) throws -> (key: MerchantKey, certificateFile: String) {
        let key = try SandboxMerchant.loadOrCreate(dataFolder: dataFolder, merchantIdentifier: merchantIdentifier)
        return (key, dataFolder + "/merchants/" + merchantIdentifier + "/certificate.pem")
    }

    package func orderSigner(dataFolder: String, orderTypeIdentifier: String) throws -> OrderPackageSigner {
        try SandboxMerchant.pki(dataFolder: dataFolder).orderPackageSigner(
            orderTypeIdentifier: orderTypeIdentifier,
            folder: dataFolder + "/order-types/" + orderTypeIdentifier
        )
    }

    package func tokenRoot(dataFolder: String) throws -> Certificate {
        try SandboxMerchant.pki(dataFolder: dataFolder).root
    }

    /// The UnionPay sandbox PKI of `dataFolder` (made on first use).
    static func unionPayPKI(_ dataFolder: String) throws -> UnionPaySandboxPKI {
        try UnionPaySandboxPKI.loadOrCreate(folder: dataFolder + "/unionpay-sandbox")
    }

    /// The folder of merchant `merchantId`'s sandbox material.
    static func merchantFolder(_ dataFolder: String, _ merchantId: String) -> String {
        dataFolder + "/unionpay-sandbox/merchant-" + merchantId
    }

    package func acquirerSecureKey(dataFolder: String, merchantId: String) throws -> String {
        try UnionPaySandboxPKI.secureKey(folder: Self.merchantFolder(dataFolder, merchantId))
    }

    package func acquirerMerchantCredentials(dataFolder: String, merchantId: String) throws -> ACPCredentials {
        try Self.unionPayPKI(dataFolder).merchantCredentials(
            folder: Self.merchantFolder(dataFolder, merchantId),
            merchantId: merchantId
        )
    }

    package func acquirerTrust(dataFolder: String) throws -> (roots: [Certificate], intermediates: [Certificate]) {
        let pki = try Self.unionPayPKI(dataFolder)
        return ([pki.root], [pki.gatewayCA])
    }

    package func acquirerEncryption(dataFolder: String) throws -> ACPCredentials {
        try Self.unionPayPKI(dataFolder).encryptionCredentials(folder: dataFolder + "/unionpay-sandbox")
    }

    package func acquirerGateway(
        dataFolder: String,
        merchants: [ACPCredentials],
        secureKeys: [String: String],
        encryption: ACPCredentials?,
        paymentDataField: String,
        http: HTTPClient,
        server: HTTPServerBuilder,
        configuration: ApplicationConfiguration,
        logger: Logger
    ) throws -> any Service {
        let gateway = try SandboxGateway(
            pki: try Self.unionPayPKI(dataFolder),
            merchants: merchants,
            http: http,
            paymentDataField: paymentDataField,
            secureKeys: secureKeys,
            encryption: encryption,
            logger: logger
        )
        return Application(router: gateway.router(), server: server, configuration: configuration, logger: logger)
    }

    package func browserRoutes(dataFolder: String, merchantKey: MerchantKey) throws -> ExtraRoutes {
        let events = tokenEvents
        let hub = SheetHub(
            pki: try SandboxMerchant.pki(dataFolder: dataFolder),
            recipient: TokenRecipient(merchantKey),
            merchantSessions: sessions,
            onMerchantToken: { page, token in events.issued(token, page: page) }
        )
        return { router, trustedProxies in try BrowserRoutes.add(to: router, hub: hub, trustedProxies: trustedProxies) }
    }
}
