import Crypto
import Foundation
import PaysheetModel
@testable import PaysheetToken
import PaysheetTokenFormat
import Testing

/// A token that breaks one rule must fail with that rule's code.
@Suite("Verification rules")
struct VerificationRuleTests {
    func expectFailure(
        _ code: PaymentTokenError.Code,
        _ token: PaymentTokenData,
        verifier: PaymentTokenVerifier = Fixture.verifier(),
        at time: Date = Fixture.now,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> PaymentTokenError? {
        let error = await #expect(throws: PaymentTokenError.self, sourceLocation: sourceLocation) {
            _ = try await Fixture.decryptor().decrypt(token, at: time)
            _ = try await verifier.verify(token, at: time)
        }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        return error
    }

    @Test(
        "tampered data, transactionId, applicationData or ephemeral key fail the signature",
        arguments: [
            "data", "transactionId", "applicationData", "ephemeralPublicKey", "addApplicationData",
            "dropApplicationData",
        ]
    )
    func tampered(_ field: String) async throws {
        var token = try Fixture.token(applicationData: Array("order-1".utf8))
        switch field {
        case "data": token.data[3] ^= 1
        case "transactionId":
            token.header = PaymentTokenHeader(
                ephemeralPublicKey: token.header.ephemeralPublicKey,
                publicKeyHash: token.header.publicKeyHash,
                transactionId: "00" + token.header.transactionId.dropFirst(2),
                applicationData: token.header.applicationData
            )
        case "applicationData": token.header.applicationData = Array(SHA256.hash(data: Array("order-2".utf8)))
        case "ephemeralPublicKey":
            token.header.ephemeralPublicKey = Array(P256.KeyAgreement.PrivateKey().publicKey.derRepresentation)
        case "dropApplicationData": token.header.applicationData = nil
        default:
            token = try Fixture.token()
            token.header.applicationData = Array(SHA256.hash(data: Array("order-1".utf8)))
        }
        let error = await expectFailure(.signature, token)
        #expect(error?.message.contains("messageDigest") == true)
    }

    @Test("a flipped bit in the signature value fails the signature check")
    func badSignatureValue() async throws {
        var token = try Fixture.token()
        let signed = try AppleSignedData(berEncoded: token.signature)
        let value = signed.signer.signature
        let range = try #require(token.signature.firstRange(of: value))
        token.signature[range.upperBound - 2] ^= 0x01
        let error = await expectFailure(.signature, token)
        #expect(error?.message.contains("not valid for the signing certificate") == true)
    }

    @Test("a token from the sandbox does not verify against Apple's root, nor against another sandbox root")
    func otherRoot() async throws {
        let token = try Fixture.token()
        let error = await expectFailure(.chain, token, verifier: PaymentTokenVerifier())
        #expect(error?.message.contains("Apple Root CA - G3") == true)
        let other = try SandboxPKI.generate(now: Fixture.now)
        _ = await expectFailure(.chain, token, verifier: PaymentTokenVerifier(trust: other.trustAnchors))
    }

    @Test("an attacker's own intermediate, even one named like the real one and carrying the marker, is refused")
    func attackerIntermediate() async throws {
        // The attacker's intermediate is signed by the attacker's root, whose name equals the trusted root's.
        let attackerRoot = try SandboxPKI.generate(now: Fixture.now)
        let attacker = try SandboxPKI.generate(
            now: Fixture.now,
            leafMarker: true,
            intermediateMarker: true,
            intermediateIssuer: (Fixture.pki.root, attackerRoot.rootKey)
        )
        let token = try SandboxTokenIssuer(pki: attacker).issue(
            Fixture.payment(),
            to: TokenRecipient(certificate: Fixture.ec.certificate),
            signingTime: Fixture.now
        )
        _ = await expectFailure(.chain, token)
        // And a self-signed "intermediate" (gala's bypass) is no anchor either.
        let selfSigned = try SandboxTokenIssuer(pki: attackerRoot).issue(
            Fixture.payment(),
            to: TokenRecipient(certificate: Fixture.ec.certificate),
            signingTime: Fixture.now
        )
        _ = await expectFailure(.chain, selfSigned)
    }

    @Test("missing marker extensions fail the chain", arguments: [(false, true), (true, false)])
    func missingMarkers(_ markers: (Bool, Bool)) async throws {
        let pki = try SandboxPKI.generate(now: Fixture.now, leafMarker: markers.0, intermediateMarker: markers.1)
        let token = try SandboxTokenIssuer(pki: pki).issue(
            Fixture.payment(),
            to: TokenRecipient(certificate: Fixture.ec.certificate),
            signingTime: Fixture.now
        )
        let error = await expectFailure(.chain, token, verifier: PaymentTokenVerifier(trust: pki.trustAnchors))
        #expect(error?.message.contains(markers.0 ? "1.2.840.113635.100.6.2.14" : "1.2.840.113635.100.6.29") == true)
    }

    @Test("signing time too old or in the future; the window is configurable")
    func signingTime() async throws {
        let token = try Fixture.token()
        let old = await expectFailure(.signingTime, token, at: Fixture.now.addingTimeInterval(301))
        #expect(old?.message.contains("before the verification time") == true)
        let future = await expectFailure(.signingTime, token, at: Fixture.now.addingTimeInterval(-301))
        #expect(future?.message.contains("after the verification time") == true)
        _ = try await PaymentTokenVerifier(trust: Fixture.pki.trustAnchors, signingTimeTolerance: 3600)
            .verify(token, at: Fixture.now.addingTimeInterval(1800))
    }

