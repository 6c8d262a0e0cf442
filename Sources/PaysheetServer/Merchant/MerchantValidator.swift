import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import PaysheetModel
import Tracing

/// Merchant validation (`onvalidatemerchant`): the server, never the browser, obtains the
/// opaque merchant session.
///
/// - `sandbox`: a ``MerchantSessionIssuer`` makes it (the sandbox's: a session object shaped like
///   Apple's, marked as a sandbox session; this library has none, `PaysheetBrowserBridge` does).
/// - `apple`: posts to Apple's payment session endpoint with mutual TLS and the merchant
///   identity certificate.
///
/// Both accept only validation URLs on Apple's gateway hosts (the hosts Apple documents for merchant validation).
public struct MerchantValidator: Sendable {
    /// How sessions are obtained.
    public enum Mode: Sendable {
        /// Sessions made by `issuer` (the sandbox's), no network.
        case sandbox(any MerchantSessionIssuer)
        /// Apple's endpoint, through `client` configured with the merchant identity certificate.
        case apple(client: HTTPClient)
    }

    let mode: Mode
    let settings: MerchantSettings

    /// A validator.
    public init(mode: Mode, settings: MerchantSettings) {
        self.mode = mode
        self.settings = settings
    }

    /// Apple's validation hosts.
    public static func isAppleValidationHost(_ host: String) -> Bool {
        let hostName = host.lowercased()
        if [
            "apple-pay-gateway.apple.com", "cn-apple-pay-gateway.apple.com", "apple-pay-gateway-cert.apple.com",
            "cn-apple-pay-gateway-cert.apple.com",
        ].contains(hostName) {
            return true
        }
        for prefix in ["apple-pay-gateway-nc-pod", "apple-pay-gateway-pr-pod"] {
            for number in 1...5
            where hostName == "\(prefix)\(number).apple.com" || hostName == "\(prefix)\(number)-dr.apple.com" {
                return true
            }
        }
        for prefix in ["cn-apple-pay-gateway-sh-pod", "cn-apple-pay-gateway-tj-pod"] {
            for number in 1...3 where hostName == "\(prefix)\(number).apple.com" { return true }
        }
        return false
    }

    /// The merchant session for `validationURL`.
    public func session(validationURL: String, now: Date = Date()) async throws -> JSONValue {
        try await withSpan("merchant.validate") { span in
            span.attributes["paysheet.merchant.id"] = settings.merchantIdentifier
            span.attributes["paysheet.merchant.domain"] = settings.domain
            return try await validatedSession(validationURL: validationURL, now: now, span: span)
        }
    }

    func validatedSession(validationURL: String, now: Date, span: any Span) async throws -> JSONValue {
        guard let url = URL(string: validationURL), url.scheme == "https", let host = url.host,
            Self.isAppleValidationHost(host)
        else {
            span.attributes["paysheet.merchant.validation"] = "refused host"
            throw ServiceError.invalid(
                "validationURL",
                "\(validationURL) is not an https URL on one of Apple's payment gateway hosts"
            )
        }
        switch mode {
        case .sandbox(let issuer):
            span.attributes["paysheet.merchant.validation"] = "sandbox"
            return issuer.session(for: settings, now: now)
        case .apple(let client):
            var request = HTTPClientRequest(url: "https://\(host)/paymentservices/paymentSession")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            let body: JSONValue = [
                "merchantIdentifier": .string(settings.merchantIdentifier),
                "displayName": .string(settings.displayName),
                "initiative": "web", "initiativeContext": .string(settings.domain),
            ]
            request.body = .bytes(ByteBuffer(string: body.compactText))
            span.attributes["server.address"] = host
            let response = try await client.execute(request, timeout: .seconds(10))
            span.attributes["http.response.status_code"] = Int(response.status.code)
            let bytes = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else {
                throw ServiceError(
                    .upstreamFailure,
                    code: "merchant_validation_failed",
                    message: "Apple answered HTTP \(response.status.code) to merchant validation"
                )
            }
            do { return try JSONParser.parse(Array(buffer: bytes)) } catch {
                throw ServiceError(
                    .upstreamFailure,
                    code: "merchant_validation_failed",
                    message: "Apple's merchant session is not JSON: \(error)"
                )
            }
        }
    }

    /// An HTTP client presenting the merchant identity certificate (`certificateFile`,
    /// `keyFile`, both PEM) for `apple` mode.
    public static func appleClient(certificateFile: String, keyFile: String) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateChain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) }
        tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}

/// Makes merchant sessions without Apple's gateway: the sandbox's (`PaysheetBrowserBridge`'s
/// `SandboxMerchantSessions`, which the simulated sheet can tell from hand-made objects).
public protocol MerchantSessionIssuer: Sendable {
    /// A merchant session for the merchant of `settings`, made at `now`.
    func session(for settings: MerchantSettings, now: Date) -> JSONValue
}
