import Foundation
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

    @Test func anUnknownSSLModeIsRefused() {
        #expect(throws: StorageError.self) { _ = try PostgresDatabase(url: Self.base + "?sslmode=sometimes") }
    }
}
