/// An RSA key decoded by OpenSSL (`EVP_PKEY`), freed with its last reference, and the four
/// operations Paysheet uses, each through a context of its own (`EVP_PKEY_CTX`), so that tasks
/// may use one key at once.
final class OpenSSLKey: @unchecked Sendable {
    // @unchecked: the EVP_PKEY is never changed after decoding, and OpenSSL allows one key in
    // several contexts on several threads at once; each operation makes and frees its own context.

    private let library: LibCrypto
    private let key: OpaquePointer
    /// The modulus's length in bytes: the size of a signature or ciphertext.
    let modulusBytes: Int

    /// A private key from its DER (PKCS #1 `RSAPrivateKey` or PKCS #8).
    init?(privateKeyDER der: [UInt8], library: LibCrypto) {
        guard let key = Self.decode(der, with: library.d2iAutoPrivateKey, library: library) else { return nil }
        self.library = library
        self.key = key
        self.modulusBytes = Int((library.pkeyBits(key) + 7) / 8)
    }

    /// A public key from its DER `SubjectPublicKeyInfo`.
    init?(publicKeyDER der: [UInt8], library: LibCrypto) {
        guard let key = Self.decode(der, with: library.d2iPUBKEY, library: library) else { return nil }
        self.library = library
        self.key = key
        self.modulusBytes = Int((library.pkeyBits(key) + 7) / 8)
    }

    deinit { library.pkeyFree(key) }

    private static func decode(_ der: [UInt8], with decode: LibCrypto.Decode, library: LibCrypto) -> OpaquePointer? {
        let key = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return decode(nil, &cursor, buffer.count)
        }
        if key == nil { library.clearErrors() }
        return key
    }

    /// A PKCS #1 v1.5 signature of a SHA-256 `digest`.
    func signPKCS1(sha256 digest: [UInt8]) -> [UInt8]? {
        run(library.signInit, padding: LibCrypto.pkcs1Padding, signatureDigest: true) { context, out, length in
            library.sign(context, out, &length, digest, digest.count)
        }
    }

    /// Whether `signature` is a PKCS #1 v1.5 signature of a SHA-256 `digest`.
    func verifyPKCS1(signature: [UInt8], sha256 digest: [UInt8]) -> Bool {
        run(library.verifyInit, padding: LibCrypto.pkcs1Padding, signatureDigest: true) { context, _, _ in
            library.verify(context, signature, signature.count, digest, digest.count)
        } != nil
    }

    /// RSA-OAEP decryption with SHA-256 (and MGF1 with SHA-256). Only a ciphertext of exactly the
    /// modulus's length, as BoringSSL requires (OpenSSL would take one with its leading zeros left
    /// out): both backends answer the same inputs alike.
    func decryptOAEPSHA256(_ ciphertext: [UInt8]) -> [UInt8]? {
        guard ciphertext.count == modulusBytes else { return nil }
        return run(library.decryptInit, padding: LibCrypto.oaepPadding, oaepSHA256: true) { context, out, length in
            library.decrypt(context, out, &length, ciphertext, ciphertext.count)
        }
    }

    /// PKCS #1 v1.5 decryption, refusing bad padding as BoringSSL does: OpenSSL 3.2 and later
    /// would otherwise answer it with a made-up plaintext ("implicit rejection"), which the
    /// gateway would read as card data. Exactly the modulus's length, as for OAEP.
    func decryptPKCS1(_ ciphertext: [UInt8]) -> [UInt8]? {
        guard ciphertext.count == modulusBytes else { return nil }
        return run(library.decryptInit, padding: LibCrypto.pkcs1Padding, explicitRejection: true) {
            context,
            out,
            length in
            library.decrypt(context, out, &length, ciphertext, ciphertext.count)
        }
    }

    /// PKCS #1 v1.5 encryption.
    func encryptPKCS1(_ message: [UInt8]) -> [UInt8]? {
        run(library.encryptInit, padding: LibCrypto.pkcs1Padding) { context, out, length in
            library.encrypt(context, out, &length, message, message.count)
        }
    }

    /// One operation in a new context: initialized with `initialize`, its padding and digests
    /// set, then `body` given an output buffer of the modulus's size and its length (which it
    /// sets). The output, or nil if any step fails (OpenSSL's error queue is then cleared).
    private func run(
        _ initialize: LibCrypto.Unary,
        padding: Int32,
        signatureDigest: Bool = false,
        oaepSHA256: Bool = false,
        explicitRejection: Bool = false,
        _ body: (OpaquePointer, UnsafeMutablePointer<UInt8>, inout Int) -> Int32
    ) -> [UInt8]? {
        guard let context = library.contextNew(nil, key, nil) else {
            library.clearErrors()
            return nil
        }
        defer { library.contextFree(context) }
        var ready = initialize(context) == 1 && library.setPadding(context, padding) == 1
        if ready, signatureDigest { ready = library.setSignatureDigest(context, library.sha256()) == 1 }
        if ready, oaepSHA256 {
            ready =
                library.setOAEPDigest(context, library.sha256()) == 1
                && library.setMGF1Digest(context, library.sha256()) == 1
        }
        if ready, explicitRejection {
            // Unknown to OpenSSL before 3.2 (which rejects explicitly anyway); required after.
            let set = library.controlString(context, "rsa_pkcs1_implicit_rejection", "0") == 1
            if !set { library.clearErrors() }
            ready = set || !library.rejectsImplicitly
        }
        var output = [UInt8](repeating: 0, count: modulusBytes)
        var length = modulusBytes
        let done =
            ready
            && output.withUnsafeMutableBufferPointer { buffer in
                body(context, buffer.baseAddress!, &length) == 1
            }
        guard done, length <= modulusBytes else {
            library.clearErrors()
            return nil
        }
        output.removeLast(modulusBytes - length)
        return output
    }
}
