#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's OpenSSL 3 `libcrypto`, opened at run time (`dlopen`), with the few functions the
/// RSA operations call.
///
/// Opened rather than linked so that a machine without OpenSSL (or without its headers) builds
/// and runs the package unchanged, on BoringSSL: nothing of OpenSSL is needed at build time. The
/// functions are OpenSSL 3's stable ABI (`libcrypto.so.3`, `OPENSSL_3.0.0` symbol versions); the
/// library is accepted only if its version number says 3.x.
final class LibCrypto: @unchecked Sendable {
    // @unchecked: an immutable table of C function pointers, set once in `init`; OpenSSL's
    // functions are safe to call from any thread.

    typealias Pointer = OpaquePointer
    typealias Decode =
        @convention(c) (
            UnsafeMutablePointer<Pointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int
        ) -> Pointer?
    typealias Free = @convention(c) (Pointer?) -> Void
    typealias Unary = @convention(c) (Pointer?) -> Int32
    typealias NewContext = @convention(c) (Pointer?, Pointer?, UnsafePointer<CChar>?) -> Pointer?
    typealias Transform =
        @convention(c) (
            Pointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>, UnsafePointer<UInt8>?, Int
        ) -> Int32
    typealias Check = @convention(c) (Pointer?, UnsafePointer<UInt8>?, Int, UnsafePointer<UInt8>?, Int) -> Int32
    typealias SetInteger = @convention(c) (Pointer?, Int32) -> Int32
    typealias SetPointer = @convention(c) (Pointer?, Pointer?) -> Int32
    typealias Digest = @convention(c) () -> Pointer?
    typealias Void0 = @convention(c) () -> Void
    typealias ControlString = @convention(c) (Pointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    let versionText: String
    let path: String
    /// `OpenSSL_version_num()`: 0xMNN00PP0.
    let versionNumber: UInt

    let d2iAutoPrivateKey: Decode
    let d2iPUBKEY: Decode
    let pkeyFree: Free
    let pkeyBits: Unary
    let contextNew: NewContext
    let contextFree: Free
    let signInit: Unary
    let sign: Transform
    let verifyInit: Unary
    let verify: Check
    let decryptInit: Unary
    let decrypt: Transform
    let encryptInit: Unary
    let encrypt: Transform
    let setPadding: SetInteger
    let setSignatureDigest: SetPointer
    let setOAEPDigest: SetPointer
    let setMGF1Digest: SetPointer
    let sha256: Digest
    let clearErrors: Void0
    let controlString: ControlString

    /// Whether this OpenSSL answers a PKCS #1 v1.5 decryption with bad padding by "implicit
    /// rejection" (a made-up plaintext, OpenSSL 3.2 and later) unless told not to.
    var rejectsImplicitly: Bool { versionNumber >= 0x3020_0000 }

    /// `RSA_PKCS1_PADDING`, `RSA_PKCS1_OAEP_PADDING`.
    static let pkcs1Padding: Int32 = 1
    static let oaepPadding: Int32 = 4

    /// The library at the first of `candidates` that opens and is OpenSSL 3.x with every function
    /// needed, or why none is.
    static func open(candidates: [String]) -> Result<LibCrypto, LibCryptoUnavailable> {
        var reasons: [String] = []
        for path in candidates {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append("\(path): \(dlerror().map { String(cString: $0) } ?? "cannot be opened")")
                continue
            }
            do {
                return .success(try make(handle: handle, path: path))
            } catch {
                reasons.append("\(path): \(error.description)")
                dlclose(handle)
            }
        }
        return .failure(LibCryptoUnavailable(description: reasons.joined(separator: "; ")))
    }

    private static func function<T>(
        _ handle: UnsafeMutableRawPointer,
        _ name: String,
        as type: T.Type
    ) throws(LibCryptoUnavailable) -> T {
        guard let symbol = dlsym(handle, name) else {
            throw LibCryptoUnavailable(description: "it has no \(name)")
        }
        return unsafeBitCast(symbol, to: type)
    }

    private static func make(handle: UnsafeMutableRawPointer, path: String) throws(LibCryptoUnavailable) -> LibCrypto {
        typealias VersionNumber = @convention(c) () -> UInt
        typealias VersionText = @convention(c) (Int32) -> UnsafePointer<CChar>?
        typealias Initialize = @convention(c) (UInt64, OpaquePointer?) -> Int32
        let number = try function(handle, "OpenSSL_version_num", as: VersionNumber.self)()
        // 0xMNN00PP0L: major 3.
        guard number >> 28 == 3 else {
            throw LibCryptoUnavailable(
                description: "it is not OpenSSL 3 (version number 0x\(String(number, radix: 16)))"
            )
        }
        // No clean-up at exit (OPENSSL_INIT_NO_ATEXIT): another thread may still be signing when
        // the process ends, and OpenSSL's exit handler would free what it uses.
        guard try function(handle, "OPENSSL_init_crypto", as: Initialize.self)(0x0008_0000, nil) == 1 else {
            throw LibCryptoUnavailable(description: "OPENSSL_init_crypto failed")
        }
        let text = try function(handle, "OpenSSL_version", as: VersionText.self)(0).map { String(cString: $0) }
        return try LibCrypto(handle: handle, path: path, versionText: text ?? "OpenSSL 3", versionNumber: number)
    }

    private init(
        handle: UnsafeMutableRawPointer,
        path: String,
        versionText: String,
        versionNumber: UInt
    ) throws(LibCryptoUnavailable) {
        func f<T>(_ name: String, _ type: T.Type) throws(LibCryptoUnavailable) -> T {
            try Self.function(handle, name, as: type)
        }
        self.path = path
        self.versionText = versionText
        self.versionNumber = versionNumber
        d2iAutoPrivateKey = try f("d2i_AutoPrivateKey", Decode.self)
        d2iPUBKEY = try f("d2i_PUBKEY", Decode.self)
        pkeyFree = try f("EVP_PKEY_free", Free.self)
        pkeyBits = try f("EVP_PKEY_get_bits", Unary.self)
        contextNew = try f("EVP_PKEY_CTX_new_from_pkey", NewContext.self)
        contextFree = try f("EVP_PKEY_CTX_free", Free.self)
        signInit = try f("EVP_PKEY_sign_init", Unary.self)
        sign = try f("EVP_PKEY_sign", Transform.self)
        verifyInit = try f("EVP_PKEY_verify_init", Unary.self)
        verify = try f("EVP_PKEY_verify", Check.self)
        decryptInit = try f("EVP_PKEY_decrypt_init", Unary.self)
        decrypt = try f("EVP_PKEY_decrypt", Transform.self)
        encryptInit = try f("EVP_PKEY_encrypt_init", Unary.self)
        encrypt = try f("EVP_PKEY_encrypt", Transform.self)
        setPadding = try f("EVP_PKEY_CTX_set_rsa_padding", SetInteger.self)
        setSignatureDigest = try f("EVP_PKEY_CTX_set_signature_md", SetPointer.self)
        setOAEPDigest = try f("EVP_PKEY_CTX_set_rsa_oaep_md", SetPointer.self)
        setMGF1Digest = try f("EVP_PKEY_CTX_set_rsa_mgf1_md", SetPointer.self)
        sha256 = try f("EVP_sha256", Digest.self)
        clearErrors = try f("ERR_clear_error", Void0.self)
        controlString = try f("EVP_PKEY_CTX_ctrl_str", ControlString.self)
    }
}

/// Why the system's `libcrypto` is not used.
struct LibCryptoUnavailable: Error, CustomStringConvertible {
    var description: String
}
