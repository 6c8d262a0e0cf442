import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import PaysheetModel
import Synchronization
import Testing
@testable import UnionPay
@testable import UnionPaySandbox

/// A consume posts the card's data encrypted whenever the client has UnionPay's encryption
/// certificate, or posts nothing at all: the body is read as it leaves the client, on a loopback
/// gateway (the sandbox's, behind a recorder).
@Suite struct PaymentInstrumentTests {
    static let pki = try! UnionPaySandboxPKI.generate()
    static let merchant = try! pki.issueMerchant(merchantId: "777290058110048")
    static let encryption = try! pki.issueUnderGatewayCA(commonName: "041@Z12@00040000:SIGN@00000063")

    static let dpan = "6226388000000095"
    static let cryptogram = "AgAAAAAAAIaqGQuS8xjzvM0AAAAAAAA="

    static func card(_ authentication: CardData.Authentication, number: String = dpan) -> PaymentInstrument {
        .card(CardData(accountNumber: number, expiration: "301231", authentication: authentication))
    }

    /// The sandbox gateway on a loopback port, recording every body posted to it.
    final class RecordingGateway: Sendable {
        let gateway: SandboxGateway
        let bodies = Mutex<[String]>([])
        let port = Mutex<Int?>(nil)
        let task = Mutex<Task<Void, any Error>?>(nil)
        /// Why the gateway's service ended, if it did before listening.
        let failure = Mutex<String?>(nil)

        init(encrypting: Bool) throws {
            var faults = SandboxFaults()
            faults.dropNotification = 1  // nothing is posted anywhere
            gateway = try SandboxGateway(
                pki: PaymentInstrumentTests.pki,
                merchants: [PaymentInstrumentTests.merchant],
                faults: faults,
                encryption: encrypting ? PaymentInstrumentTests.encryption : nil
            )
        }

