import Foundation

/// Which implementation performs RSA's private-key operations: the system's OpenSSL 3 `libcrypto`
/// or swift-crypto's BoringSSL (public-key operations stay on BoringSSL:
/// ``RSAPublicKeyOperations``).
///
/// On a CPU with AVX-512 IFMA, OpenSSL 3 runs RSA-2048's private operation about twice as fast
/// as BoringSSL, which has no such path (docs/benchmarks.md measures both on this machine).
/// BoringSSL is always there: it is built into the package, and it is what a machine without
/// OpenSSL 3 uses.
package enum RSABackend: String, Sendable, CaseIterable {
    /// The system's OpenSSL 3 `libcrypto`, opened at run time.
    case openSSL = "openssl"
    /// swift-crypto's BoringSSL, built into the package.
    case boringSSL = "boringssl"

    /// The backend in use unless a key is given another, as ``RSABackendChoice/make(environment:)``
    /// chose it at the first RSA operation.
    package static var selected: RSABackend { RSABackendChoice.current.backend }
}

/// The process's choice of RSA backend, and why.
///
/// `PAYSHEET_RSA` chooses: `openssl` (OpenSSL 3's `libcrypto`; BoringSSL, with the reason, if it
/// cannot be opened), `boringssl`, or `auto` (the default): OpenSSL when its `libcrypto.so.3`
/// opens and is OpenSSL 3, BoringSSL otherwise. OpenSSL is preferred whenever it is there because
/// its RSA is never the slower of the two on the CPUs measured (twice as fast with AVX-512 IFMA,
/// about 6 % faster without), and each key's first use checks that both agree (a PKCS #1 v1.5
/// signature, deterministic, made by each): a key they disagree on stays on BoringSSL.
/// `PAYSHEET_LIBCRYPTO=PATH` names the library to open instead of the system's.
package struct RSABackendChoice: Sendable {
    /// The backend chosen.
    package let backend: RSABackend
    /// Why: the environment's request, and what was found.
    package let explanation: String

    /// The process's choice, made once.
    package static let current = make(environment: ProcessInfo.processInfo.environment)

    /// OpenSSL's `libcrypto`, opened once (whatever the choice), or why it is not there.
    static let system: Result<LibCrypto, LibCryptoUnavailable> = LibCrypto.open(
        candidates: libraryCandidates(environment: ProcessInfo.processInfo.environment)
    )

    /// Whether OpenSSL 3's `libcrypto` opened in this process.
    package static var libCryptoOpened: Bool { (try? system.get()) != nil }

    static func libraryCandidates(environment: [String: String]) -> [String] {
        if let path = environment["PAYSHEET_LIBCRYPTO"], !path.isEmpty { return [path] }
        #if os(macOS)
        // Homebrew's OpenSSL 3 (never /usr/lib/libcrypto.dylib, which macOS refuses to load).
        return ["/opt/homebrew/opt/openssl@3/lib/libcrypto.3.dylib", "/usr/local/opt/openssl@3/lib/libcrypto.3.dylib"]
        #else
        return ["libcrypto.so.3"]
        #endif
    }

    /// The choice for `environment`'s `PAYSHEET_RSA`.
    package static func make(environment: [String: String]) -> RSABackendChoice {
        make(environment: environment, opened: system)
    }

    /// The choice for `environment`'s `PAYSHEET_RSA` when opening OpenSSL gave `opened`.
    static func make(
        environment: [String: String],
        opened: Result<LibCrypto, LibCryptoUnavailable>
    ) -> RSABackendChoice {
        let asked = environment["PAYSHEET_RSA"]?.lowercased() ?? "auto"
        // An unknown value is read as `auto`, and said.
        let unknown =
            ["auto", "openssl", "boringssl"].contains(asked)
            ? "" : " (PAYSHEET_RSA=\(asked) is not openssl, boringssl or auto: read as auto)"
        switch (asked, opened) {
        case ("boringssl", _):
            return RSABackendChoice(
                backend: .boringSSL,
                explanation: "BoringSSL (swift-crypto), as PAYSHEET_RSA=boringssl asks"
            )
        case (_, .success(let library)):
            let why = asked == "openssl" ? "as PAYSHEET_RSA=openssl asks" : "found at \(library.path)"
            return RSABackendChoice(
                backend: .openSSL,
                explanation: "\(library.versionText), \(why)\(unknown)"
            )
        case (_, .failure(let reason)):
            return RSABackendChoice(
                backend: .boringSSL,
                explanation:
                    "BoringSSL (swift-crypto): OpenSSL 3's libcrypto is not usable here (\(reason.description))\(unknown)"
            )
        }
    }
}
