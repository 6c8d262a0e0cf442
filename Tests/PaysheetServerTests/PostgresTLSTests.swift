import Foundation
import PaysheetSheetTokens
import Testing
@testable import PaysheetServer

/// PostgreSQL over TLS as libpq's `sslmode` asks, against the CI PostgreSQL whose certificate CI
/// made (`.ci/postgres.sh`; its CA in `PAYSHEET_TEST_POSTGRES_CA`).
@Suite(
    .enabled(
        if: TestDatabases.postgresURL != nil && ProcessInfo.processInfo.environment["PAYSHEET_TEST_POSTGRES_CA"] != nil,
        "needs PAYSHEET_TEST_POSTGRES_URL and PAYSHEET_TEST_POSTGRES_CA (CI starts both)"
    )
)
struct PostgresTLSTests {
    static var base: String { TestDatabases.postgresURL ?? "" }
    static var ca: String { ProcessInfo.processInfo.environment["PAYSHEET_TEST_POSTGRES_CA"] ?? "" }

    /// Whether the connection `url` opens is encrypted (pg_stat_ssl of its own backend).
    func encrypted(_ url: String) async throws -> Bool {
        let db = try PostgresDatabase(url: url)
        return try await withThrowingTaskGroup(of: Bool?.self) { group in
            group.addTask {
                await db.run()
                return nil
            }
            defer { group.cancelAll() }
            let rows = try await db.read(
                "SELECT CAST(ssl AS TEXT) AS ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                []
            )
            return try rows.first?.text("ssl") == "true"
        }
    }

    @Test func verifyFullWithTheCAIsEncrypted() async throws {
        #expect(try await encrypted(Self.base + "?sslmode=verify-full&sslrootcert=" + Self.ca))
        #expect(try await encrypted(Self.base + "?sslmode=require"))
        #expect(try await !encrypted(Self.base + "?sslmode=disable"))
    }

    @Test func verifyFullRefusesACertificateItsCADidNotSign() async throws {
        // Another CA: the sandbox token PKI's root, which never signed the server's certificate.
        let folder = NSTemporaryDirectory() + "paysheet-tls-" + UUID().uuidString
        let pki = try SandboxMerchant.pki(dataFolder: folder)
        let other = folder + "/other-ca.pem"
        try pki.root.serializeAsPEM().pemString.write(toFile: other, atomically: true, encoding: .utf8)
        let url = Self.base + "?sslmode=verify-full&sslrootcert=" + other
        let db = try PostgresDatabase(url: url)
        // No statement runs: the pool fails the request, or (it may retry connecting) never
        // gets a connection; either way nothing is answered within ten seconds.
        await #expect(throws: (any Error).self) {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await db.run()
                    return false
                }
                group.addTask {
                    _ = try await db.read("SELECT 1", [])
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    throw StorageError("no answer in ten seconds")
                }
                defer { group.cancelAll() }
                while let answered = try await group.next() {
                    if answered { return }
                }
            }
        }
    }

    /// Whether a statement is answered on `url` within `seconds` (false: refused, or no
    /// connection). A refusal is shown by waiting the bound out (a loaded machine cannot make a
    /// refused connection answer, so ten seconds will do); an answer is waited for a minute (a
    /// loaded machine only makes it later).
    func answers(_ url: String, within seconds: Int = 10) async throws -> Bool {
        let db = try PostgresDatabase(url: url)
        do {
            return try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await db.run()
                    return false
                }
                group.addTask {
                    _ = try await db.read("SELECT 1", [])
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(seconds))
                    return false
                }
                defer { group.cancelAll() }
                return try await group.next() ?? false
            }
        } catch {
            return false
        }
    }

    /// Another CA's certificate in a file: the sandbox token PKI's root, which never signed the server's.
    static func otherCA() throws -> String {
        let folder = NSTemporaryDirectory() + "paysheet-tls-" + UUID().uuidString
        let pki = try SandboxMerchant.pki(dataFolder: folder)
        let other = folder + "/other-ca.pem"
        try pki.root.serializeAsPEM().pemString.write(toFile: other, atomically: true, encoding: .utf8)
        return other
    }

    /// verify-full without sslrootcert used the system's roots without saying so (libpq refuses:
    /// "root certificate file … does not exist"). Now it is refused when the database is opened,
    /// naming both fixes; `sslrootcert=system` asks for the system's roots in so many words.
    @Test func verifyFullWithoutARootCertificateIsRefusedClearly() throws {
        for mode in ["verify-full", "verify-ca"] {
            let error = #expect(throws: StorageError.self) {
                _ = try PostgresDatabase(url: Self.base + "?sslmode=" + mode)
            }
            #expect(error?.message.contains("sslrootcert=") == true, "\(String(describing: error))")
            #expect(error?.message.contains("sslrootcert=system") == true, "\(String(describing: error))")
        }
        _ = try PostgresDatabase(url: Self.base + "?sslmode=verify-full&sslrootcert=system")
        // As libpq: the system's roots only with verify-full.
        #expect(throws: StorageError.self) {
            _ = try PostgresDatabase(url: Self.base + "?sslmode=require&sslrootcert=system")
        }
    }

    /// The system's roots did not sign CI's certificate: verify-full with them is refused.
    @Test func verifyFullWithTheSystemRootsRefusesCIsCertificate() async throws {
        #expect(try await !answers(Self.base + "?sslmode=verify-full&sslrootcert=system"))
    }

    /// libpq: "if a root CA file exists, the behavior of sslmode=require will be the same as that
    /// of verify-ca". Paysheet connected unverified with the CA named.
    @Test func requireWithARootCertificateVerifiesTheChainAsLibpqDoes() async throws {
        let other = try Self.otherCA()
        #expect(try await !answers(Self.base + "?sslmode=require&sslrootcert=" + other))
        #expect(try await answers(Self.base + "?sslmode=require&sslrootcert=" + Self.ca, within: 60))
    }

    @Test func anUnknownSSLModeIsRefused() {
        #expect(throws: StorageError.self) { _ = try PostgresDatabase(url: Self.base + "?sslmode=sometimes") }
    }
}
