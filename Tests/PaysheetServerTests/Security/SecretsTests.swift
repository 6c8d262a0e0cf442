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

    /// Ids go into paths, logs and trace attributes: none may hold 13 decimal digits in a row,
    /// which scanners (and CI's trace check) take for a card number. Random hexadecimal does about
    /// 2 times in 100 for an acquirer's order id, so 5,000 of each would show it.
    @Test func noIdLooksLikeACardNumber() {
        #expect(IDs.longestRunOfDigits("ab1234567890123cd") == 13)
        #expect(IDs.longestRunOfDigits("12a345") == 3)
        #expect(IDs.longestRunOfDigits("") == 0)
        for _ in 0..<5_000 {
            let acquirerId = UnionPayAcquirer.newOrderId()
            #expect(acquirerId.count == 32 && acquirerId.allSatisfy(\.isHexDigit))
            #expect(IDs.longestRunOfDigits(acquirerId) <= 12, "\(acquirerId)")
            #expect(IDs.longestRunOfDigits(IDs.make("ord_", randomDigits: 24)) <= 12)
            #expect(IDs.longestRunOfDigits(IDs.make("")) <= 12)
        }
        // A time whose twelve hexadecimal digits are all decimal: the random part starts with a letter.
        let allDigits = Date(timeIntervalSince1970: Double(0x0123_4567_8901) / 1000)
        for _ in 0..<200 {
            let id = IDs.make("pay_", now: allDigits)
            #expect(id.dropFirst(4).prefix(12).allSatisfy { $0.isASCII && $0.isNumber }, "\(id)")
            #expect(IDs.longestRunOfDigits(id) == 12, "\(id)")
        }
        // The fixed part alone too long: the last draw is kept (the loop ends).
        #expect(IDs.drawn { "1234567890123" } == "1234567890123")
    }
}
