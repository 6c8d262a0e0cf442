import Crypto
import SwiftASN1
import X509
import Foundation
import PaysheetModel
import PaysheetRSA
@testable import PaysheetToken
import PaysheetTokenFormat
import Testing

/// One sandbox PKI and two merchants (EC and RSA) for the whole suite: RSA key generation is slow.
enum Fixture {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let pki = try! SandboxPKI.generate(now: now)
    static let ec = try! MerchantCredentials.create(
        merchantIdentifier: "merchant.dev.paysheet.ec",
        keyType: .ec,
        pki: pki,
        now: now
    )
    static let rsa = try! MerchantCredentials.create(
        merchantIdentifier: "merchant.dev.paysheet.rsa",
        keyType: .rsa,
        pki: pki,
        now: now
    )
    static let issuer = SandboxTokenIssuer(pki: pki)

    static func verifier() -> PaymentTokenVerifier { PaymentTokenVerifier(trust: pki.trustAnchors) }

    static func decryptor(_ keys: [MerchantKey] = [ec.merchantKey, rsa.merchantKey]) -> PaymentTokenDecryptor {
        PaymentTokenDecryptor(keys: MerchantKeyring(keys), verifier: verifier())
    }

    static func payment(_ amount: String = "12.34", _ currency: String = "USD") -> SandboxPayment {
        try! SandboxPayment.sample(network: "visa", amount: amount, currency: currency, now: now)
    }

    static func token(
        to credentials: MerchantCredentials = ec,
        applicationData: [UInt8]? = nil,
        signingTime: Date = now
    ) throws -> PaymentTokenData {
        try issuer.issue(
            payment(),
            to: TokenRecipient(certificate: credentials.certificate),
            applicationData: applicationData,
            signingTime: signingTime
        )
    }
}

@Suite("Sandbox issuance round trips")
struct SandboxRoundTripTests {
    @Test("EC_v1 and RSA_v1 tokens issued to a certificate decrypt with its key", arguments: ["ec", "rsa"])
    func roundTrip(_ kind: String) async throws {
        let credentials = kind == "ec" ? Fixture.ec : Fixture.rsa
        let payment = try SandboxPayment.sample(
            network: "masterCard",
            amount: "1000",
            currency: "JPY",
            now: Fixture.now
        )
        let token = try Fixture.issuer.issue(
            payment,
            to: TokenRecipient(certificate: credentials.certificate),
            applicationData: Array("order-42".utf8),
            signingTime: Fixture.now
        )
        #expect(token.version == (kind == "ec" ? .ecV1 : .rsaV1))
        #expect(token.header.applicationData == Array(SHA256.hash(data: Array("order-42".utf8))))
        // Through JSON, as a back end receives it.
        let json = Array(token.jsonValue.compactText.utf8)
        let result = try await Fixture.decryptor().decrypt(json: json, at: Fixture.now.addingTimeInterval(30))
        #expect(result.paymentData.applicationPrimaryAccountNumber == payment.accountNumber)
        #expect(result.paymentData.transactionAmount == 1000)
        #expect(result.paymentData.currencyCode == "392")
        #expect(result.paymentData.details == payment.details)
        #expect(result.verified.signer.contains("paysheet-sandbox-sign"))
    }

    @Test("the signature is BER-readable, signer first, with Apple's signed attributes")
    func signatureShape() throws {
        let token = try Fixture.token()
        let signed = try AppleSignedData(berEncoded: token.signature)
        #expect(signed.certificates.count == 2)
        #expect(signed.certificates[0] == (try derBytes(Fixture.pki.ecSigner)))
        #expect(signed.signer.signingTime == Fixture.now)
        #expect(signed.signer.messageDigest == Array(SHA256.hash(data: token.signedContent)))
    }

    @Test("a shared secret with a leading zero byte is kept whole")
    func leadingZero() async throws {
        guard case .p256(let merchantPrivate) = Fixture.ec.privateKey else {
            Issue.record("not EC")
            return
        }
        var ephemeral = P256.KeyAgreement.PrivateKey()
        var tries = 0
        while try ephemeral.sharedSecretFromKeyAgreement(with: merchantPrivate.publicKey).withUnsafeBytes({ $0[0] })
            != 0
        {
            ephemeral = P256.KeyAgreement.PrivateKey()
            tries += 1
            #expect(tries < 20_000)
        }
        let plaintext = Array(Fixture.payment().jsonValue.compactText.utf8)
        let token = try Fixture.issuer.issue(
            plaintext: plaintext,
            to: TokenRecipient(certificate: Fixture.ec.certificate),
            signingTime: Fixture.now,
            ephemeralKey: ephemeral
        )
        let result = try await Fixture.decryptor().decrypt(token, at: Fixture.now)
        #expect(result.paymentData.json == (try JSONParser.parse(plaintext)))
    }

