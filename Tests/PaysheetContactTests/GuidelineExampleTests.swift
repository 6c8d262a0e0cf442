import PaysheetModel
@testable import PaysheetContact
import Testing

let validator = ContactValidator()

func address(
    _ postal: String?,
    _ area: String?,
    _ city: String? = "Cupertino",
    _ country: String = "US",
    lines: [String]? = ["1 Infinite Loop"]
) -> ApplePayPaymentContact {
    ApplePayPaymentContact(
        addressLines: lines,
        locality: city,
        postalCode: postal,
        administrativeArea: area,
        countryCode: country
    )
}

@Suite("The guidelines' own examples")
struct GuidelineExampleTests {
    @Test("ZIP+4 where five digits are needed: the extra digits are ignored, not an error")
    func zipPlusFour() {
        for zip in ["95014-2083", "95014 2083", "950142083", "95014"] {
            let r = validator.validate(address(zip, "CA"), requiredFields: [.postalAddress], phase: .full)
            #expect(r.errors.isEmpty, "\(zip)")
            #expect(r.contact.postalCode == "95014")
        }
        let keep = ContactValidator(policy: ContactValidationPolicy(fiveDigitZIP: false))
        #expect(
            keep.validate(address("950142083", "CA"), requiredFields: [.postalAddress], phase: .full).contact.postalCode
                == "95014-2083"
        )
    }

    @Test(
        "California or CA (or Calif., or california) without an error",
        arguments: ["California", "CA", "ca", "Calif.", "CALIFORNIA", " California "]
    )
    func stateNames(_ state: String) {
        let r = validator.validate(address("95014", state), requiredFields: [.postalAddress], phase: .full)
        #expect(r.errors.isEmpty)
        #expect(r.contact.administrativeArea == "CA")
    }

    @Test(
        "phone numbers with and without dashes and country code",
        arguments: [
            "408-555-0100", "(408) 555-0100", "4085550100", "+1 408 555 0100", "1-408-555-0100", "+1-408-555-0100",
            "011 1 408 555 0100",
        ]
    )
    func phones(_ phone: String) {
        let contact = ApplePayPaymentContact(phoneNumber: phone, countryCode: "US")
        let r = validator.validate(contact, requiredFields: [.phone], phase: .full)
        #expect(r.errors.isEmpty)
        #expect(r.contact.phoneNumber == "+14085550100")
    }

    @Test("'Zip code doesn't match state' on the postal code field")
    func zipMismatch() {
        let r = validator.validate(address("10001", "CA"), requiredFields: [.postalAddress], phase: .full)
        #expect(
            r.errors == [
                ApplePayError(
                    .shippingContactInvalid,
                    contactField: .postalCode,
                    message: "Zip code doesn't match state"
                )
            ]
        )
    }

    @Test("'Shipping not available for this state' when the merchant does not serve it")
    func unserviceableState() {
        let v = ContactValidator(policy: ContactValidationPolicy(regions: ["US": ["CA", "Oregon"]]))
        let r = v.validate(address("99801", "AK", "Juneau"), requiredFields: [.postalAddress], phase: .redacted)
        #expect(
            r.errors == [
                ApplePayError(
                    .addressUnserviceable,
                    contactField: .administrativeArea,
                    message: "Shipping not available for this state"
                )
            ]
        )
        #expect(
            v.validate(address("97201", "OR", "Portland"), requiredFields: [.postalAddress], phase: .redacted).errors
                .isEmpty
        )
    }

    @Test("'Zip code is required' on a blank required field")
    func zipRequired() {
        let r = validator.validate(address(nil, "CA"), requiredFields: [.postalAddress], phase: .full)
        #expect(
            r.errors == [
                ApplePayError(.shippingContactInvalid, contactField: .postalCode, message: "Zip code is required")
            ]
        )
    }

    @Test("a missing state is inferred from the ZIP code")
    func inferState() {
        let r = validator.validate(address("95014", nil), requiredFields: [.postalAddress], phase: .redacted)
        #expect(r.errors.isEmpty)
        #expect(r.contact.administrativeArea == "CA")
    }

    @Test("before authorization, fields the page cannot see are never reported")
    func redactedPhase() {
        let redacted = ApplePayPaymentContact(
            locality: "Toronto",
            postalCode: "M5V",
            administrativeArea: "ON",
            countryCode: "CA"
        )
        let r = validator.validate(redacted, requiredFields: [.postalAddress, .name, .phone, .email], phase: .redacted)
        #expect(r.errors.isEmpty)
        let gb = ApplePayPaymentContact(locality: "London", postalCode: "SW1A", countryCode: "GB")
        #expect(validator.validate(gb, requiredFields: [.postalAddress], phase: .redacted).errors.isEmpty)
        #expect(!validator.validate(gb, requiredFields: [.postalAddress], phase: .full).errors.isEmpty)
    }

    @Test("only requested fields are checked")
    func onlyRequested() {
        let contact = ApplePayPaymentContact(phoneNumber: "not a phone", emailAddress: "nope")
        #expect(validator.validate(contact, requiredFields: [], phase: .full).errors.isEmpty)
        let r = validator.validate(contact, requiredFields: [.phone, .email], phase: .full)
        #expect(r.errors.map(\.contactField) == [.phoneNumber, .emailAddress])
        #expect(r.errors.map(\.message) == ["Invalid phone number", "Invalid email address"])
    }

    @Test("errors are sorted by importance: unserviceable first, then address, then name, phone, email")
    func ordering() {
        let v = ContactValidator(policy: ContactValidationPolicy(countries: ["US"]))
        let contact = ApplePayPaymentContact(
            phoneNumber: "12",
            emailAddress: "x",
            addressLines: [],
            locality: "Toronto",
            postalCode: "XYZ",
            administrativeArea: "ON",
            countryCode: "CA"
        )
        let r = v.validate(contact, requiredFields: [.postalAddress, .phone, .email, .name], phase: .full)
        #expect(r.errors.first?.code == .addressUnserviceable)
        #expect(
            r.errors.map(\.contactField) == [
                .countryCode, .postalCode, .addressLines, .name, .phoneNumber, .emailAddress,
            ]
        )
    }
}

