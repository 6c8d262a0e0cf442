import Crypto
import Foundation
import NIOConcurrencyHelpers
import PaysheetModel
import PaysheetServer
import PaysheetSheet
import PaysheetToken

/// The sandbox's merchant sessions: shaped like Apple's, signed by this server (HMAC-SHA256 under
/// a key drawn when the server starts) so that the simulated wallet can tell them from hand-made
/// objects, and remembered once used until they expire. A session is checked by the server that
/// issued it: several servers behind a load balancer each have their own key. The merchant
/// server's validator issues them (its `sandbox` mode); the browser's pages check them.
public final class SandboxMerchantSessions: MerchantSessionIssuer, MerchantSessionVerifier, Sendable {
    /// What a signature starts with (the rest is the MAC in base64).
    static let prefix = "PAYSHEET-SANDBOX-HMAC-SHA256:"
    /// The key's bytes (swift-crypto's `SymmetricKey` is not `Sendable` on Linux).
    let keyBytes: [UInt8]
    let used = NIOLockedValueBox<[String: Double]>([:])

    /// A signer with a fresh key.
    public init() { keyBytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) } }

    /// The signature of `session`'s members (every member but `signature`, in name order).
    func signature(_ session: JSONObject) -> String {
        let text = session.members.filter { $0.key != "signature" }.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.compactText)" }.joined(separator: "\n")
        return Self.prefix
            + Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: keyBytes)))
            .base64EncodedString()
    }

    /// A session for the merchant of `settings`: Apple's members; the signature is the sandbox
    /// issuer's (not Apple's).
    public func session(for settings: MerchantSettings, now: Date) -> JSONValue {
        let identifierHash = Hex.encode(SHA256.hash(data: Data(settings.merchantIdentifier.utf8))).uppercased()
        let milliseconds = Int(now.timeIntervalSince1970 * 1000)
        let nonce = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max)) }.joined()
        return signed([
            "epochTimestamp": .number(String(milliseconds)), "expiresAt": .number(String(milliseconds + 300_000)),
            "merchantSessionIdentifier": .string("PAYSHEET_SANDBOX_SESSION_" + nonce.uppercased()),
            "nonce": .string(String(nonce.prefix(8))), "merchantIdentifier": .string(identifierHash),
            "domainName": .string(settings.domain), "displayName": .string(settings.displayName),
        ])
    }

    /// `session` with its signature.
    func signed(_ session: JSONObject) -> JSONValue {
        var s = session
        s["signature"] = .string(signature(session))
        return .object(s)
    }

    public func isSigned(_ session: JSONObject) -> Bool {
        guard let given = session["signature"]?.stringValue else { return false }
        return constantTimeEqual(Array(given.utf8), Array(signature(session).utf8))
    }

    public func use(_ identifier: String, expiresAt: Double) -> Bool {
        let now = Date().timeIntervalSince1970 * 1000
        return used.withLockedValue { used in
            used = used.filter { $0.value >= now }
            if used[identifier] != nil { return false }
            used[identifier] = expiresAt
            return true
        }
    }
}
