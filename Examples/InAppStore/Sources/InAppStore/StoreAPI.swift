import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The merchant server's routes the app calls for one order, with the order's client secret
/// (what the app's own back end handed it; the app never holds the merchant's key).
public struct StoreAPI: Sendable {
    public let server: URL
    public let orderId: String
    public let clientSecret: String

    public init(server: URL, orderId: String, clientSecret: String) {
        self.server = server
        self.orderId = orderId
        self.clientSecret = clientSecret
    }

    /// POSTs `body` to `/v1/orders/{id}/{route}`; the answer's JSON object.
    public func post(_ route: String, _ body: [String: Any]) async throws -> [String: Any] {
        var request = URLRequest(url: server.appendingPathComponent("v1/orders/\(orderId)/\(route)"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(clientSecret)", forHTTPHeaderField: "Authorization")
        request.setValue(UUID().uuidString, forHTTPHeaderField: "Idempotency-Key")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw StoreError("\(route): the answer is not a JSON object")
        }
        if let status = (response as? HTTPURLResponse)?.statusCode, status >= 400 {
            throw StoreError("\(route): \(status) \(object["error"] ?? object)")
        }
        return object
    }
}

/// Something the store could not do.
public struct StoreError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
