import Foundation
import Hummingbird
import NIOCore

/// The merchant server's request context: Hummingbird's core context and the peer's address
/// (the browser bridge bounds its pages per client address).
public struct APIRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's address, when the channel knows it.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The peer's IP address as text (`127.0.0.1`), or `unknown`.
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }

    /// The client's address: the peer's, or, when the peer is one of `trustedProxies`, the last
    /// address of the request's `X-Forwarded-For` (the one that proxy saw).
    package func client(of request: Request, trustedProxies: [String]) -> String {
        let peer = clientAddress
        guard trustedProxies.contains(peer),
            let forwarded = request.headers[values: .init("X-Forwarded-For")!].last?.split(separator: ",").last
        else { return peer }
        let address = forwarded.trimmingCharacters(in: .whitespaces)
        return address.isEmpty ? peer : address
    }
}
