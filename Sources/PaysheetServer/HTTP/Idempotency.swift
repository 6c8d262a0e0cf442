import PaysheetModel
import Crypto
import Foundation
import Hummingbird
import NIOCore
import PaysheetTokenFormat

/// `Idempotency-Key` on mutating calls : the same key and body get the
/// stored answer (`Idempotent-Replayed: true`); the same key with another body gets 422;
/// while the first request runs, 409. Keys are kept at least 24 hours.
///
/// Keys are the caller's own: each is stored under the SHA-256 of its scope (the merchant's API
/// key id, the order a shopper acts on, or `anonymous` for a shopper's new order) and the key, so
/// one caller's key neither blocks nor reveals another's, and the key itself is not stored. A
/// stored answer is sealed (AES-256-GCM) under a key derived from the server's credential key and
/// the caller's `Idempotency-Key`: the database holds no answer in clear (an order's client
/// secret among them), and only a caller presenting the same key in the same scope — the caller
/// that made the request — can have it replayed. A refused request (an error answer) stores
/// nothing: its key is released.
struct Idempotency: Sendable {
    let store: PaymentStore
    let now: @Sendable () -> Date
    /// The server's credential key (shared by every server on the database), from which each
    /// answer's sealing key is derived.
    let sealingKey: Data

    /// A request's `Idempotency-Key`: absent, unusable (with its error answer), or the key to
    /// claim with the request's fingerprint.
    enum Key: Sendable {
        case none
        case unusable(APIAnswer)
        case claim(PaymentStore.IdempotencyRequest, caller: String)

        /// The key to claim, if any.
        var request: PaymentStore.IdempotencyRequest? {
            if case .claim(let request, _) = self { return request }
            return nil
        }
    }

    /// `request`'s key in `scope` (the caller: `merchant:key_…`, `order:…`, `anonymous`); the
    /// scope is also part of the fingerprint.
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
        let stored = Hex.encode(SHA256.hash(data: Data("\(scope)\n\(key)".utf8)))
        return .claim(.init(key: stored, fingerprint: Hex.encode(hasher.finalize()), at: now()), caller: key)
    }

    /// The sealing key of the answer stored under `storedKey` for a caller presenting `callerKey`.
    func answerKey(callerKey: String, storedKey: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: sealingKey),
            salt: Data(callerKey.utf8),
            info: Data("paysheet idempotent answer \(storedKey)".utf8),
            outputByteCount: 32
        )
    }

    /// `answer`'s body sealed for the key's caller, as stored.
    func seal(_ text: Data, callerKey: String, storedKey: String) throws -> String {
        let box = try AES.GCM.seal(
            text,
            using: answerKey(callerKey: callerKey, storedKey: storedKey),
            authenticating: Data(storedKey.utf8)
        )
        return "sealed:" + box.combined!.base64EncodedString()
    }

    /// A stored answer opened for the caller presenting `callerKey`; `nil` when it does not open.
    func open(_ stored: String, callerKey: String, storedKey: String) -> Data? {
        guard stored.hasPrefix("sealed:"), let data = Data(base64Encoded: String(stored.dropFirst(7))),
            let box = try? AES.GCM.SealedBox(combined: data)
        else { return nil }
        return try? AES.GCM.open(
            box,
            using: answerKey(callerKey: callerKey, storedKey: storedKey),
            authenticating: Data(storedKey.utf8)
        )
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
        let callerKey: String
        switch key {
        case .none:
            let answer = try await handled(handler).answer
            // As when the token was stored inside the authorization: a store that fails here does
            // not turn a payment made into an error; the token it names then opens nothing.
            if let token = answer.walletOrderToken { try? await store.insertWalletOrderToken(token, replacing: false) }
            return answer.response
        case .unusable(let answer): return answer.response
        case .claim(let request, let caller): (claim, callerKey) = (request, caller)
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
            guard let body = open(text, callerKey: callerKey, storedKey: claim.key) else {
                return JSONBody.error(
                    APIError(
                        status: 422,
                        code: "idempotency_key_reused",
                        field: "Idempotency-Key",
                        message:
                            "the answer stored for this Idempotency-Key cannot be opened (stored by an earlier version or under another credential key); use a new key"
                    )
                )
            }
            var response = JSONBody.raw(body, status: .init(code: status))
            response.headers[.init("Idempotent-Replayed")!] = "true"
            return response
        case .claimed:
            do {
                let (answer, refused) = try await handled(handler)
                if refused {
                    // A refusal changed nothing: nothing of it is kept, not even the key.
                    try await store.releaseIdempotency(key: claim.key)
                } else {
                    let sealed = try seal(answer.body, callerKey: callerKey, storedKey: claim.key)
                    if let token = answer.walletOrderToken {
                        try await store.finishIdempotency(
                            key: claim.key,
                            status: answer.status,
                            response: sealed,
                            walletOrderToken: token
                        )
                    } else {
                        try await store.finishIdempotency(key: claim.key, status: answer.status, response: sealed)
                    }
                }
                return answer.response
            } catch {
                try? await store.releaseIdempotency(key: claim.key)
                throw error
            }
        }
    }

    /// The handler's answer; `refused` when it refused the request (an error it threw).
    func handled(_ handler: () async throws -> APIAnswer) async throws -> (answer: APIAnswer, refused: Bool) {
        do {
            return (try await handler(), false)
        } catch let error as APIError {
            return (APIAnswer(error), true)
        } catch let error as ServiceError {
            return (APIAnswer(APIError(error)), true)
        }
    }
}

/// A JSON answer of the API: status and body.
struct APIAnswer: Sendable {
    var status: Int
    var body: Data
    /// `Retry-After` (seconds), if any.
    var retryAfter: Int?
    /// A Wallet order token the body hands out, stored before the answer is sent: with the
    /// idempotency key's answer when there is one (one commit), else on its own.
    var walletOrderToken: WalletOrderToken?

    init(status: Int = 200, body: Data, retryAfter: Int? = nil) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
    }

    init<T: Encodable>(_ value: T, status: Int = 200) throws {
        self.init(status: status, body: try JSONBody.encoder.encode(value))
    }

    init(_ error: APIError) {
        let body =
            (try? JSONBody.encoder.encode(
                JSONBody.ErrorBody(error: .init(code: error.code, message: error.message, field: error.field))
            )) ?? Data()
        self.init(status: error.status, body: body, retryAfter: error.retryAfter)
    }

    var response: Response {
        var response = JSONBody.raw(body, status: .init(code: status))
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
