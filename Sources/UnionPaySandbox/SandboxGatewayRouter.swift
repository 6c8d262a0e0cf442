import UnionPay
import Foundation
import Hummingbird
import NIOCore
import Tracing

extension SandboxGateway {
    /// The gateway's HTTP routes: the three ACP endpoints (transactions, queries, file transfer at `/`), `GET /sandbox/ledger`, `GET /sandbox/queries`,
    /// `GET`/`PUT /sandbox/faults`, `PUT /sandbox/clock` (file transfers' clock),
    /// `PUT /sandbox/merchant-tokens` (a stored token deleted or expired), `GET /sandbox/held` and
    /// `POST /sandbox/release` (the charges the `holdCharges` fault holds) and `GET /health`.
    public nonisolated func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        // A server span per request under the client's `traceparent` (no-op unless the process
        // bootstrapped a tracer); a notification carries the trace context of its transaction.
        router.middlewares.add(TracingMiddleware())
        router.post(RouterPath(ACPPath.backTransaction)) { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try await Self.send(self.backTransaction(String(buffer: body)))
        }
        router.post(RouterPath(ACPPath.query)) { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try await Self.send(self.query(String(buffer: body)))
        }
        router.post(RouterPath(ACPPath.fileTransfer)) { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try await Self.send(self.fileTransfer(String(buffer: body)))
        }
        router.get("/sandbox/ledger") { _, _ -> Response in
            let entries = await self.entries()
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys]
            return Self.json(try encoder.encode(entries))
        }
        router.get("/sandbox/queries") { _, _ -> Response in
            let log = await self.queryLog().map { entry -> [String: String] in
                [
                    "transaction": entry.transaction,
                    "receivedMs": String(Int(entry.received.timeIntervalSince1970 * 1000)),
                    "answeredMs": String(Int(entry.answered.timeIntervalSince1970 * 1000)),
                ]
            }
            return Self.json(try JSONEncoder().encode(log))
        }
        router.get("/sandbox/faults") { _, _ -> Response in
            Self.json(try JSONEncoder().encode(await self.currentFaults()))
        }
        router.put("/sandbox/faults") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 16)
            guard let faults = try? JSONDecoder().decode(SandboxFaults.self, from: Data(buffer: body)) else {
                return Response(
                    status: .badRequest,
                    headers: [.contentType: "text/plain"],
                    body: .init(
                        byteBuffer: ByteBuffer(string: "the body must be a JSON object of SandboxFaults fields")
                    )
                )
            }
            await self.setFaults(faults)
            return Self.json(try JSONEncoder().encode(faults))
        }
        router.put("/sandbox/clock") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 12)
            guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
                let offset = (object["fileOffsetSeconds"] as? NSNumber)?.doubleValue, abs(offset) <= 400 * 86_400
            else {
                return Response(
                    status: .badRequest,
                    headers: [.contentType: "text/plain"],
                    body: .init(
                        byteBuffer: ByteBuffer(string: "the body must be {\"fileOffsetSeconds\": N}, |N| ≤ 400 days")
                    )
                )
            }
            await self.setFileClockOffset(offset)
            return Self.json(try JSONSerialization.data(withJSONObject: ["fileOffsetSeconds": offset]))
        }
        // A merchant token the network stops honouring (the shopper deleted it, or it expired).
        router.put("/sandbox/merchant-tokens") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 12)
            guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
                let suffix = object["suffix"] as? String, suffix.count == 4, suffix.allSatisfy(\.isNumber),
                let state = object["status"] as? String, ["deleted", "expired", "active"].contains(state)
            else {
                return Response(
                    status: .badRequest,
                    headers: [.contentType: "text/plain"],
                    body: .init(
                        byteBuffer: ByteBuffer(
                            string:
                                "the body must be {\"suffix\": \"1234\", \"status\": \"deleted\" | \"expired\" | \"active\"}"
                        )
                    )
                )
            }
            await self.setTokenState(suffix: suffix, state: state)
            return Self.json(try JSONSerialization.data(withJSONObject: ["suffix": suffix, "status": state]))
        }
        // A test's hand on the acquirer's processing time (``SandboxFaults/holdCharges``).
        router.get("/sandbox/held") { _, _ -> Response in
            Self.json(try JSONSerialization.data(withJSONObject: ["held": await self.heldChargeCount()]))
        }
        router.post("/sandbox/release") { _, _ -> Response in
            Self.json(try JSONSerialization.data(withJSONObject: ["released": await self.releaseHeldCharges()]))
        }
        router.get("/health") { _, _ in "ok" }
        return router
    }

    static func send(_ reply: Reply) async throws -> Response {
        if reply.delay > 0 { try await Task.sleep(for: .milliseconds(Int(reply.delay * 1000))) }
        return Response(
            status: .init(code: reply.status),
            headers: [.contentType: "application/x-www-form-urlencoded;charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(string: reply.body))
        )
    }

    static func json(_ data: Data) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