@Suite("Japan: phonetic names, prefectures, postal codes, two street lines")
struct JapanTests {
    @Test(
        "〒1000005 becomes 100-0005; 東京, 東京都, Tokyo and tokyo-to all name 東京都",
        arguments: ["東京都", "東京", "Tokyo", "tokyo-to", "TOKYO", "13"]
    )
    func prefecture(_ name: String) {
        let contact = ApplePayPaymentContact(
            addressLines: ["千代田区丸の内1-1", "パレスビル3階"],
            locality: "千代田区",
            postalCode: "〒1000005",
            administrativeArea: name,
            countryCode: "JP"
        )
        let r = validator.validate(contact, requiredFields: [.postalAddress], phase: .full)
        #expect(r.errors.isEmpty)
        #expect(r.contact.postalCode == "100-0005")
        #expect(r.contact.administrativeArea == "東京都")
    }

    @Test("full-width digits and hyphens are read")
    func fullWidth() {
        let contact = ApplePayPaymentContact(
            phoneNumber: "０９０－１２３４－５６７８",
            addressLines: ["北区梅田１－１"],
            locality: "大阪市",
            postalCode: "５３０－０００１",
            administrativeArea: "大阪府",
            countryCode: "JP"
        )
        let r = validator.validate(contact, requiredFields: [.postalAddress, .phone], phase: .full)
        #expect(r.errors.isEmpty)
        #expect(r.contact.postalCode == "530-0001")
        #expect(r.contact.phoneNumber == "+819012345678")
    }

    @Test("phonetic names in hiragana become katakana; other scripts are refused in Japanese")
    func phonetic() {
        let good = ApplePayPaymentContact(phoneticGivenName: "たろう", phoneticFamilyName: "ﾔﾏﾀﾞ", countryCode: "JP")
        let r = validator.validate(good, requiredFields: [.phoneticName], phase: .full)
        #expect(r.errors.isEmpty)
        #expect(r.contact.phoneticGivenName == "タロウ")
        #expect(r.contact.phoneticFamilyName == "ヤマダ")
        let ja = ContactValidator(policy: ContactValidationPolicy(language: .ja))
        let bad = ApplePayPaymentContact(phoneticGivenName: "Taro", countryCode: "JP")
        #expect(
            ja.validate(bad, requiredFields: [.phoneticName], phase: .full).errors
                == [ApplePayError(.shippingContactInvalid, contactField: .phoneticName, message: "フリガナはカタカナまたはひらがなのみ")]
        )
    }

    @Test("a postal code of another prefecture: 郵便番号と都道府県が一致しません")
    func mismatch() {
        let ja = ContactValidator(policy: ContactValidationPolicy(language: .ja))
        let contact = ApplePayPaymentContact(
            locality: "札幌市",
            postalCode: "100-0005",
            administrativeArea: "北海道",
            countryCode: "JP"
        )
        #expect(
            ja.validate(contact, requiredFields: [.postalAddress], phase: .redacted).errors.map(\.message) == [
                "郵便番号と都道府県が一致しません"
            ]
        )
    }
}
