import Foundation
import PaysheetModel
@testable import PaysheetToken
@testable import PaysheetTokenFormat
import Testing

/// The token's and the decrypted data's readings in place (``JSONSkim``) against the parser's
/// paths they stand in for: on real shapes they answer, and answer the same; on every change of a
/// member (removed, of another type, empty, not Base64, escaped, outside ASCII) they either
/// answer what the parser's path answers or leave it to that path — so the public initializers
/// give the same token or the same error either way.
@Suite("Reading tokens in place")
struct TokenSkimTests {
    /// The parser's path alone: what `PaymentTokenData(json:)` answered before the skim.
    static func parsed(_ bytes: [UInt8]) -> Result<PaymentTokenData, PaymentTokenError> {
        Result { () throws(PaymentTokenError) -> PaymentTokenData in
            let value: JSONValue
            do throws(JSONParser.SyntaxError) { value = try JSONParser.parse(bytes) } catch {
                throw PaymentTokenError(.malformed, "token is not JSON (\(error.description))")
            }
            return try PaymentTokenData(jsonValue: value)
        }
    }

    static func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let bytes = Array(text.utf8)
        let expected = parsed(bytes)
        let skimmed = PaymentTokenData.skimmed(bytes)
        if let skimmed { #expect(expected == .success(skimmed), "\(text.prefix(200))", sourceLocation: sourceLocation) }
        let public_ = Result { () throws(PaymentTokenError) in try PaymentTokenData(json: bytes) }
        #expect(public_ == expected, sourceLocation: sourceLocation)
        return skimmed != nil
    }

    /// `token`'s JSON with `path`'s member changed by `change` (`nil`: removed).
    static func changed(_ token: JSONValue, _ path: [String], _ change: JSONValue?) -> String {
        func apply(_ value: JSONValue, _ path: ArraySlice<String>) -> JSONValue {
            guard var object = value.objectValue, let key = path.first else { return value }
            if path.count == 1 {
                object[key] = change
            } else if let inner = object[key] {
                object[key] = apply(inner, path.dropFirst())
            }
            return .object(object)
        }
        return apply(token, path[...]).compactText
    }

