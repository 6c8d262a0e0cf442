import Foundation
import Testing
@testable import PaysheetModel
@testable import PaysheetBrowserBridge
@testable import PaysheetServer

/// The sandbox's merchant sessions: signed over every member, checked in constant time by the
/// server that issued them, used once.
@Suite struct SandboxMerchantSessionTests {
    @Test func theSandboxSessionIsSignedAndAnyChangedMemberBreaksTheSignature() async throws {
        let sessions = SandboxMerchantSessions()
        let validator = MerchantValidator(mode: .sandbox(sessions), settings: MerchantSettings())
        let session = try await validator.session(
            validationURL: "https://apple-pay-gateway.apple.com/paymentservices/startSession"
        )
        let o = try #require(session.objectValue)
        #expect(o["signature"]?.stringValue?.hasPrefix(SandboxMerchantSessions.prefix) == true)
        #expect(sessions.isSigned(o))
        for member in ["domainName", "expiresAt", "merchantSessionIdentifier", "nonce", "displayName"] {
            var changed = o
            changed[member] = .string("x")
            #expect(!sessions.isSigned(changed), "\(member) changed")
        }
        // Another server's key does not verify it.
        #expect(!SandboxMerchantSessions().isSigned(o))
        let id = try #require(o["merchantSessionIdentifier"]?.stringValue)
        let expires = try #require(o["expiresAt"]?.doubleValue)
        #expect(sessions.use(id, expiresAt: expires))
        #expect(!sessions.use(id, expiresAt: expires))
    }
}
