import Foundation
import HTTPTypes
import NIOCore

/// The merchant console's static files (`Console/` in the resource bundle), served by every
/// server, sandbox or production: they hold no data and no credential. The page asks for a
/// merchant API key, keeps it in the tab's `sessionStorage` and sends it as
/// `Authorization: Bearer` to the merchant-key routes it reads and calls.
enum ConsoleAssets {
    typealias Asset = StaticAsset

    static let all: [Asset] = [
        Asset(path: "/console", file: "console.html", contentType: "text/html; charset=utf-8"),
        Asset(path: "/console/console.js", file: "console.js", contentType: "text/javascript; charset=utf-8"),
        Asset(path: "/console/console.css", file: "console.css", contentType: "text/css; charset=utf-8"),
    ]

    /// The text of `file`, read from the resource bundle.
    static func load(_ file: String) throws -> ByteBuffer {
        try StaticAsset.load(file, from: .module, folder: "Console", what: "the console's")
    }

    /// The page's own files only, nothing inline, no frame of it on another page (a click on a
    /// refund could be stolen), no referrer, no guessing of types.
    static let policy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// The headers of a console file of type `contentType`.
    static func headers(_ contentType: String) -> HTTPFields {
        var headers: HTTPFields = [.contentType: contentType, .cacheControl: "no-cache"]
        headers[HTTPField.Name("Content-Security-Policy")!] = policy
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return headers
    }
}