    @Test("EC_v1 and RSA_v1 tokens, bare and wrapped, are read in place and as the parser reads them")
    func realShapes() throws {
        for credentials in [Fixture.ec, Fixture.rsa] {
            for applicationData: [UInt8]? in [nil, Array(repeating: 0xAB, count: 32)] {
                let token = try Fixture.token(to: credentials, applicationData: applicationData).jsonValue
                #expect(Self.check(token.compactText))
                #expect(Self.check(token.prettyText))
                #expect(Self.check((["paymentData": token] as JSONValue).compactText))
                #expect(
                    Self.check(
                        ([
                            "token": [
                                "paymentData": token, "paymentMethod": ["displayName": "Visa 1234", "type": "debit"],
                                "transactionIdentifier": "ABC",
                            ]
                        ] as JSONValue).compactText
                    )
                )
            }
        }
    }

    @Test("every member changed: the same token or the same error as the parser's path")
    func changedMembers() throws {
        let ec = try Fixture.token(to: Fixture.ec, applicationData: Array(repeating: 1, count: 32)).jsonValue
        let rsa = try Fixture.token(to: Fixture.rsa).jsonValue
        let paths = [
            ["version"], ["data"], ["signature"], ["header"], ["header", "publicKeyHash"], ["header", "transactionId"],
            ["header", "applicationData"], ["header", "ephemeralPublicKey"], ["header", "wrappedKey"], ["extra"],
            ["header", "extra"],
        ]
        let changes: [JSONValue?] = [
            nil, .number("5"), "", "!!!!", "QUJD", "RSA_v1", "EC_v1", "00", .string(String(repeating: "ab", count: 32)),
            "caf\u{E9}", "a\"b", ["nested": "object"], .array([]), .bool(true), .null,
        ]
        var answered = 0
        var total = 0
        for token in [ec, rsa] {
            for path in paths {
                for change in changes {
                    total += 1
                    if Self.check(Self.changed(token, path, change)) { answered += 1 }
                }
            }
        }
        // Unknown members of plain shapes are still read in place: the two "extra" paths with
        // each of the nine plain changes, on both tokens, at least.
        #expect(answered >= 36 && answered < total)
    }

    @Test("decrypted data, of both types and with the optional members, is read in place as the parser reads it")
    func decryptedData() throws {
        var payments: [SandboxPayment] = []
        for network in ["visa", "masterCard", "amex", "chinaUnionPay"] {
            payments.append(try SandboxPayment.sample(network: network, amount: "12.34", currency: "CNY"))
        }
        var named = try SandboxPayment.sample(amount: "0", currency: "USD", cardholderName: "Ada Lovelace")
        named.merchantTokenIdentifier = "DNITHE302308980426"
        payments.append(named)
        for payment in payments {
            let bytes = Array(payment.jsonValue.compactText.utf8)
            let expected = try DecryptedPaymentData(json: JSONParser.parse(bytes))
            let skimmed = try #require(DecryptedPaymentData(skimming: bytes))
            #expect(skimmed == expected)
            #expect(skimmed.json == expected.json)
            #expect(skimmed.details == expected.details && skimmed.cardholderName == expected.cardholderName)
            #expect(try DecryptedPaymentData.read(bytes) == expected)
        }
        // Members the parser's path reads: left to it.
        var multi = payments[0]
        multi.authenticationResponses = [
            .init(merchantIdentifier: "m", authenticationData: "QUJD", transactionAmount: "1")
        ]
        #expect(DecryptedPaymentData(skimming: Array(multi.jsonValue.compactText.utf8)) == nil)
    }

    @Test("every member of the decrypted data changed: the same data or the same error as the parser's path")
    func decryptedDataChanged() throws {
        let plain = try SandboxPayment.sample(amount: "1.00", currency: "USD", cardholderName: "A B").jsonValue
        let emv = try SandboxPayment.sample(network: "chinaUnionPay", amount: "1.00", currency: "CNY").jsonValue
        let paths = [
            ["applicationPrimaryAccountNumber"], ["applicationExpirationDate"], ["currencyCode"],
            ["transactionAmount"], ["cardholderName"], ["deviceManufacturerIdentifier"], ["paymentDataType"],
            ["paymentData"], ["paymentData", "onlinePaymentCryptogram"], ["paymentData", "eciIndicator"],
            ["paymentData", "emvData"], ["paymentData", "encryptedPINData"], ["merchantTokenIdentifier"], ["other"],
        ]
        let changes: [JSONValue?] = [
            nil, .number("5"), .number("-1"), .number("1.5"), .number("1e3"), "", "12345a", "123456", "EMV",
            "3DSecure", "caf\u{E9}", ["a": "b"], .null,
        ]
        var answered = 0
        for document in [plain, emv] {
            for path in paths {
                for change in changes {
                    let bytes = Array(Self.changed(document, path, change).utf8)
                    let expected = Result { () throws(PaymentTokenError) in
                        try DecryptedPaymentData(json: try! JSONParser.parse(bytes))
                    }
                    if let skimmed = DecryptedPaymentData(skimming: bytes) {
                        answered += 1
                        #expect(expected == .success(skimmed), "\(path) \(String(describing: change))")
                    }
                    #expect(Result { () throws(PaymentTokenError) in try DecryptedPaymentData.read(bytes) } == expected)
                }
            }
        }
        // The "other" member with its ten plain changes (absent included), in both documents (20),
        // and more: the bound this test had before it was explained, kept.
        #expect(answered > 20)
    }

    @Test("a keyring replaces a key of the same hash, finds each key by its hash, and lists hashes sorted")
    func keyring() throws {
        var keyring = MerchantKeyring([Fixture.ec.merchantKey, Fixture.rsa.merchantKey])
        #expect(keyring.count == 2)
        #expect(
            keyring.key(forPublicKeyHash: Fixture.rsa.merchantKey.publicKeyHash)?.publicKeyHash
                == Fixture.rsa.merchantKey.publicKeyHash
        )
        #expect(keyring.key(forPublicKeyHash: [UInt8](repeating: 0, count: 32)) == nil)
        keyring.add(Fixture.ec.merchantKey)
        #expect(keyring.count == 2)
        #expect(keyring.publicKeyHashes == keyring.publicKeyHashes.sorted())
        #expect(
            Set(keyring.publicKeyHashes)
                == Set([Fixture.ec, Fixture.rsa].map { Base64.encode($0.merchantKey.publicKeyHash) })
        )
    }
}
