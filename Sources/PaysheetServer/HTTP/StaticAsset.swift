import Foundation
import NIOCore

/// A static file a module serves from its resource bundle: where it is served, its name in the
/// bundle and its type (the merchant console's files, the browser drop-in and demo store's).
package struct StaticAsset: Sendable {
    package var path: String
    package var file: String
    package var contentType: String

    package init(path: String, file: String, contentType: String) {
        self.path = path
        self.file = file
        self.contentType = contentType
    }

    /// The bytes of `file` in `bundle` (in `folder`, or at its top), or a ``ConfigurationError``
    /// naming `what` is missing.
    package static func load(
        _ file: String,
        from bundle: Bundle,
        folder: String,
        what: String
    ) throws -> ByteBuffer {
        let name = (file as NSString).deletingPathExtension
        let ext = (file as NSString).pathExtension
        guard
            let url = bundle.url(forResource: name, withExtension: ext, subdirectory: folder)
                ?? bundle.url(forResource: name, withExtension: ext)
        else {
            throw ConfigurationError("\(what) \(file) is missing from the \(bundle.bundleURL.lastPathComponent) bundle")
        }
        return ByteBuffer(data: try Data(contentsOf: url))
    }
}
