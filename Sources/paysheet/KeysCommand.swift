import ArgumentParser
import Foundation
import PaysheetToken
import PaysheetTokenFormat

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Merchant payment processing keys and the sandbox CA.",
        subcommands: [Create.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Make a payment processing key (P-256 or RSA-2048), its CSR and a sandbox certificate naming the merchant identifier."
        )

        @Option(name: .customLong("merchant-id"), help: "The merchant identifier, e.g. merchant.com.example.")
        var merchantIdentifier: String

        @Option(help: "Key type: ec (EC_v1 tokens) or rsa (RSA_v1 tokens).")
        var type: String = "ec"

        @Option(name: .customLong("private-key"), help: "Use this existing private key (PEM) instead of making one.")
        var privateKey: String?

        @Option(help: "Folder for key.pem, csr.pem and certificate.pem (default: DATA/merchants/MERCHANT-ID).")
        var out: String?

        @OptionGroup var data: DataFolderOption

        func run() throws {
            guard let keyType = MerchantCredentials.KeyType(rawValue: type) else {
                throw ValidationError("--type must be ec or rsa, not \(type)")
            }
            do {
                let existing = try privateKey.map {
                    try MerchantPrivateKey(contentsOf: $0, permissions: .warn(writeErr))
                }
                let credentials = try MerchantCredentials.create(
                    merchantIdentifier: merchantIdentifier,
                    keyType: keyType,
                    existingKey: existing,
                    pki: data.pki()
                )
                let paths = try credentials.save(folder: out ?? data.merchantFolder(merchantIdentifier))
                let key = credentials.merchantKey
                print("merchant identifier: \(merchantIdentifier)")
                print("private key (0600): \(paths.privateKey)")
                print("CSR:                \(paths.csr)")
                print("certificate:        \(paths.certificate)")
                print("publicKeyHash:      \(Base64.encode(key.publicKeyHash))")
                print("sandbox root:       \(data.sandboxCA)/root.pem  (pass as --root to verify sandbox tokens)")
            } catch let error as PaymentTokenError {
                writeErr("error: \(error.message)")
                throw ExitCodes.usage
            }
        }
    }
}
