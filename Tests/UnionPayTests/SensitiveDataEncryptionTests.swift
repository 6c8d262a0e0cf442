import Foundation
import Testing
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

    @Test func thePublicKeyOperationIsUndoneByBoringSSLsPrivateKeyOperationForAnyBlock() throws {
        // m^e mod n here, (m^e)^d mod n by BoringSSL: m again, for raw blocks across the range
        // (0, 1, small, random, n − 1), not only padded ones.
        let encryptor = try SensitiveDataEncryptor(certificate: Self.credentials.certificate)
        let decryptor = try SensitiveDataDecryptor(credentials: Self.credentials)
        let modulus = encryptor.modulus
        var nMinusOne = [UInt8](repeating: 0, count: modulus.byteCount)
        for i in 0..<modulus.byteCount {
            nMinusOne[modulus.byteCount - 1 - i] = UInt8(truncatingIfNeeded: modulus.n[i / 8] >> (8 * UInt64(i % 8)))
        }
        nMinusOne[modulus.byteCount - 1] -= 1  // n is odd
        var blocks: [[UInt8]] = [
            [UInt8](repeating: 0, count: 256), [UInt8](repeating: 0, count: 255) + [1],
            [UInt8](repeating: 0, count: 254) + [1, 0], nMinusOne,
        ]
        for _ in 0..<40 { blocks.append([0] + (0..<255).map { _ in UInt8.random(in: 0...255) }) }
        for block in blocks {
            let sealed = modulus.power(block, encryptor.exponent)
            #expect(sealed.count == 256)
            let opened = try decryptor.key.blindSignature(for: Data(sealed))
            #expect(opened.withUnsafeBytes { [UInt8]($0) } == block)
        }
        // The exponent's leading zero bits change nothing: 3 written as 0x00 0x03 and as 0x03.
        let small = [UInt8](repeating: 0, count: 255) + [7]
        #expect(modulus.power(small, [0, 3]) == modulus.power(small, [3]))
        #expect(modulus.power(small, [3]).suffix(2) == [1, 87])  // 7³ = 343 = 0x0157
        #expect(modulus.power(small, [0]).last == 1 && modulus.power(small, [0]).dropLast().allSatisfy { $0 == 0 })
    }

    @Test func thePaddingIsRandomAndHasNoZeroByte() {
        for count in [0, 1, 8, 245, 1000] {
            let padding = SensitiveDataEncryptor.nonzeroRandomBytes(count)
            #expect(padding.count == count && !padding.contains(0))
        }
        #expect(SensitiveDataEncryptor.nonzeroRandomBytes(32) != SensitiveDataEncryptor.nonzeroRandomBytes(32))
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
