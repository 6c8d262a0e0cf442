import ArgumentParser
import Foundation
import PaysheetModel
import PaysheetToken
import PaysheetTokenFormat

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Verify and decrypt payment tokens; issue sandbox tokens.",
        subcommands: [Decrypt.self, Issue.self]
    )

    struct Decrypt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Verify a token (signature, Apple's chain rules, signing time) and print its decrypted payment data as JSON."
        )

        @Option(
            help:
                "The token: paymentData JSON, or a PKPaymentToken / ApplePayPayment holding it ('-' for standard input)."
        )
        var token: String

        @Option(help: "The merchant's payment processing certificate (PEM).")
        var certificate: String?

        @Option(name: .customLong("merchant-id"), help: "The merchant identifier, when no certificate is at hand.")
        var merchantIdentifier: String?

        @Option(name: .customLong("private-key"), help: "The certificate's private key (PEM: PKCS#8, SEC1 or PKCS#1).")
        var privateKey: String

        @Option(help: "Trust this root (PEM) instead of the embedded Apple Root CA - G3 (e.g. the sandbox root).")
        var root: String?

        @Option(help: "Verification time, ISO 8601 (default: now). Recorded tokens verify only at their signing time.")
        var at: String?

        @Option(help: "Accepted difference between signing time and verification time, in seconds.")
        var tolerance: Double = 300

        @Flag(help: "On failure, print {\"error\": {\"code\", \"message\"}} on standard output.")
        var json = false

        func run() async throws {
            let time = try at.map { try parseISODate($0, option: "--at") } ?? Date()
            do {
                let privateKey = try MerchantPrivateKey(
                    contentsOf: self.privateKey,
                    permissions: .warn { writeErr("warning: \($0)") }
                )
                let key: MerchantKey
                if let certificate {
                    key = try MerchantKey(
                        certificate: MerchantKey.certificate(file: certificate),
                        privateKey: privateKey
                    )
                } else if let merchantIdentifier {
                    key = MerchantKey(merchantIdentifier: merchantIdentifier, privateKey: privateKey)
                } else {
                    throw PaymentTokenError(.invalidKey, "give --certificate (or --merchant-id) to name the merchant")
                }
                let trust = try root.map { try TrustAnchors.file($0) } ?? .apple
                let text: String
                do { text = try readInput(token) } catch {
                    throw PaymentTokenError(.malformed, "cannot read the token: \(error)")
                }
                let decryptor = PaymentTokenDecryptor(
                    keys: MerchantKeyring([key]),
                    verifier: PaymentTokenVerifier(trust: trust, signingTimeTolerance: tolerance),
                    replayGuard: nil
                )
                let result = try await decryptor.decrypt(json: Array(text.utf8), at: time)
                print(result.paymentData.json.prettyText)
            } catch let error as PaymentTokenError {
                if json {
                    let body: JSONValue = [
                        "error": ["code": .string(error.code.rawValue), "message": .string(error.message)]
                    ]
                    print(body.compactText)
                } else {
                    writeErr("error (\(error.code.rawValue)): \(error.message)")
                }
                throw error.code == .invalidKey ? ExitCodes.usage : ExitCodes.failed
            }
        }
    }

    struct Issue: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Issue a real encrypted sandbox token to a merchant certificate (EC_v1 for P-256 keys, RSA_v1 for RSA keys) and print its paymentData JSON."
        )

        @Option(help: "The merchant's payment processing certificate (PEM), e.g. from 'paysheet keys create'.")
        var certificate: String

        @Option(help: "Amount as a decimal, in the currency's units.")
        var amount: String = "10.00"

        @Option(help: "ISO 4217 currency code.")
        var currency: String = "USD"

        @Option(help: "Card network: visa, masterCard, amex, discover, jcb, chinaUnionPay.")
        var network: String = "visa"

        @Option(
            name: .customLong("application-data"),
            help: "The request's applicationData as the page passed it (Base64); the token carries its SHA-256."
        )
        var applicationData: String?

        @Option(name: .customLong("cardholder-name"), help: "Cardholder name to include.")
        var cardholderName: String?

        @Flag(
            name: .customLong("merchant-token"),
            help:
                "Carry a merchant token (MPAN) with merchantTokenIdentifier and merchantTokenMetadata, as recurring, automatic-reload and deferred payments do; stable per --card and merchant."
        )
        var merchantToken = false

        @Option(
            help: "The card's identity, for a merchant token that is the same each time this card pays this merchant."
        )
        var card: String = "sandbox-card-1"

        @Option(help: "Signing time, ISO 8601 (default: now).")
        var at: String?

        @Option(help: "Write the token to this file instead of standard output.")
        var out: String?

        @OptionGroup var data: DataFolderOption

        func run() throws {
            let time = try at.map { try parseISODate($0, option: "--at") } ?? Date()
            do {
                var appData: [UInt8]?
                if let applicationData {
                    guard let bytes = Base64.decode(applicationData) else {
                        throw PaymentTokenError(
                            .malformed,
                            "--application-data must be Base64, as ApplePayPaymentRequest.applicationData is"
                        )
                    }
                    appData = bytes
                }
                let recipient = try TokenRecipient(certificate: MerchantKey.certificate(file: certificate))
                var payment = try SandboxPayment.sample(
                    network: network,
                    amount: amount,
                    currency: currency,
                    cardholderName: cardholderName,
                    now: time
                )
                if merchantToken {
                    payment = SandboxMerchantToken.apply(
                        to: payment,
                        cardIdentity: card,
                        merchantIdentifierHash: recipient.merchantIdentifierHash,
                        fpanSuffix: nil,
                        network: network
                    )
                }
                let token = try SandboxTokenIssuer(pki: data.pki()).issue(
                    payment,
                    to: recipient,
                    applicationData: appData,
                    signingTime: time
                )
                let text = token.jsonValue.prettyText + "\n"
                if let out {
                    try KeyFile.write(text, to: out, mode: 0o600)
                } else {
                    print(text, terminator: "")
                }
            } catch let error as PaymentTokenError {
                writeErr("error (\(error.code.rawValue)): \(error.message)")
                throw ExitCodes.usage
            }
        }
    }
}
