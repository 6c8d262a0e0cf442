import Crypto
import Foundation
import XCTest
import _CryptoExtras

@testable import PaysheetRSA

/// OpenSSL's libcrypto and swift-crypto's BoringSSL against each other, operation by operation:
/// what one signs the other verifies (byte for byte the same signature: PKCS #1 v1.5 is
/// deterministic), what one encrypts the other decrypts, and both refuse the same altered inputs.
final class RSABackendTests: XCTestCase {
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    /// OpenSSL's operations, or a skip on a machine without OpenSSL 3 (CI sets PAYSHEET_RSA=openssl,
    /// which makes its absence a failure in ``testTheChosenBackendIsTheOneAskedFor``).
    func openSSLKey() throws -> RSAPrivateKeyOperations {
        guard case .success = RSABackendChoice.system else {
            throw XCTSkip("no OpenSSL 3 libcrypto on this machine: \(RSABackendChoice.current.explanation)")
        }
        let operations = RSAPrivateKeyOperations(Self.key, backend: .openSSL)
        XCTAssertEqual(operations.backend, .openSSL, "OpenSSL opened but the key was not given to it")
        return operations
    }

    func testTheChosenBackendIsTheOneAskedFor() {
        let asked = ProcessInfo.processInfo.environment["PAYSHEET_RSA"]
        let choice = RSABackendChoice.current
        switch asked {
        case "openssl":
            XCTAssertEqual(choice.backend, .openSSL, choice.explanation)
            XCTAssertEqual(RSAPrivateKeyOperations(Self.key).backend, .openSSL)
        case "boringssl":
            XCTAssertEqual(choice.backend, .boringSSL, choice.explanation)
            XCTAssertEqual(RSAPrivateKeyOperations(Self.key).backend, .boringSSL)
        default:
            let opened = (try? RSABackendChoice.system.get()) != nil
            XCTAssertEqual(choice.backend, opened ? .openSSL : .boringSSL, choice.explanation)
        }
    }

    func testWithoutLibCryptoTheChoiceFallsBackToBoringSSLAndSaysWhy() {
        let missing = LibCrypto.open(candidates: ["/nonexistent/libcrypto.so.3"])
        guard case .failure(let reason) = missing else { return XCTFail("a missing file opened") }
        XCTAssertTrue(reason.description.contains("/nonexistent/libcrypto.so.3"), reason.description)
        for asked in ["auto", "openssl", "boringssl", "fastest"] {
            let choice = RSABackendChoice.make(environment: ["PAYSHEET_RSA": asked], opened: missing)
            XCTAssertEqual(choice.backend, .boringSSL, asked)
        }
        let unknown = RSABackendChoice.make(environment: ["PAYSHEET_RSA": "fastest"], opened: missing)
        XCTAssertTrue(unknown.explanation.contains("PAYSHEET_RSA=fastest"), unknown.explanation)
        // With a library that opened, an unknown value is read as auto, and said.
        if case .success = RSABackendChoice.system {
            let auto = RSABackendChoice.make(environment: ["PAYSHEET_RSA": "fastest"], opened: RSABackendChoice.system)
            XCTAssertEqual(auto.backend, .openSSL)
            XCTAssertTrue(auto.explanation.contains("read as auto"), auto.explanation)
        }
        // A library that is not OpenSSL 3 is refused with the reason (libc has none of its functions).
        if case .failure(let notOpenSSL) = LibCrypto.open(candidates: ["libc.so.6"]) {
            XCTAssertTrue(notOpenSSL.description.contains("OpenSSL_version_num"), notOpenSSL.description)
        } else {
            XCTFail("libc was taken for OpenSSL")
        }
        let boring = RSAPrivateKeyOperations(Self.key, backend: .boringSSL)
        XCTAssertEqual(boring.backend, .boringSSL)
        XCTAssertTrue(
            RSAPublicKeyOperations(Self.key.publicKey, backend: .boringSSL).verifySHA256(
                signature: boring.signSHA256(Array("x".utf8)),
                for: Array("x".utf8)
            )
        )
    }

