import Foundation
import Testing

@testable import PaysheetServer

/// Secrets and identifiers: their shape, and bytes drawn from the whole range.
@Suite struct SecretsTests {
    @Test func secretsAreAPrefixAnd32BytesOfUnpaddedBase64url() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var seen = Set<String>()
        for _ in 0..<200 {
            let secret = Secrets.make("cs_")
            #expect(secret.hasPrefix("cs_") && secret.count == 3 + 43)
            #expect(secret.dropFirst(3).allSatisfy { alphabet.contains($0) })
            seen.insert(secret)
        }
        #expect(seen.count == 200)
        for count in [0, 1, 5, 31, 32] {
            let digits = Secrets.hex(count)
            #expect(digits.count == count && digits.allSatisfy(\.isHexDigit))
        }
    }

    @Test func randomBytesAreOfTheLengthAskedAndCoverEveryValue() {
        for count in [0, 1, 7, 8, 9, 33] { #expect(Secrets.randomBytes(count).count == count) }
        // 16,384 bytes: a value missing from them would be a broken generator (chance ≈ 256·e⁻⁶⁴).
        #expect(Set(Secrets.randomBytes(16_384)).count == 256)
    }

    @Test func base64urlIsBase64WithTheURLAlphabetAndNoPadding() {
        for length in 0..<40 {
            let bytes = Secrets.randomBytes(length)
            let expected = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Secrets.base64url(bytes) == expected)
        }
        #expect(Secrets.base64url([0xFB, 0xFF, 0xBF]) == "-_-_")
    }
}