    @Test("newer payload fields and the EMV shape are read")
    func newerFields() async throws {
        let plaintext = """
            {"applicationPrimaryAccountNumber":"6212345678901234567","applicationExpirationDate":"291231","currencyCode":"156",\
            "transactionAmount":1999,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"EMV",\
            "paymentData":{"emvData":"AAEC","encryptedPINData":"0A0B"},"merchantTokenIdentifier":"DNITHE000000000001",\
            "merchantTokenMetadata":{"cardMetadata":{"expirationDate":"2912","fpanSuffix":"1234"}},\
            "authenticationResponses":[{"merchantIdentifier":"merchant.a","authenticationData":"AAE=","transactionAmount":"1999"}]}
            """
        let token = try Fixture.issuer.issue(
            plaintext: Array(plaintext.utf8),
            to: TokenRecipient(certificate: Fixture.rsa.certificate),
            signingTime: Fixture.now
        )
        let data = try await Fixture.decryptor().decrypt(token, at: Fixture.now).paymentData
        #expect(data.details == .emv(emvData: "AAEC", encryptedPINData: "0A0B"))
        #expect(data.merchantTokenIdentifier == "DNITHE000000000001")
        #expect(data.authenticationResponses?.first?.transactionAmount == "1999")
        #expect(data.merchantTokenMetadata?.fpanSuffix == "1234")
        #expect(data.merchantTokenMetadata?.expirationDate == "2912")
        #expect(data.isMerchantToken)
    }

    @Test(
        "an RSA_v1 token decrypts the same on OpenSSL's libcrypto and on BoringSSL; a wrapped key altered fails on both",
        arguments: RSABackend.allCases
    )
    func rsaBackends(_ backend: RSABackend) async throws {
        let key = Fixture.rsa.merchantKey.using(backend)
        let expected: RSABackend = RSABackendChoice.libCryptoOpened ? backend : .boringSSL
        #expect(key.rsaOperations?.backend == expected)
        let payment = try SandboxPayment.sample(amount: "88.00", currency: "CNY", now: Fixture.now)
        let token = try Fixture.issuer.issue(
            payment,
            to: TokenRecipient(certificate: Fixture.rsa.certificate),
            signingTime: Fixture.now
        )
        let decryptor = Fixture.decryptor([key])
        let data = try await decryptor.decrypt(token, at: Fixture.now).paymentData
        #expect(data.applicationPrimaryAccountNumber == payment.accountNumber)
        #expect(data.transactionAmount == 8800)
        var wrapped = try #require(token.header.wrappedKey)
        wrapped[17] ^= 0x01
        var altered = token
        altered.header.wrappedKey = wrapped
        let keyring = MerchantKeyring([key])
        do {
            _ = try keyring.decrypt(unverified: altered)
            Issue.record("a token with an altered wrapped key decrypted on \(backend)")
        } catch {
            #expect(error.code == .decryption)
            #expect(error.message.contains("RSA-OAEP-SHA256"))
        }
    }

    @Test("sandbox merchant tokens: one MPAN per card and merchant, a valid card number, carried and read back")
    func sandboxMerchantTokens() async throws {
        let payment = try SandboxPayment.sample(
            network: "masterCard",
            amount: "29.00",
            currency: "CNY",
            now: Fixture.now
        )
        let merchantA = [UInt8](repeating: 1, count: 32)
        let merchantB = [UInt8](repeating: 2, count: 32)
        let a1 = SandboxMerchantToken.apply(
            to: payment,
            cardIdentity: "card-1",
            merchantIdentifierHash: merchantA,
            fpanSuffix: "1234",
            network: "masterCard"
        )
        let again = SandboxMerchantToken.apply(
            to: try SandboxPayment.sample(network: "masterCard", amount: "5.00", currency: "CNY", now: Fixture.now),
            cardIdentity: "card-1",
            merchantIdentifierHash: merchantA,
            fpanSuffix: "1234",
            network: "masterCard"
        )
        let b1 = SandboxMerchantToken.apply(
            to: payment,
            cardIdentity: "card-1",
            merchantIdentifierHash: merchantB,
            fpanSuffix: "1234",
            network: "masterCard"
        )
        let a2 = SandboxMerchantToken.apply(
            to: payment,
            cardIdentity: "card-2",
            merchantIdentifierHash: merchantA,
            fpanSuffix: "9876",
            network: "masterCard"
        )
        #expect(a1.accountNumber == again.accountNumber && a1.merchantTokenIdentifier == again.merchantTokenIdentifier)
        #expect(a1.accountNumber != b1.accountNumber && a1.accountNumber != a2.accountNumber)
        #expect(a1.accountNumber != payment.accountNumber)
        for p in [a1, b1, a2] {
            #expect(Luhn.isValid(p.accountNumber) && p.accountNumber.count == payment.accountNumber.count)
            #expect(p.accountNumber.hasPrefix(String(payment.accountNumber.prefix(4))))
            #expect(
                !p.accountNumber.dropLast(2).hasSuffix("00"),
                "a decline ending for a card that is not a decline test card"
            )
        }
        // A decline test card keeps its ending, so that the sandbox acquirer declines its later charges too.
        let declining = try SandboxPayment.sample(
            network: "visa",
            amount: "1.00",
            currency: "USD",
            accountSuffix: "0064",
            now: Fixture.now
        )
        let mpan = SandboxMerchantToken.apply(
            to: declining,
            cardIdentity: "card-3",
            merchantIdentifierHash: merchantA,
            fpanSuffix: nil,
            network: "visa"
        )
        #expect(mpan.accountNumber.hasSuffix("0064") && Luhn.isValid(mpan.accountNumber))

