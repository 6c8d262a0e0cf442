import AsyncHTTPClient
import Foundation
import NIOCore
import PaysheetModel

/// Apple Pay's "Get Details of a Merchant Token Event":
/// `GET {gateway}/paymentservices/v1/merchantId/{merchantId}/merchantToken/event/{eventId}` with
/// `Content-Type`, `Accept` and `x-request-id`, answered with a `MerchantTokenEventResponse`
/// (`200`) or an `ErrorResponse` (`400`, `500`). `client` presents the merchant identity
/// certificate (`MerchantValidator.appleClient`) to Apple's gateway; a sandbox gateway reached over
/// plain HTTP (`/paysheet/v1/apple-pay-gateway` of `paysheet serve`) speaks the same.
package struct AppleMerchantTokenGateway: MerchantTokenEventSource {
    /// Apple's production gateway.
    package static let apple = "https://apple-pay-gateway.apple.com"

    /// The gateway's base URL (scheme and host, and a path prefix if any).
    let baseURL: String
    let client: HTTPClient

    /// A gateway at `baseURL`, asked through `client`.
    package init(baseURL: String = AppleMerchantTokenGateway.apple, client: HTTPClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.client = client
    }

    /// `text` as one path segment.
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    package func details(
        ofEvent eventId: String,
        merchantIdentifier: String
    ) async throws
        -> MerchantTokenEventDetails?
    {
        let path =
            "/paymentservices/v1/merchantId/\(Self.segment(merchantIdentifier))/merchantToken/event/\(Self.segment(eventId))"
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .GET
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "x-request-id", value: UUID().uuidString.lowercased())
        let response = try await client.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        switch response.status.code {
        case 200:
            guard let json = try? JSONParser.parse(Array(buffer: bytes)),
                let details = MerchantTokenEventDetails(json: json)
            else {
                throw ServiceError(
                    .upstreamFailure,
                    code: "token_gateway_unavailable",
                    message: "the token gateway's answer about event \(eventId) is not a MerchantTokenEventResponse"
                )
            }
            return details
        case 400, 404:
            return nil
        default:
            throw ServiceError(
                .upstreamFailure,
                code: "token_gateway_unavailable",
                message: "the token gateway answered HTTP \(response.status.code) about event \(eventId)"
            )
        }
    }
}
