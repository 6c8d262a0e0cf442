import Foundation
import PaysheetModel
import PaysheetToken
import PaysheetTokenFormat
import Testing

/// Real public tokens with their keys and the values computed from them. They are not part of
/// the repository: they are read from `PAYSHEET_TEST_VECTORS`, or from `../shared/vectors` beside
/// the clone when it exists; without them the suites that need them are skipped with one line.
struct Vector: Sendable, CustomStringConvertible {
    let name: String
    let token: String
    let certificate: String?
    let privateKey: String?
    let merchantIdentifier: String?

    var description: String { name }

    /// The vectors' folder, or `nil` when there is none.
    static let folder: String? = {
        if let given = ProcessInfo.processInfo.environment["PAYSHEET_TEST_VECTORS"], !given.isEmpty { return given }
        let here = URL(fileURLWithPath: #filePath)
        let beside = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/vectors").path
        return FileManager.default.fileExists(atPath: beside + "/README.md") ? beside : nil
    }()

    /// Whether the vectors are here.
    static var available: Bool { folder != nil }

    /// Why the suites that need the vectors were skipped (`.ci/run` looks for this text).
    static let skipReason: Comment =
        "real token vectors not found: set PAYSHEET_TEST_VECTORS to a copy of the vectors folder to run these"

    static func path(_ relative: String) -> String { (folder ?? "/nonexistent") + "/" + relative }

    static let decryptable: [Vector] = [
        Vector(
            name: "gala/2015-seatgeek",
            token: "gala/2015-seatgeek/token.json",
            certificate: "gala/2015-seatgeek/certificate.pem",
            privateKey: "gala/2015-seatgeek/private_key.pem",
            merchantIdentifier: nil
        ),
        Vector(
            name: "gala/2021-spreedly",
            token: "gala/2021-spreedly/token.json",
            certificate: "gala/2021-spreedly/certificate.pem",
            privateKey: "gala/2021-spreedly/private_key.pem",
            merchantIdentifier: nil
        ),
        Vector(
            name: "gala/2023-spreedly",
            token: "gala/2023-spreedly/token.json",
            certificate: "gala/2021-spreedly/certificate.pem",
            privateKey: "gala/2021-spreedly/private_key.pem",
            merchantIdentifier: nil
        ),
        Vector(
            name: "apple-pay-js/ec-old",
            token: "apple-pay-js/ec-old/token.old.json",
            certificate: "apple-pay-js/ec-old/apple_pay.old.pem",
            privateKey: "apple-pay-js/ec-old/private.old.key",
            merchantIdentifier: nil
        ),
        Vector(
            name: "apple-pay-js/ec-new",
            token: "apple-pay-js/ec-new/token.new.json",
            certificate: "apple-pay-js/ec-new/apple_pay.new.pem",
            privateKey: "apple-pay-js/ec-new/private.new.key",
            merchantIdentifier: nil
        ),
        Vector(
            name: "apple-pay-js/rsa",
            token: "apple-pay-js/rsa/token.json",
            certificate: "apple-pay-js/rsa/apple_pay.pem",
            privateKey: "apple-pay-js/rsa/private.key",
            merchantIdentifier: nil
        ),
        Vector(
            name: "payu-apple-pay/sandbox-2018",
            token: "payu-apple-pay/sandbox-2018/token.json",
            certificate: nil,
            privateKey: "payu-apple-pay/sandbox-2018/private_key.pem",
            merchantIdentifier: "payu-apple-pay/sandbox-2018/merchant_id.txt"
        ),
    ]

    static let signatureOnly: [Vector] = [
        Vector(
            name: "processout/token-ec-2017",
            token: "processout-applepay/token-ec-2017.json",
            certificate: nil,
            privateKey: nil,
            merchantIdentifier: nil
        ),
        Vector(
            name: "processout/token-rsa-2017",
            token: "processout-applepay/token-rsa-2017.json",
            certificate: nil,
            privateKey: nil,
            merchantIdentifier: nil
        ),
    ]

    static var all: [Vector] { decryptable + signatureOnly }

    var expectedPath: String {
        if name.hasPrefix("processout") {
            return Vector.path(token.replacingOccurrences(of: ".json", with: ".expected.json"))
        }
        return Vector.path((token as NSString).deletingLastPathComponent + "/expected.json")
    }

    func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: Vector.path(relative))))
    }

    func tokenData() throws -> PaymentTokenData { try PaymentTokenData(json: bytes(token)) }

    func expected() throws -> JSONValue {
        try JSONParser.parse([UInt8](Data(contentsOf: URL(fileURLWithPath: expectedPath))))
    }

    func signingTime() throws -> Date {
        let text = try expected()["signingTime"]!.stringValue!
        return try Date(text, strategy: .iso8601)
    }

    func key() throws -> MerchantKey {
        let privateKey = try MerchantPrivateKey(contentsOf: Vector.path(self.privateKey!), permissions: .allow)
        if let certificate {
            return try MerchantKey(
                certificate: MerchantKey.certificate(pem: String(decoding: bytes(certificate), as: UTF8.self)),
                privateKey: privateKey
            )
        }
        let id = String(decoding: try bytes(merchantIdentifier!), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines
        )
        return MerchantKey(merchantIdentifier: id, privateKey: privateKey)
    }

    func expectedPlaintext() throws -> JSONValue {
        let folder = (token as NSString).deletingLastPathComponent
        return try JSONParser.parse(bytes(folder + "/expected_plaintext.json"))
    }
}