    @Test("wrong key: no key with the publicKeyHash, or the right key hash with the wrong merchant identifier")
    func wrongKey() async throws {
        let token = try Fixture.token(to: Fixture.ec)
        let none = await #expect(throws: PaymentTokenError.self) {
            _ = try await Fixture.decryptor([Fixture.rsa.merchantKey]).decrypt(token, at: Fixture.now)
        }
        #expect(none?.code == .keyMismatch)
        let wrongID = MerchantKey(merchantIdentifier: "merchant.someone.else", privateKey: Fixture.ec.privateKey)
        let gcm = await #expect(throws: PaymentTokenError.self) {
            _ = try await Fixture.decryptor([wrongID]).decrypt(token, at: Fixture.now)
        }
        #expect(gcm?.code == .decryption)
    }

    @Test("a replayed transactionId is refused")
    func replay() async throws {
        let decryptor = Fixture.decryptor()
        let token = try Fixture.token()
        _ = try await decryptor.decrypt(token, at: Fixture.now)
        let error = await #expect(throws: PaymentTokenError.self) {
            _ = try await decryptor.decrypt(token, at: Fixture.now)
        }
        #expect(error?.code == .replayed)
    }

    @Test("a certificate and a key that do not belong together are refused")
    func mismatchedPair() {
        let error = #expect(throws: PaymentTokenError.self) {
            _ = try MerchantKey(certificate: Fixture.ec.certificate, privateKey: Fixture.rsa.privateKey)
        }
        #expect(error?.code == .invalidKey)
    }
}

@Suite("Token format errors")
struct TokenFormatTests {
    func parse(_ text: String) -> PaymentTokenError? {
        #expect(throws: PaymentTokenError.self) { _ = try PaymentTokenData(json: Array(text.utf8)) }
    }

    @Test("each malformed token names the member and the problem")
    func malformed() throws {
        let good = try Fixture.token().jsonValue
        func with(_ edit: (inout JSONObject) -> Void) -> String {
            var o = good.objectValue!
            edit(&o)
            return JSONValue.object(o).compactText
        }
        let cases: [(String, PaymentTokenError.Code, String)] = [
            ("{", .malformed, "not JSON"),
            ("[]", .malformed, "must be an object"),
            (with { $0["version"] = "EC_v2" }, .unsupportedVersion, "EC_v2"),
            (with { $0["version"] = "PAYSHEET_PLACEHOLDER" }, .unsupportedVersion, "supported versions"),
            (with { $0["data"] = "!!!" }, .malformed, "paymentData.data"),
            (with { $0["data"] = "AAAA" }, .malformed, "16-byte tag"),
            (with { $0["signature"] = nil }, .malformed, "paymentData.signature is missing"),
            (with { $0["header"] = nil }, .malformed, "header is missing"),
            (
                with {
                    var h = $0["header"]!.objectValue!
                    h["transactionId"] = "xyz"
                    $0["header"] = .object(h)
                }, .malformed, "transactionId"
            ),
            (
                with {
                    var h = $0["header"]!.objectValue!
                    h["publicKeyHash"] = "AAAA"
                    $0["header"] = .object(h)
                }, .malformed, "publicKeyHash"
            ),
            (
                with {
                    var h = $0["header"]!.objectValue!
                    h["applicationData"] = "abc"
                    $0["header"] = .object(h)
                }, .malformed, "applicationData"
            ),
            (
                with {
                    var h = $0["header"]!.objectValue!
                    h["ephemeralPublicKey"] = nil
                    $0["header"] = .object(h)
                }, .malformed, "ephemeralPublicKey is missing"
            ),
            (
                with {
                    var h = $0["header"]!.objectValue!
                    h["wrappedKey"] = "AAAA"
                    $0["header"] = .object(h)
                }, .malformed, "wrappedKey belongs to RSA_v1"
            ),
            (with { $0["header"] = 5 }, .malformed, "header must be an object"),
        ]
        for (text, code, fragment) in cases {
            let error = parse(text)
            #expect(error?.code == code, "\(fragment)")
            #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "") should mention \(fragment)")
        }
    }

    @Test("wrappers are unwrapped: PKPaymentToken and ApplePayPayment shapes")
    func wrappers() throws {
        let inner = try Fixture.token().jsonValue
        let a = try PaymentTokenData(jsonValue: ["paymentData": inner])
        let b = try PaymentTokenData(jsonValue: ["token": ["paymentData": inner], "billingContact": [:]])
        #expect(a == b)
    }

    @Test("a damaged signature is malformed, with where", arguments: [0, 1, 10, 100])
    func damagedSignature(_ cut: Int) async throws {
        var token = try Fixture.token()
        token.signature = Array(token.signature.prefix(cut)) + [0xFF]
        let error = await #expect(throws: PaymentTokenError.self) {
            _ = try await Fixture.verifier().verify(token, at: Fixture.now)
        }
        #expect(error?.code == .malformed)
        #expect(error?.message.hasPrefix("signature:") == true)
    }

    @Test("PEM keys in every form of the vectors load: PKCS#8, SEC1 after EC PARAMETERS, PKCS#1")
    func pemForms() throws {
        for vector in Vector.available ? Vector.decryptable : [] {
            _ = try MerchantPrivateKey(contentsOf: Vector.path(vector.privateKey!), permissions: .allow)
        }
        guard case .rsa(let rsa) = Fixture.rsa.privateKey else {
            Issue.record("not RSA")
            return
        }
        let pkcs1 = try MerchantPrivateKey(pem: rsa.pemRepresentation)
        #expect(pkcs1.publicKeySPKI == Fixture.rsa.privateKey.publicKeySPKI)
        #expect(rsa.pemRepresentation.contains("BEGIN RSA PRIVATE KEY"))
        let encrypted = #expect(throws: PaymentTokenError.self) {
            _ = try MerchantPrivateKey(
                pem: "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"
            )
        }
        #expect(encrypted?.message.contains("encrypted") == true)
    }
}
