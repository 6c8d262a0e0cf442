import Testing
@testable import PaysheetModel
@testable import PaysheetTokenFormat

/// `paymentData` parsing: the three shapes a token arrives in, and a precise error (code and the
/// member's path) for each way a field can be wrong.
@Suite struct TokenParsingTests {
    static let hash = [UInt8](repeating: 7, count: 32)

    static func ecToken(_ edit: (inout JSONObject, inout JSONObject) -> Void = { _, _ in }) -> JSONValue {
        var header: JSONObject = [
            "ephemeralPublicKey": .string(Base64.encode([4, 1, 2, 3])),
            "publicKeyHash": .string(Base64.encode(hash)),
            "transactionId": "c0ffee",
        ]
        var top: JSONObject = [
            "version": "EC_v1", "data": .string(Base64.encode([UInt8](repeating: 9, count: 40))),
            "signature": .string(Base64.encode([0x30, 0x80, 0, 0])),
        ]
        edit(&top, &header)
        top["header"] = .object(header)
        return .object(top)
    }

    func error(_ v: JSONValue) -> PaymentTokenError? {
        do {
            _ = try PaymentTokenData(jsonValue: v)
            return nil
        } catch { return error }
    }

    @Test func theThreeShapesGiveTheSameToken() throws {
        let bare = try PaymentTokenData(jsonValue: Self.ecToken())
        #expect(try PaymentTokenData(jsonValue: ["paymentData": Self.ecToken()]) == bare)
        #expect(try PaymentTokenData(jsonValue: ["token": ["paymentData": Self.ecToken()]]) == bare)
        #expect(bare.version == .ecV1)
        #expect(bare.header.transactionIdBytes == [0xc0, 0xff, 0xee])
        #expect(bare.header.publicKeyHash == Self.hash)
        // What Apple signs: the ephemeral key, the data, the transaction id (no application data here).
        #expect(bare.signedContent == [4, 1, 2, 3] + [UInt8](repeating: 9, count: 40) + [0xc0, 0xff, 0xee])
        // And back to JSON, read again.
        #expect(try PaymentTokenData(jsonValue: bare.jsonValue) == bare)
        // Unknown members are ignored.
        #expect(try PaymentTokenData(jsonValue: Self.ecToken { top, _ in top["newMember"] = 1 }) == bare)
    }

    @Test func eachWrongFieldIsNamed() {
        let cases: [(JSONValue, PaymentTokenError.Code, String)] = [
            (.string("EC_v1"), .malformed, "paymentData must be an object"),
            (
                Self.ecToken { top, _ in top["version"] = "EC_v2" }, .unsupportedVersion,
                "paymentData.version is \"EC_v2\""
            ),
            (Self.ecToken { top, _ in top["data"] = nil }, .malformed, "paymentData.data is missing"),
            (
                Self.ecToken { top, _ in top["data"] = .string(Base64.encode([1, 2, 3])) }, .malformed,
                "paymentData.data is 3 bytes"
            ),
            (
                Self.ecToken { top, _ in top["signature"] = "not base64!" }, .malformed,
                "paymentData.signature is not non-empty Base64"
            ),
            (
                Self.ecToken { _, h in h["publicKeyHash"] = .string(Base64.encode([1])) }, .malformed,
                "paymentData.header.publicKeyHash is 1 bytes"
            ),
            (
                Self.ecToken { _, h in h["transactionId"] = "xyz" }, .malformed,
                "paymentData.header.transactionId must be non-empty hexadecimal"
            ),
            (
                Self.ecToken { _, h in h["transactionId"] = 12 }, .malformed,
                "paymentData.header.transactionId must be a string"
            ),
            (
                Self.ecToken { _, h in h["applicationData"] = "abcd" }, .malformed,
                "paymentData.header.applicationData must be a SHA-256 hash"
            ),
            (
                Self.ecToken { _, h in h["wrappedKey"] = "AAAA" }, .malformed,
                "paymentData.header.wrappedKey belongs to RSA_v1 tokens"
            ),
            (
                Self.ecToken { top, _ in top["version"] = "RSA_v1" }, .malformed,
                "paymentData.header.wrappedKey is missing"
            ),
            (["token": ["paymentData": 4]], .malformed, "token.paymentData must be an object"),
        ]
        for (value, code, prefix) in cases {
            let e = error(value)
            #expect(e?.code == code, "\(prefix)")
            #expect(e?.message.hasPrefix(prefix) == true, "expected \(prefix), got \(e?.message ?? "no error")")
        }
        #expect(throws: PaymentTokenError.self) { try PaymentTokenData(json: Array("{".utf8)) }
    }
}
