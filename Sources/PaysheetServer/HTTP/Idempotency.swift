import PaysheetModel
import Crypto
import Foundation
import Hummingbird
import NIOCore
import PaysheetTokenFormat

/// `Idempotency-Key` on mutating calls : the same key and body get the
/// stored answer (`Idempotent-Replayed: true`); the same key with another body gets 422;
/// while the first request runs, 409. Keys are kept at least 24 hours.
struct Idempotency: Sendable {
    let store: PaymentStore
    let now: @Sendable () -> Date

    /// A request's `Idempotency-Key`: absent, unusable (with its error answer), or the key to
    /// claim with the request's fingerprint.
    enum Key: Sendable {
        case none
        case unusable(APIAnswer)
        case claim(PaymentStore.IdempotencyRequest)

        /// The key to claim, if any.
        var request: PaymentStore.IdempotencyRequest? {
            if case .claim(let request) = self { return request }
            return nil
        }
    }

    /// `request`'s key; `scope` (the caller's kind) is part of the fingerprint, so a shopper
    /// reusing a merchant's key gets 422, never the merchant's stored answer.
    func key(_ request: Request, body: ByteBuffer, scope: String) -> Key {
        guard let key = request.headers[.init("Idempotency-Key")!] else { return .none }
        guard !key.isEmpty, key.utf8.count <= 255 else {
            return .unusable(
                APIAnswer(APIError.invalid("Idempotency-Key", "the Idempotency-Key header must be 1 to 255 characters"))
            )
        }
        var hasher = SHA256()
        hasher.update(data: Data("\(scope) \(request.method.rawValue) \(request.uri.path)\n".utf8))
        hasher.update(data: Data(buffer: body))
        return .claim(.init(key: key, fingerprint: Hex.encode(hasher.finalize()), at: now()))
    }

    /// Runs `handler` once per key.
    func run(
        _ request: Request,
        body: ByteBuffer,
        scope: String,
        _ handler: () async throws -> APIAnswer
    ) async throws -> Response {
        try await run(key(request, body: body, scope: scope), claimed: false, handler)
    }

    /// Runs `handler` once per key; `claimed` when the key was claimed already (by the statement
    /// that checked the caller).
    func run(_ key: Key, claimed: Bool, _ handler: () async throws -> APIAnswer) async throws -> Response {
        let claim: PaymentStore.IdempotencyRequest
        switch key {
        case .none: return try await handled(handler).response
        case .unusable(let answer): return answer.response
        case .claim(let request): claim = request
        }
        switch claimed ? .claimed : try await store.claimIdempotency(claim) {
        case .mismatch:
            return JSONBody.error(
                APIError(
                    status: 422,
                    code: "idempotency_key_reused",
                    field: "Idempotency-Key",
                    message: "this Idempotency-Key was used with a different request; use a new key"
                )
            )
        case .inFlight:
            return JSONBody.error(
                APIError(
                    status: 409,
                    code: "idempotency_key_in_use",
                    field: "Idempotency-Key",
                    message: "a request with this Idempotency-Key is still being processed; retry later"
                )
            )
        case .replay(let status, let text):
            var response = JSONBody.raw(Data(text.utf8), status: .init(code: status))
            response.headers[.init("Idempotent-Replayed")!] = "true"
            return response
        case .claimed:
            do {
                let answer = try await handled(handler)
                try await store.finishIdempotency(
                    key: claim.key,
                    status: answer.status,
                    response: String(decoding: answer.body, as: UTF8.self)
                )
                return answer.response
            } catch {
                try? await store.releaseIdempotency(key: claim.key)
                throw error
            }
        }
    }

    func handled(_ handler: () async throws -> APIAnswer) async throws -> APIAnswer {
        do {
            return try await handler()
        } catch let error as APIError {
            return APIAnswer(error)
        } catch let error as ServiceError {
            return APIAnswer(APIError(error))
        }
    }
}

/// A JSON answer of the API: status and body.
struct APIAnswer: Sendable {
    var status: Int
    var body: Data

    init(status: Int = 200, body: Data) {
        self.status = status
        self.body = body
    }

    init<T: Encodable>(_ value: T, status: Int = 200) throws {
        self.init(status: status, body: try JSONBody.encoder.encode(value))
    }

    init(_ error: APIError) {
        let body =
            (try? JSONBody.encoder.encode(
                JSONBody.ErrorBody(error: .init(code: error.code, message: error.message, field: error.field))
            )) ?? Data()
        self.init(status: error.status, body: body)
    }

    var response: Response { JSONBody.raw(body, status: .init(code: status)) }
}
