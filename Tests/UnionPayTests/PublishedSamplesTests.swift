import Crypto
import _CryptoExtras
import Foundation
import Testing
import X509
@testable import UnionPay

/// Golden messages: UnionPay's own published exchanges with its test gateway — the log shipped in
/// its PHP SDK demo (`upacp_demo_wtz/demo/api_03_wtz/2018-04-04.log`, requests and the gateway's
/// raw answers byte for byte) with its test certificates — read, verified and re-signed here.
/// UnionPay's files are not in this repository: `PAYSHEET_UNIONPAY_SDK` names the demo's folder;
/// `PAYSHEET_UNIONPAY_TEST_KEY` a PEM of its test signing key and certificate (`acp_test_sign.pfx`,
/// password 000000, converted with `openssl pkcs12 -legacy -nodes`).
@Suite struct PublishedSamplesTests {
    struct Entry {
        var marker: String
        var text: String
    }

    static func entries(_ log: String) -> [Entry] {
        var out: [Entry] = []
        for block in log.components(separatedBy: "\n2018-") {
            guard let arrow = block.range(of: "------ ") else { continue }
            let rest = block[arrow.upperBound...]
            guard let gt = rest.firstIndex(of: ">") else { continue }
            var text = String(rest[rest.index(after: gt)...])
            if text.hasSuffix("\n") { text.removeLast() }
            if text.hasSuffix(" ") { text.removeLast() }
            out.append(Entry(marker: String(rest[..<gt]).trimmingCharacters(in: .whitespaces), text: text))
        }
        return out
    }

    static var sdk: String? { ProcessInfo.processInfo.environment["PAYSHEET_UNIONPAY_SDK"] }

    @Test func theTestGatewaysPublishedAnswersParseRawAndVerifyAsTheSDKsVerifyThem() throws {
        guard let sdk = Self.sdk else {
            print("UnionPay's SDK demo not given (PAYSHEET_UNIONPAY_SDK): published samples skipped")
            return
        }
        let log = try String(contentsOfFile: sdk + "/demo/api_03_wtz/2018-04-04.log", encoding: .utf8)
        let root = try Certificate(pemEncoded: String(contentsOfFile: sdk + "/sdk/acp_test_root.cer", encoding: .utf8))
        let middle = try Certificate(
            pemEncoded: String(contentsOfFile: sdk + "/sdk/acp_test_middle.cer", encoding: .utf8)
        )
        let verifier = ACPVerifier(roots: [root], intermediates: [middle], owners: ["00040000:SIGN"])
        let then = try #require(TransactionTime.parse("20180404163000"))
        // UnionPay's gateway ends the lines of signPubKeyCert with CR LF; the log as published has
        // lost the CRs (the same 35 answers fail in Python's cryptography without them, and pass with).
        let answers = Self.entries(log).filter { $0.marker == "后台返回结果为" && $0.text.contains("signature=") }
            .map { Entry(marker: $0.marker, text: $0.text.replacingOccurrences(of: "\n", with: "\r\n")) }
        #expect(answers.count == 35)
        var verified = 0
        var successes = 0
        for answer in answers {
            let message = try ACPMessage(raw: answer.text)
            try verifier.verify(message, now: then)
            verified += 1
            if message["respCode"] == "00" { successes += 1 }
            // A changed byte does not verify.
            var changed = message
            changed["respCode"] = message["respCode"] == "00" ? "01" : "00"
            #expect(throws: ACPError.self) { try verifier.verify(changed, now: then) }
        }
        #expect(verified == answers.count)
        #expect(successes >= 15)
        // Without the CRs, not one verifies: the bytes signed are the bytes received.
        let lf = try ACPMessage(raw: answers[0].text.replacingOccurrences(of: "\r\n", with: "\n"))
        #expect(throws: ACPError.self) { try verifier.verify(lf, now: then) }
        // Raw, not form-decoded: a '+' in the certificate's Base64 survives.
        #expect(answers.contains { $0.text.contains("+") })
    }

    @Test func theSDKsPublishedSigningStringsDigestsAndSignaturesAreReproduced() throws {
        guard let sdk = Self.sdk else { return }
        let log = try String(contentsOfFile: sdk + "/demo/api_03_wtz/2018-04-04.log", encoding: .utf8)
        let entries = Self.entries(log)
        var checked = 0
        var signed = 0
        var signer: ACPSigner?
        if let path = ProcessInfo.processInfo.environment["PAYSHEET_UNIONPAY_TEST_KEY"] {
            let pem = try String(contentsOfFile: path, encoding: .utf8)
            func block(_ kind: String) -> String? {
                guard let start = pem.range(of: "-----BEGIN \(kind)-----"),
                    let end = pem.range(of: "-----END \(kind)-----")
                else { return nil }
                return String(pem[start.lowerBound..<end.upperBound])
            }
            signer = try ACPSigner(
                privateKey: try _RSA.Signing.PrivateKey(pemRepresentation: try #require(block("PRIVATE KEY"))),
                certificate: try Certificate(pemEncoded: try #require(block("CERTIFICATE")))
            )
        }
        for (i, e) in entries.enumerated() where e.marker == "签名key=val&...串" {
            // The SDK's order: signing string, its digest, the signature, then the request as posted.
            guard i + 3 < entries.count, entries[i + 1].marker == "摘要sha256x16", entries[i + 2].marker == "签名串为",
                let posted = entries[(i + 3)...].prefix(3).first(where: { $0.marker == "后台请求报文为" })
            else { continue }
            #expect(ACPSigner.hexDigest(e.text) == entries[i + 1].text)
            let request = try ACPMessage(formEncoded: posted.text)
            #expect(request["signature"] == entries[i + 2].text)
            var unsigned = request
            unsigned["signature"] = nil
            #expect(unsigned.signingString == e.text, "the signing string of the posted request")
            checked += 1
            if let signer, request["certId"] == signer.certId {
                signer.sign(&unsigned)
                #expect(unsigned["signature"] == request["signature"], "re-signed with UnionPay's test key")
                signed += 1
            }
        }
        #expect(checked >= 20)
        if signer != nil { #expect(signed >= 20) }
        print(
            "published samples: \(checked) requests' signing strings and digests reproduced, \(signed) signatures re-made byte for byte"
        )
    }
}
