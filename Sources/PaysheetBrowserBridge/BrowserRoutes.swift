import Foundation
import Hummingbird
import NIOCore
import PaysheetModel
import PaysheetServer

/// The browser side of `paysheet serve`: `paysheet.js` (the `ApplePaySession` drop-in), the
/// bridge it talks to (`POST /paysheet/v1/pages/{id}`), and the demo store at `/`.
package enum BrowserRoutes {
    typealias Asset = StaticAsset

    static let assets: [Asset] = [
        Asset(path: "/paysheet.js", file: "paysheet.js", contentType: "text/javascript; charset=utf-8"),
        Asset(path: "/", file: "store.html", contentType: "text/html; charset=utf-8"),
        Asset(path: "/store/store.js", file: "store.js", contentType: "text/javascript; charset=utf-8"),
        Asset(path: "/store/store.css", file: "store.css", contentType: "text/css; charset=utf-8"),
        Asset(path: "/store/order", file: "order.html", contentType: "text/html; charset=utf-8"),
        Asset(path: "/subscription.html", file: "subscription.html", contentType: "text/html; charset=utf-8"),
    ]

    /// The text of asset `file`, read from the resource bundle.
    static func load(_ file: String) throws -> ByteBuffer {
        try StaticAsset.load(file, from: .module, folder: "Assets", what: "the browser asset")
    }

    /// Adds the routes to `router`. Pages are counted per client: the peer's address, or the one
    /// a proxy of `trustedProxies` names in `X-Forwarded-For` (behind a proxy, every page would
    /// otherwise be the proxy's).
    package static func add(
        to router: Router<APIRequestContext>,
        hub: SheetHub,
        trustedProxies: [String] = []
    ) throws {
        for asset in assets {
            let body = try load(asset.file)
            router.get(RouterPath(stringLiteral: asset.path)) { _, _ -> Response in
                var headers: HTTPFields = [.contentType: asset.contentType, .cacheControl: "no-cache"]
                // A page of another origin loading paysheet.js with crossorigin="anonymous" sees the engine's
                // exceptions (their name and message), not "Script error.".
                if asset.path == "/paysheet.js" { headers[.accessControlAllowOrigin] = "*" }
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
            }
        }
        // Pages of any origin call the bridge: every answer, errors included, allows them.
        let bridge = router.group("/paysheet/v1/pages").add(middleware: AnyOriginMiddleware())
        // Anyone (sandbox only): a new page; its id is the page's only credential.
        bridge.post { request, context -> Response in
            let id = await hub.create(
                client: context.client(of: request, trustedProxies: trustedProxies),
                wall: Date().timeIntervalSince1970
            )
            return Response(
                status: .created,
                headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: JSONValue.object(["page": .string(id)]).compactText))
            )
        }
        addWalletOrderRoute(to: router, hub: hub)
        // Whoever holds the page's id.
        bridge.post(":id") { request, context -> Response in
            let id = context.parameters.get("id") ?? ""
            let buffer: ByteBuffer
            do { buffer = try await request.body.collect(upTo: BrowserPage.operationLimit) } catch {
                throw ServiceError(
                    .tooLarge,
                    code: "body_too_large",
                    message: "a bridge operation is at most \(BrowserPage.operationLimit / 1024) KiB"
                )
            }
            let json: JSONValue
            do throws(JSONParser.SyntaxError) {
                json = try JSONParser.parse(Array(buffer.readableBytesView))
            } catch {
                throw ServiceError.invalid(nil, "the body is not valid JSON: \(error)")
            }
            let answer = try await hub.handle(page: id, body: json, wall: Date().timeIntervalSince1970)
            return Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: answer.compactText))
            )
        }
    }
}
