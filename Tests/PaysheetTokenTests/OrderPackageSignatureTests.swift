import Crypto
import Foundation
import PaysheetModel
import PaysheetToken
import Testing
import X509

/// Order packages' signatures: a detached CMS signature over `manifest.json` by an Order Type ID
/// certificate, made by ``OrderPackageSigner`` and checked by ``OrderSignatureVerifier`` as Wallet
/// checks it (the digest, the signature, the chain to a trusted root at the time of the check).
@Suite struct OrderPackageSignatureTests {
    static let type = "order.com.example.tea"
    static let manifest = Array(#"{"order.json":"00ff"}"#.utf8)

    @Test func aSignatureByTheSandboxsOrderTypeCertificateVerifiesAndNamesTheType() async throws {
        let pki = try SandboxPKI.generate()
        let signer = try pki.orderPackageSigner(orderTypeIdentifier: Self.type)
        #expect(signer.orderTypeIdentifier == Self.type)
        let signature = try signer.signature(of: Self.manifest, at: Date())
        let certificate = try await OrderSignatureVerifier(trust: pki.trustAnchors).verify(
            signature,
            manifest: Self.manifest,
            at: Date()
        )
        #expect(certificate == signer.certificate)
        #expect(OrderPackageSigner.orderTypeIdentifier(of: certificate) == Self.type)
        #expect("\(certificate.subject)".contains("Order Type ID: \(Self.type)"))
    }

    @Test func anotherManifestIsRefused() async throws {
        let pki = try SandboxPKI.generate()
        let signature = try pki.orderPackageSigner(orderTypeIdentifier: Self.type).signature(
            of: Self.manifest,
            at: Date()
        )
        var tampered = Self.manifest
        tampered[tampered.count - 3] = UInt8(ascii: "e")
        let error = await #expect(throws: OrderPackageError.self) {
            _ = try await OrderSignatureVerifier(trust: pki.trustAnchors).verify(
                signature,
                manifest: tampered,
                at: Date()
            )
        }
        #expect(error?.code == .signature)
        #expect(error?.message.contains("messageDigest") == true)
    }

    @Test func aForgedSignatureValueIsRefused() async throws {
        let pki = try SandboxPKI.generate()
        var signature = try pki.orderPackageSigner(orderTypeIdentifier: Self.type).signature(
            of: Self.manifest,
            at: Date()
        )
        // The signature value is the last element of the SignerInfo, at the end of the structure.
        signature[signature.count - 5] ^= 0x01
        let error = await #expect(throws: OrderPackageError.self) {
            _ = try await OrderSignatureVerifier(trust: pki.trustAnchors).verify(
                signature,
                manifest: Self.manifest,
                at: Date()
            )
        }
        #expect(error?.code == .signature)
    }

    @Test func aCertificateOfAnotherRootIsRefused() async throws {
        let trusted = try SandboxPKI.generate()
        let forger = try SandboxPKI.generate()
        let signature = try forger.orderPackageSigner(orderTypeIdentifier: Self.type).signature(
            of: Self.manifest,
            at: Date()
        )
        let error = await #expect(throws: OrderPackageError.self) {
            _ = try await OrderSignatureVerifier(trust: trusted.trustAnchors).verify(
                signature,
                manifest: Self.manifest,
                at: Date()
            )
        }
        #expect(error?.code == .chain)
        #expect(error?.message.contains("does not chain to a trusted root") == true)
    }

    @Test func anExpiredCertificateIsRefused() async throws {
        let pki = try SandboxPKI.generate()
        let signer = try pki.orderPackageSigner(orderTypeIdentifier: Self.type)
        let signature = try signer.signature(of: Self.manifest, at: Date())
        let later = signer.certificate.notValidAfter.addingTimeInterval(86_400)
        let error = await #expect(throws: OrderPackageError.self) {
            _ = try await OrderSignatureVerifier(trust: pki.trustAnchors).verify(
                signature,
                manifest: Self.manifest,
                at: later
            )
        }
        #expect(error?.code == .chain)
        #expect(error?.message.contains("is valid from") == true)
    }

    @Test func bytesThatAreNoSignatureAreMalformed() async throws {
        let pki = try SandboxPKI.generate()
        let error = await #expect(throws: OrderPackageError.self) {
            _ = try await OrderSignatureVerifier(trust: pki.trustAnchors).verify(
                Array("not CMS".utf8),
                manifest: Self.manifest,
                at: Date()
            )
        }
        #expect(error?.code == .malformed)
    }

    @Test func theSandboxSignerIsKeptInItsFolderWithAPrivateKey() async throws {
        let pki = try SandboxPKI.generate()
        let folder = NSTemporaryDirectory() + "paysheet-order-type-" + UUID().uuidString + "/" + Self.type
        let first = try pki.orderPackageSigner(orderTypeIdentifier: Self.type, folder: folder)
        let again = try pki.orderPackageSigner(orderTypeIdentifier: Self.type, folder: folder)
        #expect(first.certificate == again.certificate)
        #expect(again.intermediate == pki.merchantCA)
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/key.pem")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A key another user can read is refused.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/key.pem")
        #expect(throws: OrderPackageError.self) {
            _ = try OrderPackageSigner(
                certificateFile: folder + "/certificate.pem",
                keyFile: folder + "/key.pem",
                intermediateFile: folder + "/intermediate.pem"
            )
        }
        try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent)
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefused() throws {
        let pki = try SandboxPKI.generate()
        let one = try pki.orderPackageSigner(orderTypeIdentifier: Self.type)
        let other = try SandboxPKI.generate().orderPackageSigner(orderTypeIdentifier: Self.type)
        #expect(throws: OrderPackageError.self) {
            _ = try OrderPackageSigner(
                certificate: one.certificate,
                key: P256.Signing.PrivateKey(),
                intermediate: other.intermediate
            )
        }
    }
}
