import ArgumentParser
import Foundation
import PaysheetServer
import PaysheetSheetTokens
import PaysheetToken

/// Where Paysheet keeps what it creates on first use: the sandbox CA and merchant keys.
/// `--data`, else `$PAYSHEET_DATA`, else `.paysheet` in the current folder.
struct DataFolderOption: ParsableArguments {
    @Option(name: .customLong("data"), help: "The data folder (default: $PAYSHEET_DATA or ./.paysheet).")
    var path: String?

    var folder: String {
        path ?? ProcessInfo.processInfo.environment["PAYSHEET_DATA"] ?? FileManager.default.currentDirectoryPath
            + "/.paysheet"
    }

    var sandboxCA: String { folder + "/sandbox-ca" }

    func merchantFolder(_ merchantIdentifier: String) -> String { folder + "/merchants/" + merchantIdentifier }

    func pki() throws -> SandboxPKI { try SandboxMerchant.pki(dataFolder: folder) }

    /// The default sandbox merchant's credentials, created on first use (as `paysheet serve` does).
    func defaultMerchant(_ merchantIdentifier: String = "merchant.dev.paysheet.sandbox") throws -> MerchantKey {
        try SandboxMerchant.loadOrCreate(dataFolder: folder, merchantIdentifier: merchantIdentifier)
    }
}

/// Reads an ISO 8601 date-time option (`2024-01-08T17:54:44Z`).
func parseISODate(_ text: String, option: String) throws -> Date {
    if let date = try? Date(text, strategy: .iso8601) { return date }
    if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
    throw ValidationError("\(option) \(text) is not an ISO 8601 date-time such as 2024-01-08T17:54:44Z")
}
