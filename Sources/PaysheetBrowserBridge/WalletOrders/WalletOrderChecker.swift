import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel
import PaysheetSheet
import PaysheetToken

/// The simulated wallet after a payment that gave it an order: it fetches the order package from
/// the merchant's web service as Wallet does (`GET {webServiceURL}/v1/orders/{orderTypeIdentifier}/
/// {orderIdentifier}`, `Authorization: AppleOrder {authenticationToken}`) and checks it
/// (``WalletOrderPackageCheck``). The fetch is the server's, so it is bounded: plain HTTP only to
/// this machine, 10 seconds, 4 MiB (a page names the URL; see docs/sheet.md).
package struct WalletOrderChecker: Sendable {
    /// The package checks (the trusted roots).
    let package: WalletOrderPackageCheck
    /// The client that fetches.
    let http: HTTPClient
    /// The time of the certificates' validity check.
    let now: @Sendable () -> Date

    /// Bytes of a package at most.
    static let packageLimit = 4 << 20
    /// How long a fetch may take (connecting included: a web service that refuses connections is
    /// tried again until then).
    let timeout: TimeAmount

    package init(
        trust: TrustAnchors,
        http: HTTPClient = .shared,
        timeout: TimeAmount = .seconds(10),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.package = WalletOrderPackageCheck(trust: trust)
        self.http = http
        self.timeout = timeout
        self.now = now
    }

    /// The verdict on the order `details` name.
    package func verdict(_ details: ApplePayPaymentOrderDetails) async -> WalletOrderVerdict {
        let url: String
        switch Self.orderURL(details) {
        case .success(let address): url = address
        case .failure(let refusal): return refusal.verdict
        }
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "Authorization", value: "AppleOrder " + details.authenticationToken)
        let body: ByteBuffer
        do {
            let response = try await http.execute(request, timeout: timeout)
            body = try await response.body.collect(upTo: Self.packageLimit)
            guard response.status == .ok else {
                return .refused(
                    .fetch,
                    "the web service answered \(response.status.code) to GET \(url)\(Self.reason(body))"
                )
            }
        } catch let error as NIOTooManyBytesError {
            _ = error
            return .refused(.fetch, "the package at \(url) is larger than \(Self.packageLimit >> 20) MiB")
        } catch {
            return .refused(.fetch, "the web service could not be reached at \(url) (\(error))")
        }
        return await package.verdict(Data(buffer: body), details: details, at: now())
    }

    /// The order's URL on its web service, if the wallet would call it: HTTPS, or plain HTTP to
    /// this machine (Wallet's developer setting for local web services).
    static func orderURL(_ details: ApplePayPaymentOrderDetails) -> Result<String, WalletOrderPackageCheck.Refusal> {
        guard let base = URL(string: details.webServiceURL), let scheme = base.scheme?.lowercased(),
            let host = base.host
        else {
            return .failure(.init(verdict: .refused(.webServiceURL, "\(details.webServiceURL) is not an absolute URL")))
        }
        let local = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && local) else {
            return .failure(
                .init(
                    verdict: .refused(
                        .webServiceURL,
                        "the web service URL \(details.webServiceURL) is not HTTPS (Wallet calls order web services over HTTPS; plain HTTP only on this machine)"
                    )
                )
            )
        }
        var text = details.webServiceURL
        while text.hasSuffix("/") { text.removeLast() }
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
        func segment(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value }
        return .success(
            text + "/v1/orders/" + segment(details.orderTypeIdentifier) + "/" + segment(details.orderIdentifier)
        )
    }

    /// `: message` of a JSON error answer, or nothing.
    static func reason(_ body: ByteBuffer) -> String {
        guard let json = try? JSONParser.parse(Array(body.readableBytesView)),
            let message = json["error"]?["message"]?.stringValue
        else { return "" }
        return ": " + String(message.prefix(300))
    }
}
