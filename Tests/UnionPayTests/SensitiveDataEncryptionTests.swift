import Crypto
import Foundation
import Testing
import _CryptoExtras
@testable import UnionPay
@testable import UnionPaySandbox

@Suite struct SensitiveDataEncryptionTests {
    static let pki = try! UnionPaySandboxPKI.generate()
    static let folder = NSTemporaryDirectory() + "paysheet-enc-" + UUID().uuidString
    static let credentials = try! pki.encryptionCredentials(folder: folder)

    @Test func whatTheEncryptorSealsBoringSSLsPrivateKeyOperationOpens() throws {
        let encryptor = try SensitiveDataEncryptor(certificate: Self.credentials.certificate)
        let decryptor = try SensitiveDataDecryptor(credentials: Self.credentials)
        #expect(encryptor.certId == decryptor.certId)
        #expect(encryptor.certId == ACPSigner.decimal(Self.credentials.certificate.serialNumber.bytes[...]))
        for text in [
            "6226388000000095", "", "cryptogram=AgAAAAAAAIaqGQuS8xjzvM0AAAAAAAA=&expired=2912",
            String(repeating: "x", count: 245),
        ] {
            let sealed = encryptor.encrypt(text)
            #expect(Data(base64Encoded: sealed)?.count == 256)
            #expect(try decryptor.decrypt(sealed) == text)
        }
        // Random padding: the same text never seals the same way twice.
        #expect(encryptor.encrypt("6226388000000095") != encryptor.encrypt("6226388000000095"))
        // Longer than a block: pieces.
        let long = String(repeating: "9F26", count: 200)
        let sealed = encryptor.encryptLong(long)
        #expect(sealed.split(separator: ".").count == 4)
        #expect(try decryptor.decryptLong(sealed) == long)
    }

    @Test func eachBlockIsPKCS1Version15TypeTwoWithFreshNonzeroPadding() throws {
        // The raw private-key operation (no unpadding) shows the block the encryptor sealed:
        // 00 02, at least eight random nonzero bytes, 00, the text — what UnionPay's gateway and
        // the SDKs' `RSA/ECB/PKCS1Padding` expect (OAEP would not open there).
        let encryptor = try SensitiveDataEncryptor(certificate: Self.credentials.certificate)
        let raw = try _RSA.BlindSigning.PrivateKey<SHA384>(
            derRepresentation: Self.credentials.privateKey.derRepresentation
        )
        var paddings: Set<[UInt8]> = []
        for text in ["6226388000000095", "", String(repeating: "x", count: 245)] {
            let sealed = try #require(Data(base64Encoded: encryptor.encrypt(text)))
            let block = try raw.blindSignature(for: sealed).withUnsafeBytes { [UInt8]($0) }
            #expect(block.count == 256 && block[0] == 0 && block[1] == 2)
            let end = try #require(block[2...].firstIndex(of: 0))
            #expect(end - 2 >= 8)
            #expect(Array(block[(end + 1)...]) == [UInt8](text.utf8))
            paddings.insert(Array(block[2..<end]))
        }
        #expect(paddings.count == 3)
        #expect(encryptor.blockSize == 245)
    }

    @Test func anotherKeyOrADamagedCiphertextDoesNotOpen() throws {
        let other = try UnionPaySandboxPKI.generate().encryptionCredentials(folder: Self.folder + "-other")
        let sealed = try SensitiveDataEncryptor(certificate: other.certificate).encrypt("6226388000000095")
        let decryptor = try SensitiveDataDecryptor(credentials: Self.credentials)
        #expect(throws: ACPError.self) { try decryptor.decrypt(sealed) }
        #expect(throws: ACPError.self) { try decryptor.decrypt("AAAA") }
        #expect(throws: ACPError.self) { try decryptor.decrypt("not base64") }
    }

    @Test func thePaymentDataFieldCarriesNoCardDataInClear() throws {
        let field = PaymentDataField([
            "accNo": "6226388000000095", "expired": "2912", "cryptogram": "AgAAAAAAAIaqGQuS8xjzvM0AAAAAAAA=",
            "eci": "07",
        ])
        let encryptor = try SensitiveDataEncryptor(certificate: Self.credentials.certificate)
        let sealed = field.encrypted(with: encryptor)
        #expect(Set(sealed.values.keys) == ["accNo", "encryptedInfo", "eci"])
        let wire = String(data: Data(base64Encoded: sealed.encoded)!, encoding: .utf8)!
        #expect(
            !wire.contains("6226388000000095") && !wire.contains("AgAAAAAAAIaqGQuS8xjzvM0AAAAAAAA=")
                && !wire.contains("2912")
        )
        let opened = try PaymentDataField(encoded: sealed.encoded).decrypted(
            with: try SensitiveDataDecryptor(credentials: Self.credentials)
        )
        #expect(opened == field)
    }

    @Test func onlyTheGatewaysOwnCertificatesAreTakenAsItsEncryptionCertificate() throws {
        let verifier = ACPVerifier(
            roots: [Self.pki.root],
            intermediates: [Self.pki.gatewayCA],
            owners: [UnionPaySandboxPKI.gatewayOwner]
        )
        let pem = try Self.credentials.certificate.serializeAsPEM().pemString
        #expect(try verifier.gatewayCertificate(pem).serialNumber == Self.credentials.certificate.serialNumber)
        let merchant = try Self.pki.issueMerchant(merchantId: "777290058110048")
        #expect(throws: ACPError.self) {
            try verifier.gatewayCertificate(try merchant.certificate.serializeAsPEM().pemString)
        }
    }
}
