import Foundation
import Hummingbird
import NIOCore

/// JSON in and out of the API, and errors as `{"error": {...}}`.
package enum JSONBody {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// Decodes `T` from `bytes`, naming the member that is wrong.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: ByteBuffer) throws -> T {
        guard bytes.readableBytes > 0 else {
            throw APIError.invalid(nil, "the request body is empty; a JSON object is expected")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: bytes))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw APIError.invalid(
                path(context.codingPath),
                "\(path(context.codingPath) ?? "the body") has the wrong type: \(context.debugDescription)"
            )
        } catch let DecodingError.keyNotFound(key, context) {
            let fieldPath = path(context.codingPath + [key])
            throw APIError.invalid(fieldPath, "\(fieldPath ?? key.stringValue) is required")
        } catch let DecodingError.dataCorrupted(context) {
            throw APIError.invalid(path(context.codingPath), "the body is not valid JSON: \(context.debugDescription)")
        } catch {
            throw APIError.invalid(nil, "the body is not valid JSON")
        }
    }

    static func path(_ keys: [any CodingKey]) -> String? {
        guard !keys.isEmpty else { return nil }
        var out = ""
        for key in keys {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += out.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return out
    }

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        raw(try encoder.encode(value), status: status)
    }

    static func raw(_ data: Data, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    struct ErrorBody: Encodable {
        struct Inner: Encodable {
            var code: String
            var message: String
            var field: String?
        }
        var error: Inner
    }

    static func error(_ e: APIError) -> Response { APIAnswer(e).response }
}

extension JSONBody {
    /// `answer()`'s response, or the API's answer to the ``APIError`` or ``ServiceError`` it threw
    /// (`{"error": {…}}`, its status, `Retry-After`): for middlewares and routes that add headers of
    /// their own to every answer, errors included. Other errors go on.
    package static func answering(_ answer: () async throws -> Response) async throws -> Response {
        do {
            return try await answer()
        } catch let error as APIError {
            return JSONBody.error(error)
        } catch let error as ServiceError {
            return JSONBody.error(APIError(error))
        }
    }
}
