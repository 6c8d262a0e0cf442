import Foundation
import Testing
@testable import PaysheetModel

@Suite struct ValidationTests {
    let valid: JSONValue = [
        "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa", "masterCard"],
        "merchantCapabilities": ["supports3DS"], "total": ["label": "Your Label", "amount": "10.00"],
    ]

    func with(_ key: String, _ value: JSONValue?) -> JSONValue {
        var o = valid.objectValue!
        o[key] = value
        return .object(o)
    }

    @Test(arguments: [
        ("10", true), ("-10.00", true), ("0.5", true), ("1.234", true), ("10.", false), (".5", false),
        ("+1", false), ("1,00", false), (" 1", false), ("", false), ("-", false), ("1e3", false),
    ])
    func amountGrammar(text: String, ok: Bool) {
        #expect(AmountGrammar.isValid(text) == ok)
    }

    @Test func legacyGrammarAllowsTwoDigits() {
        #expect(AmountGrammar.isValid("1.23", maxFractionDigits: 2))
        #expect(!AmountGrammar.isValid("1.234", maxFractionDigits: 2))
    }

    @Test func validRequestRoundTripsWithCanonicalNetworks() throws {
        let r = try RequestValidator().validate(with("supportedNetworks", ["vIsa", "MASTERCARD"]), version: 3)
        #expect(r.supportedNetworks == ["visa", "masterCard"])
        #expect(r.total.amount == "10.00")
        // Encoding gives back the page's field names.
        let back = r.jsonValue
        #expect(back["countryCode"] == "US")
        #expect(back["total"]?["label"] == "Your Label")
        #expect(back["lineItems"] == nil)
    }

    @Test func conversionOrderReportsCountryCodeFirst() {
        #expect(
            throws: ScriptError.typeError(
                "Member ApplePayPaymentRequest.countryCode is required and must be an instance of DOMString"
            )
        ) {
            try RequestValidator().validate(JSONValue.object(JSONObject()), version: 2)
        }
    }

    @Test func semanticOrderChecksTotalBeforeCountry() {
        var o = valid.objectValue!
        o["countryCode"] = "XX"
        o["total"] = ["label": "l", "amount": "-1"]
        #expect(throws: ScriptError.typeError("Total amount must not be negative.")) {
            try RequestValidator().validate(.object(o), version: 3)
        }
    }

    @Test func versionIsAnInvalidAccessError() {
        #expect(throws: ScriptError.invalidAccess("\"16\" is not a supported version.")) {
            try RequestValidator().validate(valid, version: 16)
        }
        #expect(throws: ScriptError.invalidAccess("\"4\" is not a supported version.")) {
            try RequestValidator(profile: .safari12).validate(valid, version: 4)
        }
    }

    @Test func phoneticNamesDroppedBelowVersion3() throws {
        let req = with("shippingContact", ["givenName": "A", "phoneticGivenName": "エー"])
        #expect(try RequestValidator().validate(req, version: 2).shippingContact?.phoneticGivenName == nil)
        #expect(try RequestValidator().validate(req, version: 3).shippingContact?.phoneticGivenName == "エー")
    }

    @Test func shippingMethodNegativityTruncatesLikeIntegerValue() throws {
        let m: JSONValue = [["label": "", "detail": "", "identifier": "", "amount": "-0.50"]]
        #expect(try RequestValidator().validate(with("shippingMethods", m), version: 3).shippingMethods?.count == 1)
    }

    @Test func updateNeedsNewTotalAndDropsPendingAmounts() throws {
        let v = UpdateValidator()
        #expect(
            throws: ScriptError.typeError(
                "Member ApplePayCouponCodeUpdate.newTotal is required and must be an instance of ApplePayLineItem"
            )
        ) {
            try v.bindUpdate(JSONValue.object(JSONObject()), kind: .couponCode)
        }
        let u = try v.checkUpdate(
            try v.bindUpdate(
                [
                    "newTotal": ["label": "T", "amount": "1.00"],
                    "newLineItems": [["label": "Tip", "type": "pending", "amount": "x"]],
                ],
                kind: .shippingContact
            ),
            kind: .shippingContact
        )
        #expect(u.newLineItems?.first?.amount == nil)
    }

    @Test func resultStatusesAndPrependedErrors() throws {
        let v = UpdateValidator()
        let r3 = try v.checkResult(try v.bindResult(["status": 3]))
        #expect(r3.errors == [ApplePayError(.shippingContactInvalid, contactField: .postalAddress)])
        #expect(!r3.isFinal)
        #expect(throws: ScriptError.invalidAccess()) { try v.checkResult(try v.bindResult(["status": 8])) }
        #expect(try v.checkResult(try v.bindResult(["status": 1])).isFinal)
        #expect(!(try v.checkResult(try v.bindResult(["status": 1, "errors": [["code": "unknown"]]])).isFinal))
    }

    @Test func errorsUseTheConstructorsMessages() {
        let b = WebIDLBinding(profile: .safari14)
        #expect(
            throws: ScriptError.typeError(
                "Argument 1 ('errorCode') to the ApplePayError constructor must be one of: \"unknown\", \"shippingContactInvalid\", \"billingContactInvalid\", \"addressUnserviceable\""
            )
        ) {
            try b.applePayError(["code": "couponCodeInvalid"])
        }
    }

    @Test func wireTypesDecodeWithFoundation() throws {
        let text =
            #"{"token":{"paymentMethod":{"displayName":"Visa 1234","network":"Visa","type":"credit"},"transactionIdentifier":"AB","paymentData":{"version":"EC_v1"}},"shippingContact":{"postalCode":"95014","addressLines":["1 Infinite Loop"]}}"#
        let p = try JSONDecoder().decode(ApplePayPayment.self, from: Data(text.utf8))
        #expect(p.token.paymentMethod.type == .credit)
        #expect(p.shippingContact?.addressLines == ["1 Infinite Loop"])
        #expect(p.jsonValue["token"]?["paymentData"]?["version"] == "EC_v1")
    }
}

@Suite struct ContactFieldNameTests {
    @Test func aFieldIsNamedAsTheRequestOrAsAnErrorNamesIt() {
        #expect(ApplePayContactField(requestOrErrorName: "email") == .email)
        #expect(ApplePayContactField(requestOrErrorName: "emailAddress") == .email)
        #expect(ApplePayContactField(requestOrErrorName: "phoneNumber") == .phone)
        #expect(ApplePayContactField(requestOrErrorName: "postalCode") == .postalAddress)
        #expect(ApplePayContactField(requestOrErrorName: "phoneticName") == .phoneticName)
        #expect(ApplePayContactField(requestOrErrorName: "telephone") == nil)
    }
}