        func start() async throws -> String {
            let router = Router(context: BasicRequestContext.self)
            router.post(RouterPath(ACPPath.backTransaction)) { [self] request, _ -> Response in
                let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
                bodies.withLock { $0.append(body) }
                return try await SandboxGateway.send(await gateway.backTransaction(body))
            }
            let app = Application(
                router: router,
                configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { [self] channel in port.withLock { $0 = channel.localAddress?.port } }
            )
            task.withLock {
                $0 = Task {
                    do { try await app.runService() } catch {
                        self.failure.withLock { $0 = "\(error)" }
                        throw error
                    }
                }
            }
            // Until it listens, or its service ends with the reason: how long a loaded machine takes
            // to start it is no failure (the 10-minute bound only keeps a broken run from hanging).
            let bound = ContinuousClock.now + .seconds(600)
            while ContinuousClock.now < bound {
                if let port = port.withLock({ $0 }) { return "http://127.0.0.1:\(port)" }
                if let reason = failure.withLock({ $0 }) {
                    throw ACPError(.transport, "the recording gateway did not start: \(reason)")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw ACPError(.transport, "the recording gateway did not start in 10 minutes")
        }

        func stop() { task.withLock { $0?.cancel() } }

        /// The posted bodies, each read as the form it is and as the text it is.
        var posted: [(text: String, form: ACPMessage)] {
            bodies.withLock { $0 }.map { ($0, (try? ACPMessage(formEncoded: $0)) ?? ACPMessage()) }
        }
    }

    static func client(_ url: String, encrypting: Bool) throws -> UnionPayClient {
        UnionPayClient(
            configuration: UnionPayConfiguration(gatewayURL: url, notificationURL: "http://127.0.0.1:9/notify"),
            http: .shared,
            signer: try merchant.signer(),
            verifier: ACPVerifier(roots: [pki.root], intermediates: [pki.gatewayCA], owners: ["00040000:SIGN"]),
            encryptor: encrypting ? try SensitiveDataEncryptor(certificate: encryption.certificate) : nil
        )
    }

    static func consume(
        _ client: UnionPayClient,
        _ instrument: PaymentInstrument,
        order: String
    ) async
        -> UnionPayClient.Answer
    {
        await client.consume(
            orderId: order,
            txnTime: TransactionTime.format(Date()),
            amount: 100,
            currencyCode: "156",
            instrument: instrument
        )
    }

    /// 16 random hexadecimal digits, for an `orderId`.
    static func orderSuffix() -> String {
        String(UInt64.random(in: 1 << 60...UInt64.max), radix: 16).uppercased()
    }

    /// Whether `text` holds `secret` as it is, percent-encoded, or in the Base64 of a field.
    static func carries(_ text: String, _ secret: String) -> Bool {
        let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret
        if text.contains(secret) || text.contains(encoded) { return true }
        // The Base64 the client writes its field in: the secret in it, decoded.
        let form = (try? ACPMessage(formEncoded: text)) ?? ACPMessage()
        return form.fields.values.contains { value in
            guard let data = Data(base64Encoded: value), let decoded = String(data: data, encoding: .utf8) else {
                return false
            }
            return decoded.contains(secret)
        }
    }

    @Test(arguments: [
        card(.threeDSecure(cryptogram: cryptogram, eci: "07")),
        card(.threeDSecure(cryptogram: cryptogram, eci: nil)),
        card(.emv(data: "9F2608A1B2C3D4E5F6A7B89F2701809F10", pinBlock: "0A1B2C3D4E5F6071")),
    ])
    func withAnEncryptionCertificateTheCardIsPostedEncrypted(instrument: PaymentInstrument) async throws {
        let recorder = try RecordingGateway(encrypting: true)
        defer { recorder.stop() }
        let client = try Self.client(try await recorder.start(), encrypting: true)
        let answer = await Self.consume(client, instrument, order: "ENC" + Self.orderSuffix())
        guard case .message(let message) = answer else {
            Issue.record("no answer: \(answer)")
            return
        }
        #expect(message.responseCode == .success, "\(message["respMsg"] ?? "")")
        let posted = recorder.posted
        try #require(posted.count == 1)
        guard case .card(let card) = instrument else { return }
        var secrets = [card.accountNumber]
        switch card.authentication {
        case .threeDSecure(let cryptogram, _): secrets.append(cryptogram)
        case .emv(let data, let pin): secrets += [data, pin ?? ""]
        }
        for secret in secrets where !secret.isEmpty {
            #expect(!Self.carries(posted[0].text, secret), "the posted body carries card data in clear")
        }
        #expect(posted[0].form["encryptCertId"] == ACPSigner.decimal(Self.encryption.certificate.serialNumber.bytes))
        // Only the ECI is left in clear; what the gateway opens is the card as it was given.
        let field = try PaymentDataField(encoded: try #require(posted[0].form["cardTransData"]))
        #expect(Set(field.values.keys).subtracting(["eci"]) == ["accNo", "encryptedInfo"])
        let opened = try field.decrypted(with: SensitiveDataDecryptor(credentials: Self.encryption))
        #expect(opened == (try card.field()))
        #expect(await recorder.gateway.entries().map(\.maskedAccount) == ["622638******0095"])
    }

    /// The case that was posted in clear: a value with `&` followed by text without `=` made
    /// `try? PaymentDataField(encoded:)` fail (the pair has no `=`), and the client then posted the
    /// field as it was given, Base64 of the clear card data, though it had an encryption certificate.
    @Test(arguments: [
        card(.threeDSecure(cryptogram: "AgAAAAAA&AIaqGQuS8xjz", eci: "07")),
        card(.threeDSecure(cryptogram: cryptogram, eci: "07&x")),
        card(.emv(data: "9F2608A1B2&C3D4E5F6", pinBlock: nil)),
        card(.threeDSecure(cryptogram: "{" + cryptogram + "}", eci: "07")),
        card(.threeDSecure(cryptogram: cryptogram, eci: "07"), number: "6226388000&000095"),
    ])
    func cardDataTheFieldCannotCarryIsNotPosted(instrument: PaymentInstrument) async throws {
        guard case .card(let card) = instrument else { return }
        for encrypting in [true, false] {
            let recorder = try RecordingGateway(encrypting: encrypting)
            defer { recorder.stop() }
            let client = try Self.client(try await recorder.start(), encrypting: encrypting)
            let answer = await Self.consume(client, instrument, order: "BAD" + Self.orderSuffix())
            if encrypting {
                for body in recorder.posted.map(\.text) {
                    #expect(!Self.carries(body, card.accountNumber), "the account number was posted in clear")
                    if case .threeDSecure(let cryptogram, _) = card.authentication {
                        #expect(!Self.carries(body, cryptogram), "the cryptogram was posted in clear")
                    }
                }
            }
            guard case .notSent(let why) = answer else {
                Issue.record("a consume whose card data cannot be carried was answered \(answer)")
                continue
            }
            #expect(why.contains("cannot carry"), "\(why)")
            #expect(!why.contains(card.accountNumber) && !why.contains("AIaqGQuS8xjz"), "the reason repeats card data")
            #expect(recorder.posted.isEmpty, "something was posted")
        }
    }

    /// Without an encryption certificate (UnionPay's old specification) the field is posted as
    /// before: the Base64 of `{accNo=…&cryptogram=…&eci=…&expired=YYMM}`, no `encryptCertId`.
    @Test func withoutACertificateTheFieldIsPostedAsBefore() async throws {
        let recorder = try RecordingGateway(encrypting: false)
        defer { recorder.stop() }
        let client = try Self.client(try await recorder.start(), encrypting: false)
        let instrument = Self.card(.threeDSecure(cryptogram: Self.cryptogram, eci: "07"))
        let answer = await Self.consume(client, instrument, order: "CLR" + Self.orderSuffix())
        guard case .message(let message) = answer else {
            Issue.record("no answer: \(answer)")
            return
        }
        #expect(message.responseCode == .success, "\(message["respMsg"] ?? "")")
        let form = try #require(recorder.posted.first?.form)
        #expect(form["encryptCertId"] == nil)
        #expect(
            form["cardTransData"]
                == PaymentDataField([
                    "accNo": Self.dpan, "cryptogram": Self.cryptogram, "eci": "07", "expired": "3012",
                ]).encoded
        )
    }

    /// Why the client used to post such card data in clear: its flattened field did not read back
    /// (a pair without `=`), so `try? PaymentDataField(encoded:)` was `nil` and the field went as given.
    @Test func theOldFlattenedFieldDidNotReadBack() throws {
        for values in [
            ["accNo": Self.dpan, "cryptogram": "AgAAAAAA&AIaqGQuS8xjz", "eci": "07", "expired": "3012"],
            ["accNo": "6226388000&000095", "cryptogram": Self.cryptogram, "eci": "07", "expired": "3012"],
            ["accNo": Self.dpan, "emvData": "9F2608A1B2&C3D4E5F6", "expired": "3012"],
        ] {
            #expect(throws: ACPError.self) { try PaymentDataField(encoded: PaymentDataField(values).encoded) }
            #expect(throws: ACPError.self) { try PaymentDataField(values).checkCarriable() }
        }
        try PaymentDataField(["accNo": Self.dpan, "cryptogram": Self.cryptogram, "expired": "3012"]).checkCarriable()
    }

    /// A merchant token is UnionPay's token payment, as `consumeWithToken` sent it.
    @Test func aMerchantTokenIsATokenPayment() throws {
        let client = try Self.client("http://127.0.0.1:9", encrypting: true)
        let message = try client.consumeMessage(
            orderId: "TOK0000001",
            txnTime: "20261125110000",
            amount: 100,
            currencyCode: "156",
            instrument: .merchantToken(token: "6200000000001234", expiration: "301231"),
            reserved: "o1"
        )
        #expect(message["bizType"] == "000902")
        #expect(
            message["tokenPayData"] == "{token=6200000000001234&trId=62000000001&tokenType=01&tokenEnd=20301231235959}"
        )
        #expect(message["cardTransData"] == nil && message["reqReserved"] == "o1")
        #expect(throws: ACPError.self) {
            try client.consumeMessage(
                orderId: "TOK0000002",
                txnTime: "20261125110000",
                amount: 100,
                currencyCode: "156",
                instrument: .merchantToken(token: "62000000&1234", expiration: "301231"),
                reserved: nil
            )
        }
    }

    /// An instrument's descriptions name its kind and last four digits, never the card data.
    @Test func descriptionsShowNoCardData() {
        let instruments = [
            Self.card(.threeDSecure(cryptogram: Self.cryptogram, eci: "07")),
            Self.card(.emv(data: "9F2608A1B2C3D4E5F6A7B8", pinBlock: "0A1B2C3D4E5F6071")),
            PaymentInstrument.merchantToken(token: "6200000000009876", expiration: "301231"),
        ]
        for instrument in instruments {
            var dumped = ""
            dump(instrument, to: &dumped)
            var dumpedCard = ""
            if case .card(let card) = instrument { dump(card, to: &dumpedCard) }
            for text in [
                "\(instrument)", String(reflecting: instrument), dumped, dumpedCard, "\([instrument])",
                "\(Optional(instrument) as Any)",
            ] {
                for secret in [Self.dpan, "6200000000009876", Self.cryptogram, "9F2608A1B2", "0A1B2C3D", "3012"] {
                    #expect(!text.contains(secret), "\(text)")
                }
            }
        }
        #expect("\(instruments[0])" == "card …0095 (3-D Secure, redacted)")
        #expect("\(instruments[2])" == "merchant token …9876 (redacted)")
    }
}
