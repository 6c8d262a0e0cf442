import Foundation
import InMemoryTracing
import PaysheetBrowserBridge
import PaysheetModel
import PaysheetSheet
import PaysheetSheetTokens
import Testing
import Tracing

@testable import PaysheetServer

/// The process's tracer in these tests: `InstrumentationSystem` takes one, once, so it is
/// bootstrapped on first use; other suites' spans land in it too, and a test reads only its own trace.
enum TestTracer {
    static let shared: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()
}

/// Collects a trace context's headers, as a client sends them.
struct HeaderListInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [(String, String)]) {
        carrier.append((key, value))
    }
}

/// One payment's trace (docs/server.md, "Tracing"): its spans, their parent links, the trace
/// context sent to the acquirer, and no card data, token or secret in any attribute.
@Suite(.serialized) struct TracingTests {
    @Test func aPaymentIsOneTraceUnderTheShoppersContextWithNoSecretInIt() async throws {
        let tracer = TestTracer.shared
        try await TestServer.inProcess { server in
            let factory = try await server.tokenFactory()
            let order = try await server.createOrder()
            let id = try #require(order["id"]?.stringValue)
            let secret = try #require(server.secret(id))
            // The shopper's page: one span whose context every call carries (the tracer's headers).
            let (paid, traceID, checkoutSpanID) = try await withSpan("shopper checkout") { span in
                var headers: [(String, String)] = []
                InstrumentationSystem.instrument.inject(
                    ServiceContext.current ?? .topLevel,
                    into: &headers,
                    using: HeaderListInjector()
                )
                #expect(!headers.isEmpty)
                let (transport, sent) = (server.transport, headers)
                let checkout = RemoteCheckout(order: id, credential: secret) { method, path, own, body in
                    try await transport(method, path, sent + own, body)
                }
                let request = try decodeJSONValue(ApplePayPaymentRequest.self, from: order["paymentRequest"] ?? .null)
                let sheet = try await PaymentSheetDriver.begin(
                    version: 14,
                    request: request,
                    delegate: checkout,
                    configuration: SheetConfiguration(
                        wallet: .default,
                        validationURL: "https://apple-pay-gateway-cert.apple.com/paymentservices/startSession",
                        tokenFactory: factory
                    )
                )
                try await sheet.authorize()
                let context = try #require(span.context.inMemorySpanContext)
                return (await sheet.paid, context.traceID, context.spanID)
            }
            #expect(paid)
            let after = try await server.order(id)
            let paymentId = try #require(after["payments"]?.arrayValue?.first?["id"]?.stringValue)

            let spans = tracer.finishedSpans.filter { $0.traceID == traceID }
            let byID = Dictionary(spans.map { ($0.spanID, $0) }, uniquingKeysWith: { a, _ in a })
            func named(_ name: String) -> [FinishedInMemorySpan] { spans.filter { $0.operationName == name } }
            func parent(_ span: FinishedInMemorySpan) -> FinishedInMemorySpan? {
                span.parentSpanID.flatMap { byID[$0] }
            }

            // Every server span of the checkout is a child of the shopper's span (its traceparent).
            let requests = spans.filter { $0.kind == .server && $0.parentSpanID == checkoutSpanID }
            let routes = Set(requests.map(\.operationName))
            #expect(routes.contains("/v1/orders/{id}/merchant-session"), "\(routes.sorted())")
            #expect(routes.contains("/v1/orders/{id}/authorize"), "\(routes.sorted())")

            // Merchant validation under its request.
            let validate = try #require(named("merchant.validate").first)
            #expect(parent(validate)?.operationName == "/v1/orders/{id}/merchant-session")

            // Authorization under its request: verification, decryption, the acquirer's consume.
            let authorize = try #require(named("payment.authorize").first)
            #expect(parent(authorize)?.operationName == "/v1/orders/{id}/authorize")
            #expect(authorize.attributes["paysheet.order.id"]?.toSpanAttribute() == .string(id))
            let verify = try #require(named("token.verify").first)
            let decrypt = try #require(named("token.decrypt").first)
            #expect(verify.parentSpanID == authorize.spanID)
            #expect(decrypt.parentSpanID == authorize.spanID)
            let charge = try #require(named("acquirer.charge").first)
            #expect(charge.parentSpanID == authorize.spanID)
            #expect(charge.attributes["paysheet.payment.id"]?.toSpanAttribute() == .string(paymentId))
            let consume = try #require(named("unionpay consume").first)
            #expect(consume.kind == .client)
            #expect(consume.parentSpanID == charge.spanID)
            #expect(consume.attributes["unionpay.resp_code"]?.toSpanAttribute() == .string("00"))
            // The gateway continued the trace the consume sent it (its `traceparent`; AsyncHTTPClient's
            // own client span may sit between).
            func isUnder(_ span: FinishedInMemorySpan, _ ancestor: FinishedInMemorySpan) -> Bool {
                var next: FinishedInMemorySpan? = span
                while let current = next {
                    if current.spanID == ancestor.spanID { return true }
                    next = parent(current)
                }
                return false
            }
            let gateway = spans.filter {
                $0.kind == .server && isUnder($0, consume) && $0.operationName != "/v1/notifications/unionpay"
            }
            #expect(gateway.map(\.operationName) == ["/gateway/api/backTransReq.do"])

            // The outcome: an event on the authorization with the final states.
            let outcome = try #require(authorize.events.first { $0.name == "payment.outcome" })
            #expect(outcome.attributes["paysheet.payment.state"]?.toSpanAttribute() == .string("succeeded"))
            #expect(outcome.attributes["paysheet.order.status"]?.toSpanAttribute() == .string("paid"))
            #expect(outcome.attributes["paysheet.payment.id"]?.toSpanAttribute() == .string(paymentId))

            // What settled it (the notification the gateway sent with the consume's trace
            // context, or a query) names the payment.
            let settling = tracer.finishedSpans.filter {
                ["payment.notification", "payment.query"].contains($0.operationName)
                    && $0.attributes["paysheet.payment.id"]?.toSpanAttribute() == .string(paymentId)
            }
            #expect(!settling.isEmpty)

            // No card data, token, client secret, API key or private key in any attribute or event.
            var forbidden = try await ConsoleAPITests.secrets(of: factory, server: server)
            forbidden += [secret, server.merchantKey]
            forbidden += Self.privateKeyLines(in: server.data)
            #expect(forbidden.count >= 8)
            var seen: [String] = []
            for span in spans + settling {
                span.attributes.forEach { key, value in seen.append("\(key)=\(value)") }
                for event in span.events {
                    event.attributes.forEach { key, value in seen.append("\(event.name).\(key)=\(value)") }
                }
            }
            #expect(seen.contains { $0.contains(id) })  // the scan reads real attributes
            for value in seen {
                for secret in forbidden where value.contains(secret) {
                    Issue.record("a secret in a span attribute: \(value.prefix(40))…")
                }
            }
        }
    }

