import Foundation
import OpenAPIRuntime

/// Sandbox payment tokens from `paysheet token issue`: real EC_v1 tokens signed by the data
/// folder's sandbox CA (which the sandbox server trusts) and encrypted to the certificate the
/// server publishes at `GET /v1/sandbox/merchant`.
struct SandboxTokens {
    let paysheet: String
    let dataFolder: String

    /// The paymentData of a token for `amount` in `currency`, carrying the SHA-256 of the order's
    /// `applicationData`, encrypted to `certificate` (PEM).
    func issue(
        amount: String,
        currency: String,
        applicationData: String,
        certificate: String
    ) throws -> OpenAPIObjectContainer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "paysheet-api-client-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificateFile = folder.appendingPathComponent("certificate.pem")
        try Data(certificate.utf8).write(to: certificateFile)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: paysheet)
        process.arguments = [
            "token", "issue", "--certificate", certificateFile.path, "--amount", amount, "--currency", currency,
            "--network", "chinaUnionPay", "--application-data", applicationData, "--data", dataFolder,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CheckoutFailure("paysheet token issue exited \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(OpenAPIObjectContainer.self, from: text)
    }
}
