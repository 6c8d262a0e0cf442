// Seed 004's order through a client generated from docs/openapi.yaml: created with the
// merchant's key, paid with a sandbox token (`paysheet token issue`, encrypted to the server's
// own certificate and bound to the order's applicationData) through the server's authorize
// endpoint, refunded in part, and read back. Every call is the generated client's.
//
//   PAYSHEET_SERVER=http://127.0.0.1:8080 PAYSHEET_API_KEY=psk_… PAYSHEET_BIN=…/paysheet \
//   PAYSHEET_DATA=…/.paysheet swift run paysheet-api-client
import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

let environment = ProcessInfo.processInfo.environment
func required(_ name: String) -> String {
    guard let value = environment[name], !value.isEmpty else {
        FileHandle.standardError.write(Data("paysheet-api-client: set \(name)\n".utf8))
        exit(2)
    }
    return value
}

let client = Client(
    serverURL: URL(string: required("PAYSHEET_SERVER"))!,
    transport: URLSessionTransport(),
    middlewares: [BearerAuthentication(token: required("PAYSHEET_API_KEY"))]
)
let tokens = SandboxTokens(
    paysheet: required("PAYSHEET_BIN"),
    dataFolder: required("PAYSHEET_DATA")
)

do {
    try await Checkout(client: client, tokens: tokens).run()
    print("paysheet-api-client: seed 004's order created, paid, refunded in part and read back")
} catch {
    FileHandle.standardError.write(Data("paysheet-api-client: FAILED: \(error)\n".utf8))
    exit(1)
}
