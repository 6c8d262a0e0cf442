import Hummingbird
import PaysheetServer

/// The bridge is called by pages of any origin (a merchant's site loading or injecting
/// `paysheet.js`): every answer of its routes says `Access-Control-Allow-Origin: *`, its error
/// answers too, so that such a page reads the engine's refusal rather than a network error. Its
/// requests are simple (`text/plain`, no credentials), so no preflight comes.
struct AnyOriginMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response = try await JSONBody.answering { try await next(request, context) }
        response.headers[.accessControlAllowOrigin] = "*"
        return response
    }
}