    @Test func tracesAreOffByDefaultAndTheSettingsAreChecked() throws {
        let defaults = try ServerConfiguration.load(file: nil, environment: [:])
        #expect(defaults.telemetry.otlpEndpoint.isEmpty)
        #expect(defaults.telemetry.logFormat == .text)
        let on = try ServerConfiguration.load(
            file: nil,
            environment: ["PAYSHEET_OTLP_ENDPOINT": "http://127.0.0.1:4318", "PAYSHEET_LOG_FORMAT": "json"]
        )
        #expect(on.telemetry.otlpEndpoint == "http://127.0.0.1:4318")
        #expect(on.telemetry.logFormat == .json)
        for (name, value, says) in [
            ("PAYSHEET_LOG_FORMAT", "xml", "neither text nor json"),
            ("PAYSHEET_OTLP_ENDPOINT", "127.0.0.1:4318", "not an http:// or https:// URL"),
        ] {
            #expect {
                _ = try ServerConfiguration.load(file: nil, environment: [name: value])
            } throws: { error in
                "\(error)".contains(says)
            }
        }
    }

    /// The base64 lines of every PEM private key in `folder` (recursively).
    static func privateKeyLines(in folder: String) -> [String] {
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        var lines: [String] = []
        for file in files {
            guard let text = try? String(contentsOfFile: folder + "/" + file, encoding: .utf8),
                text.contains("PRIVATE KEY-----")
            else { continue }
            lines += text.split(separator: "\n").map(String.init).filter { $0.count >= 40 && !$0.hasPrefix("-----") }
        }
        return lines
    }
}
