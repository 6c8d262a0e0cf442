import Foundation
import PaysheetModel
import PaysheetToken
import PaysheetTokenFormat
import Testing

@Suite("Real tokens", .enabled(if: Vector.available, Vector.skipReason))
struct RealVectorTests {
    @Test("every real token verifies at its signing time", arguments: Vector.all)
    func verifiesAtSigningTime(_ vector: Vector) async throws {
        let token = try vector.tokenData()
        let verified = try await PaymentTokenVerifier().verify(token, at: vector.signingTime())
        #expect(verified.signingTime == (try vector.signingTime()))
        #expect(verified.signer.contains("smp-broker-sign_UC4"))
    }

    @Test("every real token fails today: its signing certificate has expired", arguments: Vector.all)
    func failsNow(_ vector: Vector) async throws {
        let token = try vector.tokenData()
        let error = await #expect(throws: PaymentTokenError.self) {
            _ = try await PaymentTokenVerifier().verify(token, at: Date(timeIntervalSince1970: 1_795_000_000))
        }
        #expect(error?.code == .chain)
        #expect(error?.message.contains("not at the verification time") == true)
    }

    @Test("every decryptable real token decrypts to the expected plaintext", arguments: Vector.decryptable)
    func decrypts(_ vector: Vector) async throws {
        let decryptor = PaymentTokenDecryptor(keys: MerchantKeyring([try vector.key()]))
        let result = try await decryptor.decrypt(vector.tokenData(), at: vector.signingTime())
        #expect(result.paymentData.json == (try vector.expectedPlaintext()))
        let expected = try vector.expected()["plaintext"]!
        #expect(
            result.paymentData.applicationPrimaryAccountNumber
                == expected["applicationPrimaryAccountNumber"]?.stringValue
        )
        #expect(!result.paymentData.description.contains(result.paymentData.applicationPrimaryAccountNumber))
    }

    @Test(
        "the merchant identifier hash from the certificate equals the computed partyV",
        arguments: Vector.decryptable.filter { $0.certificate != nil }
    )
    func partyV(_ vector: Vector) throws {
        let key = try vector.key()
        let expected = try vector.expected()["partyVInfo_hex"]?.stringValue
        if let expected { #expect(Hex.encode(key.merchantIdentifierHash) == expected) }
        #expect(key.publicKeyHash == (try vector.tokenData()).header.publicKeyHash)
    }
}