        // Issued and decrypted: typed metadata, the identifier, the MPAN.
        let token = try Fixture.issuer.issue(
            a1,
            to: TokenRecipient(certificate: Fixture.rsa.certificate),
            signingTime: Fixture.now
        )
        let data = try await Fixture.decryptor().decrypt(token, at: Fixture.now).paymentData
        #expect(data.applicationPrimaryAccountNumber == a1.accountNumber)
        #expect(data.merchantTokenIdentifier == a1.merchantTokenIdentifier)
        #expect(data.merchantTokenIdentifier?.hasPrefix("SBXMT") == true && data.merchantTokenIdentifier?.count == 32)
        #expect(data.merchantTokenMetadata?.fpanSuffix == "1234")
        #expect(data.merchantTokenMetadata?.cardArt.first?.url?.hasSuffix(".invalid/mastercard.png") == true)
        #expect(!data.description.contains(a1.accountNumber))
    }

    @Test("several keys at once: each token finds its key by publicKeyHash (rotation)")
    func rotation() async throws {
        let newer = try MerchantCredentials.create(
            merchantIdentifier: "merchant.dev.paysheet.ec",
            pki: Fixture.pki,
            now: Fixture.now
        )
        let decryptor = Fixture.decryptor([Fixture.ec.merchantKey, newer.merchantKey])
        let a = try await decryptor.decrypt(Fixture.token(to: Fixture.ec), at: Fixture.now)
        let b = try await decryptor.decrypt(Fixture.token(to: newer), at: Fixture.now)
        #expect(a.verified.token.header.publicKeyHash != b.verified.token.header.publicKeyHash)
    }

    @Test("the validated chain is cached and reused; a time outside it validates again")
    func chainCache() async throws {
        let verifier = Fixture.verifier()
        _ = try await verifier.verify(Fixture.token(), at: Fixture.now)
        _ = try await verifier.verify(Fixture.token(), at: Fixture.now)
        #expect(verifier.cachedChainCount == 1)
        let late = Fixture.now.addingTimeInterval(40 * 365 * 86_400)
        let error = await #expect(throws: PaymentTokenError.self) {
            _ = try await verifier.verify(Fixture.token(signingTime: late), at: late)
        }
        #expect(error?.code == .chain)
    }

    @Test("sandbox PKI: created once in a folder, reloaded identically, keys written 0600")
    func storage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("paysheet-pki-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let a = try SandboxPKI.loadOrCreate(folder: folder + "/ca")
        let b = try SandboxPKI.loadOrCreate(folder: folder + "/ca")
        #expect(a.root == b.root && a.rsaSigner == b.rsaSigner)
        let mode =
            try FileManager.default.attributesOfItem(atPath: folder + "/ca/root.key.pem")[.posixPermissions]
            as? NSNumber
        #expect(mode?.intValue == 0o600)
        let paths = try Fixture.ec.save(folder: folder + "/merchant")
        let loaded = try MerchantKey(
            certificateFile: paths.certificate,
            privateKeyFile: paths.privateKey,
            permissions: .refuse
        )
        #expect(loaded.publicKeyHash == Fixture.ec.merchantKey.publicKeyHash)
        chmod(paths.privateKey, 0o644)
        let error = #expect(throws: PaymentTokenError.self) {
            _ = try MerchantKey(
                certificateFile: paths.certificate,
                privateKeyFile: paths.privateKey,
                permissions: .refuse
            )
        }
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("chmod 600") == true)
    }
}

func derBytes(_ certificate: X509.Certificate) throws -> [UInt8] {
    var s = DER.Serializer()
    try s.serialize(certificate)
    return s.serializedBytes
}

@Suite("The ephemeral key's shortcut")
struct EphemeralKeyShortcutTests {
    @Test("a token's ephemeral SPKI read as its point gives swift-crypto's key; other forms go to swift-crypto")
    func sameKey() throws {
        for _ in 0..<50 {
            let spki = [UInt8](P256.KeyAgreement.PrivateKey().publicKey.derRepresentation)
            let ours = try #require(MerchantKeyring.ephemeralKey(spki))
            #expect(
                ours.rawRepresentation == (try P256.KeyAgreement.PublicKey(derRepresentation: spki)).rawRepresentation
            )
        }
        var offCurve = [UInt8](P256.KeyAgreement.PrivateKey().publicKey.derRepresentation)
        offCurve[90] ^= 1
        #expect(MerchantKeyring.ephemeralKey(offCurve) == nil)
        let compressed = MerchantKeyring.p256SPKIPrefix.prefix(26)
        #expect(compressed.count == 26)
        #expect(MerchantKeyring.ephemeralKey(Array(compressed)) == nil)
    }
}
