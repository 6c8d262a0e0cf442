import Foundation
import Testing
@testable import UnionPay

/// One type for UnionPay's response codes: each named code's class, English meaning and the
/// `respMsg` UnionPay's gateway writes, and what an unnamed code means.
@Suite struct ResponseCodeTests {
    /// Every class, with the codes in it (the named ones and the unnamed money-taken ones).
    static let classes: [ResponseClass: [ResponseCode]] = [
        .success: [.success, .defectiveSuccess],
        .unknown: [.timeout, .stateUnknown, .processing, .systemBusy],
        .duplicate: [.duplicate],
        .notFound: [.noSuchTransaction],
        .throttled: [.tooManyQueries],
        .moneyTaken: [.paidTooLate, "74", "75"],
        .failure: [
            .transactionFailed, .systemClosed, .formatError, .signatureFailure, .missingElement, .notApproved,
            .amountOverLimit, .originalNotFound, .originalMismatch, .alreadyReversed, .issuerDeclined,
            .invalidCardNumber, .cardStatusIncorrect, .insufficientFunds, .wrongCardDetails, .pinTriesExceeded,
            .cardExpired, .issuerRestricted, .fileNotFound, "ZZ", "",
        ],
    ]

    @Test(arguments: ResponseClass.allCases) func everyClassHasItsCodes(kind: ResponseClass) throws {
        let codes = try #require(Self.classes[kind])
        #expect(!codes.isEmpty)
        for code in codes { #expect(code.kind == kind, "\(code)") }
    }

    @Test func theNamedCodesAreUnionPays() {
        #expect(ResponseCode.success.rawValue == "00" && ResponseCode.defectiveSuccess.rawValue == "A6")
        #expect(ResponseCode.timeout == "03" && ResponseCode.processing == "05")
        #expect(ResponseCode.noSuchTransaction == "34" && ResponseCode.tooManyQueries == "37")
        #expect(ResponseCode.duplicate == "12" && ResponseCode.insufficientFunds == "64")
        #expect(ResponseCode.success.unionPayMessage == "成功[0000000]")
        #expect(ResponseCode.timeout.unionPayMessage == "交易通讯超时,请发起查询交易")
        #expect(ResponseCode.insufficientFunds.meaning == "Insufficient funds")
        #expect(ResponseCode.fileNotFound.unionPayMessage == "文件不存在")
        // Every named code has both texts.
        for code in ResponseCode.table.keys {
            #expect(!code.meaning.hasPrefix("Transaction failed (") && code.unionPayMessage != "交易失败", "\(code)")
        }
        #expect(ResponseCode.table.count == 29)
    }

    @Test func anUnnamedCodeIsAFailureSaidAsSuch() {
        let code: ResponseCode = "ZZ"
        #expect(code.kind == .failure)
        #expect(code.meaning == "Transaction failed (ZZ)")
        #expect(code.unionPayMessage == "交易失败")
        #expect("\(code)" == "ZZ")
    }

    @Test func theSandboxsDeclinesAreCardDeclines() {
        #expect(ResponseCode.cardDeclines.map(\.rawValue).sorted() == ["60", "61", "63", "64", "65", "67", "73", "78"])
        for code in ResponseCode.cardDeclines { #expect(code.kind == .failure && code.isCardDecline) }
        #expect(!ResponseCode.success.isCardDecline && !ResponseCode.timeout.isCardDecline)
    }

    @Test func messagesAndJSONKeepTheString() throws {
        let message = ACPMessage(["respCode": "37", "origRespCode": "A6"])
        #expect(message.responseCode == .tooManyQueries)
        #expect(message.originalResponseCode == .defectiveSuccess)
        #expect(ACPMessage().responseCode == nil)
        let json = try JSONEncoder().encode(["code": ResponseCode.cardExpired])
        #expect(String(decoding: json, as: UTF8.self) == #"{"code":"73"}"#)
        #expect(try JSONDecoder().decode([String: ResponseCode].self, from: json)["code"] == .cardExpired)
        #expect(ResponseCode(rawValue: "64") == .insufficientFunds)
    }
}
