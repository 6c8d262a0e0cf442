import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PaysheetModel
import PaysheetSheet

/// The merchant page's handlers as a `PaymentSheetDelegate`: each sheet event is a call to the
/// merchant server's update endpoints, authorization included (`paysheet pay`, end-to-end tests).
public struct RemoteCheckout: PaymentSheetDelegate {
    /// Sends one call (method, path, headers, body) and returns the status and body.
    public typealias Transport =
        @Sendable (_ method: String, _ path: String, _ headers: [(String, String)], _ body: String?) async throws -> (
            status: Int, body: [UInt8]
        )

    let transport: Transport
    let order: String
    let credential: String?
    /// What the server refused, in the order its answers came.
    public let refusals = Refusals()

    /// A checkout of `order` on the merchant server at `server`, authorized by `credential` (the
    /// order's client secret, or a merchant API key), sent as `Authorization: Bearer`.
    /// `headers` go with every call (a W3C `traceparent` that puts the server's spans in the caller's trace).
    public init(
        http: HTTPClient,
        server: String,
        order: String,
        credential: String?,
        headers: [(String, String)] = []
    ) {
        self.init(order: order, credential: credential, transport: Self.http(http, server: server, headers: headers))
    }

    /// Calls over HTTP to the merchant server at `server` (answers of at most 4 MiB, 40 s each),
    /// each with `fixed` headers besides its own.
    public static func http(_ http: HTTPClient, server: String, headers fixed: [(String, String)] = []) -> Transport {
        { method, path, headers, body in
            var request = HTTPClientRequest(url: server + path)
            request.method = .init(rawValue: method)
            for (name, value) in fixed + headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(ByteBuffer(string: body)) }
            let response = try await http.execute(request, timeout: .seconds(40))
            return (Int(response.status.code), Array(buffer: try await response.body.collect(upTo: 4 << 20)))
        }
    }

    /// A checkout whose calls go through `transport` (a server in the same process, in tests).
    public init(order: String, credential: String?, transport: @escaping Transport) {
        self.transport = transport
        self.order = order
        self.credential = credential
    }

    /// A failed call: the path, the HTTP status and the server's message.
    public struct CallError: Error, CustomStringConvertible, Sendable {
        /// What failed.
        public var description: String
        /// The server's stable error code, when it answered with one.
        public var code: String?
        /// The server's message, when it answered with one.
        public var message: String?
        /// An error saying `description`.
        public init(description: String, code: String? = nil, message: String? = nil) {
            self.description = description
            self.code = code
            self.message = message
        }
    }

    /// One refusal: the call (`authorize`, `merchant-session`, …), the server's stable code and
    /// its message (which says what to pass when the sandbox's parts do not match).
    public struct Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The call refused.
        public var call: String
        /// The server's stable code (`token_chain`, `unauthorized`, …).
        public var code: String
        /// What was wrong and what to do about it.
        public var message: String

        public var description: String { "\(call) refused (\(code)): \(message)" }
    }

    /// The refusals a checkout met (a reference: the delegate's copies share it).
    public final class Refusals: Sendable {
        let box = NIOLockedValueBox<[Refusal]>([])
        /// Every refusal so far, oldest first.
        public var all: [Refusal] { box.withLockedValue { $0 } }
        func record(_ call: String, _ error: any Error) {
            if let error = error as? CallError, let code = error.code {
                record(Refusal(call: call, code: code, message: error.message ?? error.description))
            }
        }
        func record(_ refusal: Refusal) { box.withLockedValue { $0.append(refusal) } }
    }

    /// GET `path` (JSON).
    public func get(_ path: String) async throws -> JSONValue {
        try await send("GET", path, nil)
    }

    /// POST `body` to `path` with a fresh `Idempotency-Key`.
    public func post(_ path: String, _ body: JSONValue) async throws -> JSONValue {
        try await send("POST", path, body.compactText)
    }

    func send(_ method: String, _ path: String, _ body: String?) async throws -> JSONValue {
        var headers: [(String, String)] = []
        if body != nil {
            headers.append(("Content-Type", "application/json"))
            headers.append(("Idempotency-Key", UUID().uuidString))
        }
        if let credential { headers.append(("Authorization", "Bearer " + credential)) }
        let (status, bytes) = try await transport(method, path, headers, body)
        let json = try JSONParser.parse(bytes)
        guard (200..<300).contains(status) else {
            let message = json["error"]?["message"]?.stringValue
            throw CallError(
                description: "\(path): HTTP \(status) \(message ?? json.compactText)",
                code: json["error"]?["code"]?.stringValue,
                message: message
            )
        }
        return json
    }

    func update(_ path: String, _ body: JSONValue, _ sheet: PaymentSheetDriver) async -> ApplePayUpdate {
        do {
            return try decodeJSONValue(ApplePayUpdate.self, from: try await post("/v1/orders/\(order)/\(path)", body))
        } catch {
            refusals.record(path, error)
            FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
            return await sheet.unchangedUpdate()
        }
    }

    public func paymentSheet(_ sheet: PaymentSheetDriver, validateMerchantAt validationURL: String) async -> JSONValue {
        do {
            return try await post("/v1/orders/\(order)/merchant-session", ["validationURL": .string(validationURL)])
        } catch {
            refusals.record("merchant-session", error)
            FileHandle.standardError.write(Data("merchant-session: \(error)\n".utf8))
            return .null
        }
    }
    public func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectPaymentMethod method: ApplePayPaymentMethod
    ) async -> ApplePayPaymentMethodUpdate {
        await update("payment-method", ["paymentMethod": (try? JSONValueEncoder().encode(method)) ?? .null], sheet)
    }
    public func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectShippingContact contact: ApplePayPaymentContact
    ) async -> ApplePayShippingContactUpdate {
        await update("shipping-contact", ["shippingContact": (try? JSONValueEncoder().encode(contact)) ?? .null], sheet)
    }
    public func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didSelectShippingMethod method: ApplePayShippingMethod
    ) async -> ApplePayShippingMethodUpdate {
        await update("shipping-method", ["shippingMethod": (try? JSONValueEncoder().encode(method)) ?? .null], sheet)
    }
    public func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didChangeCouponCode code: String
    ) async -> ApplePayCouponCodeUpdate {
        await update("coupon-code", ["couponCode": .string(code)], sheet)
    }
    public func paymentSheet(
        _ sheet: PaymentSheetDriver,
        didAuthorizePayment payment: ApplePayPayment
    ) async -> ApplePayPaymentAuthorizationResult {
        do {
            let answer = try await post(
                "/v1/orders/\(order)/authorize",
                ["payment": try JSONValueEncoder().encode(payment)]
            )
            // A refused token: the sheet shows the shopper's message; its sender is told why.
            if let code = answer["refusal"]?["code"]?.stringValue {
                refusals.record(
                    Refusal(call: "authorize", code: code, message: answer["refusal"]?["message"]?.stringValue ?? "")
                )
            }
            return try decodeJSONValue(ApplePayPaymentAuthorizationResult.self, from: answer["result"] ?? .null)
        } catch {
            refusals.record("authorize", error)
            FileHandle.standardError.write(Data("authorize: \(error)\n".utf8))
            return ApplePayPaymentAuthorizationResult(
                status: .failure,
                errors: [ApplePayError(.unknown, message: "The merchant server did not answer")]
            )
        }
    }
}
