import PaysheetModel
import Foundation
import PaysheetToken
import Testing
@testable import UnionPay
@testable import UnionPaySandbox

@Suite struct ACPMessageTests {
    @Test func signingStringSortsKeysDropsSignatureAndEmptyValues() {
        var m = ACPMessage(["txnType": "01", "merId": "777290058110048", "empty": "", "accessType": "0"])
        m["signature"] = "xyz"
        #expect(m.signingString == "accessType=0&merId=777290058110048&txnType=01")
        m["accessType"] = nil
        #expect(m["accessType"] == nil)
    }

    @Test func formEncodingRoundTripsReservedCharactersAndUTF8() throws {
        let m = ACPMessage([
            "orderDesc": "茶具 & cups = 2+1", "backUrl": "http://127.0.0.1:8080/v1/notifications/unionpay?a=b",
            "signature": "ab+/==",
        ])
        let parsed = try ACPMessage(formEncoded: m.formEncoded)
        #expect(parsed == m)
        #expect(!m.formEncoded.contains("茶"))
        // '+' in a form body means a space.
        #expect(try ACPMessage(formEncoded: "a=1+2").fields["a"] == "1 2")
    }

    @Test func answersAreRawAsUnionPayWritesThem() throws {
        // A value with '+', '/', '=' and a newline (a PEM), and a composite value with its own '&'.
        let pem = "-----BEGIN CERTIFICATE-----\nMIIB+/x=\n-----END CERTIFICATE-----"
        let m = ACPMessage([
            "respCode": "00", "respMsg": "成功[0000000]", "signPubKeyCert": pem, "reserved": "{a=1&b=2}",
            "signature": "ab+/==",
        ])
        #expect(
            m.rawEncoded == "reserved={a=1&b=2}&respCode=00&respMsg=成功[0000000]&signPubKeyCert=\(pem)&signature=ab+/=="
        )
        let parsed = try ACPMessage(raw: m.rawEncoded)
        #expect(parsed == m)
        #expect(parsed["signature"] == "ab+/==")  // '+' stays a plus: raw answers are not form-decoded
        #expect(try ACPMessage(raw: "a=1+2&b=%41")["a"] == "1+2")
        #expect(try ACPMessage(raw: "a=1+2&b=%41")["b"] == "%41")
        #expect(throws: ACPError.self) { try ACPMessage(raw: "") }
        #expect(throws: ACPError.self) { try ACPMessage(raw: "novalue") }
    }

    @Test func emptyFieldsReceivedAreSignedAsTheyCameButReadAsAbsent() throws {
        // UnionPay's PHP SDK sends (and signs) riskRateInfo= ; the Java SDK drops empty fields.
        let received = try ACPMessage(formEncoded: "txnType=01&riskRateInfo=&merId=777290058110048")
        #expect(received.signingString == "merId=777290058110048&riskRateInfo=&txnType=01")
        #expect(received["riskRateInfo"] == nil)
        #expect(throws: ACPError.self) { try received.required("riskRateInfo") }
    }

    @Test func descriptionsNeverShowCardData() {
        let m = ACPMessage([
            "cardTransData": "e2FjY05vPTYyMTIzNDU2Nzg5MDEyMzQ1Njd9", "accNo": "6212345678901234567", "orderId": "O1",
            "signature": "s",
        ])
        #expect(m.description == "accNo=***&cardTransData=***&orderId=O1")
    }

    @Test func malformedBodiesNameThePair() {
        #expect(throws: ACPError(.malformed, "pair 2 has no '=' (form-encoded key=value pairs expected)")) {
            try ACPMessage(formEncoded: "a=1&b")
        }
        #expect(throws: ACPError(.malformed, "pair 1 has a broken percent escape or is not UTF-8")) {
            try ACPMessage(formEncoded: "a=%zz")
        }
        #expect(throws: ACPError(.malformed, "field a appears twice")) { try ACPMessage(formEncoded: "a=1&a=2") }
        #expect(throws: ACPError.self) { try ACPMessage(formEncoded: "") }
    }

    @Test func responseCodesClassifyAsResearchSection19() {
        #expect(ResponseCode("00").kind == .success)
        #expect(ResponseCode("A6").kind == .success)
        for c in ["03", "04", "05", "06"] { #expect(ResponseCode(c).kind == .unknown) }
        #expect(ResponseCode("12").kind == .duplicate)
        #expect(ResponseCode("34").kind == .notFound)
        #expect(ResponseCode("37").kind == .throttled)
        for c in ["42", "74", "75"] { #expect(ResponseCode(c).kind == .moneyTaken) }
        for c in ["01", "11", "63", "64", "65", "67", "73", "78"] { #expect(ResponseCode(c).kind == .failure) }
    }

    @Test func transactionTimeIsBeijingTime() {
        let t = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14 22:13:20 UTC
        #expect(TransactionTime.format(t) == "20231115061320")
        #expect(TransactionTime.parse("20231115061320") == t)
        #expect(TransactionTime.parse("2023111506132") == nil)
        #expect(TransactionTime.parse("20231315061320") == nil)
        #expect(TransactionTime.clearingDay(t) == "1115")
        // Same Beijing date, not merely the same month and day; midnight is Beijing's, not UTC's.
        #expect(TransactionTime.sameClearingDay(t, t.addingTimeInterval(17 * 3600)))  // 23:13 Beijing
        #expect(!TransactionTime.sameClearingDay(t, t.addingTimeInterval(18 * 3600)))  // 00:13 the next day
        #expect(!TransactionTime.sameClearingDay(t, t.addingTimeInterval(365 * 86_400)))
    }

    @Test func paymentDataFieldRoundTripsAndMasks() throws {
        let f = PaymentDataField(["accNo": "6212345678901234567", "cryptogram": "AbC+/=", "eci": "", "expired": "2911"])
        let back = try PaymentDataField(encoded: f.encoded)
        #expect(back == f)
        #expect(back.values["eci"] == nil)
        #expect(back.maskedAccount == "621234*********4567")
        #expect(throws: ACPError.self) { try PaymentDataField(encoded: "not base64 {") }
    }

    @Test func declineRulesByCardSuffixAmountExpiryAndLuhn() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func acc(_ suffix: String) -> String {
            // A Luhn-valid 16-digit number ending in `suffix`.
            var digits = Array("489500000000" + suffix).map { Int(String($0))! }
            for d in 0...9 {
                digits[4] = d
                if Luhn.isValid(digits.map(String.init).joined()) { break }
            }
            return digits.map(String.init).joined()
        }
        #expect(
            SandboxDeclineRules.decide(accountNumber: acc("1234"), expiry: "2912", amount: 100, now: now)
                == .init(synchronous: "00", final: "00")
        )
        #expect(
            SandboxDeclineRules.decide(accountNumber: acc("0063"), expiry: "2912", amount: 100, now: now)
                == .init(synchronous: "63", final: "63")
        )
        #expect(
            SandboxDeclineRules.decide(accountNumber: acc("0064"), expiry: "2912", amount: 100, now: now)
                == .init(synchronous: "00", final: "64")
        )
        #expect(
            SandboxDeclineRules.decide(accountNumber: acc("1234"), expiry: "2912", amount: 6665, now: now)
                == .init(synchronous: "65", final: "65")
        )
        #expect(
            SandboxDeclineRules.decide(accountNumber: acc("1234"), expiry: "2912", amount: 6605, now: now)
                == .init(synchronous: "05", final: "00")
        )
        #expect(
            SandboxDeclineRules.decide(accountNumber: acc("1234"), expiry: "2310", amount: 100, now: now)
                == .init(synchronous: "73", final: "73")
        )
        #expect(
            SandboxDeclineRules.decide(accountNumber: "4895000000000001", expiry: "2912", amount: 100, now: now)
                .synchronous == "61"
        )
    }
}