    func testSignaturesAreTheSameBytesAndEachVerifiesTheOthers() throws {
        let openSSL = try openSSLKey()
        let boring = RSAPrivateKeyOperations(Self.key, backend: .boringSSL)
        let verifiers = RSABackend.allCases.map { RSAPublicKeyOperations(Self.key.publicKey, backend: $0) }
        XCTAssertEqual(verifiers.map(\.backend), [.openSSL, .boringSSL])
        for length in [0, 1, 64, 1000] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let a = openSSL.signSHA256(message)
            let b = boring.signSHA256(message)
            XCTAssertEqual(a, b, "PKCS #1 v1.5 is deterministic: both backends must give the same signature")
            XCTAssertEqual(a.count, 256)
            for verifier in verifiers {
                XCTAssertTrue(verifier.verifySHA256(signature: a, for: message), "\(verifier.backend)")
                XCTAssertFalse(verifier.verifySHA256(signature: a, for: message + [0]), "\(verifier.backend)")
                var altered = a
                altered[100] ^= 1
                XCTAssertFalse(verifier.verifySHA256(signature: altered, for: message), "\(verifier.backend)")
                XCTAssertFalse(verifier.verifySHA256(signature: Array(a.dropLast()), for: message))
            }
        }
        // And a signature swift-crypto's own API makes (what UnionPay's SDKs check) verifies on both.
        let digest = SHA256.hash(data: Array("abc".utf8))
        let theirs = Array(try Self.key.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation)
        XCTAssertEqual(openSSL.signSHA256(Array("abc".utf8)), theirs)
    }

    func testOAEPCiphertextsOfSwiftCryptoDecryptOnBothAndAlteredOnesOnNeither() throws {
        let openSSL = try openSSLKey()
        let boring = RSAPrivateKeyOperations(Self.key, backend: .boringSSL)
        let publicKey = try _RSA.Encryption.PublicKey(derRepresentation: Self.key.publicKey.derRepresentation)
        for length in [16, 32, 190] {
            let secret = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            let sealed = Array(try publicKey.encrypt(secret, padding: .PKCS1_OAEP_SHA256))
            XCTAssertEqual(openSSL.decryptOAEPSHA256(sealed), secret)
            XCTAssertEqual(boring.decryptOAEPSHA256(sealed), secret)
            var altered = sealed
            altered[7] ^= 0x40
            XCTAssertNil(openSSL.decryptOAEPSHA256(altered))
            XCTAssertNil(boring.decryptOAEPSHA256(altered))
            // Shorter or longer than the modulus: refused by both (OpenSSL alone would take a
            // ciphertext whose leading zero byte was left out).
            for wrongLength in [Array(sealed.dropFirst()), [0] + sealed, Array(sealed.dropFirst()) + [0, 0]] {
                XCTAssertNil(openSSL.decryptOAEPSHA256(wrongLength))
                XCTAssertNil(boring.decryptOAEPSHA256(wrongLength))
            }
            // OAEP with SHA-1 (another padding) is not accepted for SHA-256.
            let sha1 = Array(try publicKey.encrypt(secret, padding: .PKCS1_OAEP))
            XCTAssertNil(openSSL.decryptOAEPSHA256(sha1))
            XCTAssertNil(boring.decryptOAEPSHA256(sha1))
        }
    }

    func testPKCS1EncryptionOfEachDecryptsOnTheOther() throws {
        let openSSL = try openSSLKey()
        let boring = RSAPrivateKeyOperations(Self.key, backend: .boringSSL)
        let encryptors = RSABackend.allCases.map { RSAPublicKeyOperations(Self.key.publicKey, backend: $0) }
        XCTAssertEqual(encryptors.map(\.maximumPKCS1MessageSize), [245, 245])
        let card = Array("6216261000000000018".utf8)
        for encryptor in encryptors {
            let a = try XCTUnwrap(encryptor.encryptPKCS1(card))
            let b = try XCTUnwrap(encryptor.encryptPKCS1(card))
            XCTAssertNotEqual(a, b, "PKCS #1 v1.5 encryption pads with random bytes")
            XCTAssertEqual(openSSL.decryptPKCS1(a), card)
            XCTAssertEqual(boring.decryptPKCS1(b), card)
            XCTAssertNil(encryptor.encryptPKCS1([UInt8](repeating: 1, count: 246)), "longer than one block")
        }
        let sealed = try XCTUnwrap(encryptors[0].encryptPKCS1(card))
        for wrongLength in [Array(sealed.dropFirst()), [0] + sealed] {
            XCTAssertNil(openSSL.decryptPKCS1(wrongLength))
            XCTAssertNil(boring.decryptPKCS1(wrongLength))
        }
        // Bad padding is an error on both (OpenSSL 3.2+ is told not to answer with a made-up text).
        var altered = sealed
        altered[0] ^= 0xff
        XCTAssertNil(openSSL.decryptPKCS1(altered))
        XCTAssertNil(boring.decryptPKCS1(altered))
    }

    func testAKeyIsUsableFromManyTasksAtOnce() async throws {
        let openSSL = try openSSLKey()
        let verifier = RSAPublicKeyOperations(Self.key.publicKey, backend: .openSSL)
        let ok = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let message = Array("payment \(index)".utf8)
                    return verifier.verifySHA256(signature: openSSL.signSHA256(message), for: message)
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        XCTAssertTrue(ok)
    }
}
