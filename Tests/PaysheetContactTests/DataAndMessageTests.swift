import PaysheetModel
@testable import PaysheetContact
import Testing

@Suite("Generated data and message style")
struct DataAndMessageTests {
    @Test("every pattern of both datasets compiles with the pattern engine")
    func patternsCompile() {
        #expect(AddressMetadata.uncompilablePatterns == [])
        #expect(PhoneMetadata.uncompilablePatterns == [])
        #expect(AddressMetadata.countries.count > 240)
        #expect(PhoneMetadata.regions.count > 240)
        for cc in ["US", "CA", "GB", "JP", "CN", "DE", "FR", "AU"] {
            #expect(AddressMetadata.countries[cc]?.postalPattern != nil, "\(cc)")
            #expect(PhoneMetadata.regions[cc] != nil, "\(cc)")
        }
    }

    @Test("the pattern engine: classes, groups, alternation, counted repetition, prefixes")
    func patternEngine() throws {
        let zip = try Pattern("(\\d{5})(?:[ \\-](\\d{4}))?")
        #expect(zip.matches("95014") && zip.matches("95014-2083") && zip.matches("95014 2083"))
        #expect(!zip.matches("9501") && !zip.matches("95014-208") && !zip.matches("95014x2083"))
        let prefix = try Pattern("9[0-5]|96[01]")
        #expect(prefix.matchesPrefix("95014") && prefix.matchesPrefix("96100") && !prefix.matchesPrefix("96201"))
        let ca = try Pattern("[ABCEGHJKLMNPRSTVXY]\\d[ABCEGHJ-NPRSTV-Z] ?\\d[ABCEGHJ-NPRSTV-Z]\\d")
        #expect(ca.matches("M5V 3L9") && ca.matches("M5V3L9") && !ca.matches("D5V 3L9") && !ca.matches("M5V 3L"))
        let neg = try Pattern("[^0-9]+x{2,}")
        #expect(neg.matches("abxx") && neg.matches("abxxx") && !neg.matches("a1xx") && !neg.matches("abx"))
        #expect(throws: Pattern.SyntaxError.self) { _ = try Pattern("(ab") }
        #expect(throws: Pattern.SyntaxError.self) { _ = try Pattern("a{3,1}") }
    }

    /// The longest values a template can receive.
    static let longestCountry: [ContactMessageLanguage: String] = {
        var out: [ContactMessageLanguage: String] = [:]
        for language in ContactMessageLanguage.allCases {
            out[language] = AddressMetadata.countries.keys.map { Countries.name($0, language) }.max {
                $0.count < $1.count
            }
        }
        return out
    }()

    @Test(
        "every message template follows the guidelines' style rules, in every language, with the longest values",
        arguments: ContactMessageLanguage.allCases
    )
    func style(_ language: ContactMessageLanguage) {
        let fields = [
            "name", "phoneticName", "phoneNumber", "emailAddress", "addressLines", "locality", "countryCode",
            "postalCode", "administrativeArea",
        ]
        let postalTypes = ["zip", "postal", "pin", "eircode"]
        let areaTypes = [
            "state", "province", "prefecture", "county", "area", "department", "district", "emirate", "island",
            "oblast", "parish", "do_si", "other",
        ]
        for key in MessageKey.allCases {
            for field in fields {
                for postal in postalTypes {
                    for area in areaTypes {
                        let text = ContactMessages.render(
                            key,
                            language,
                            field: field,
                            postalType: postal,
                            areaType: area,
                            country: Self.longestCountry[language]!
                        )
                        #expect(text.count <= 128, "\(text)")
                        #expect(!text.contains("{"), "unfilled placeholder in \(text)")
                        #expect(text == text.trimmingCharacters(in: .whitespaces), "\(text)")
                        #expect(!".!?。！？:;、，".contains(text.last!), "final punctuation in \(text)")
                        if language == .en {
                            #expect(text.first!.isUppercase, "sentence case: \(text)")
                            let words = text.split(separator: " ").dropFirst()
                            let shouted = words.filter {
                                $0.count > 4 && $0 == $0.uppercased() && $0.contains(where: \.isLetter)
                            }
                            #expect(shouted.isEmpty, "capitals inside \(text)")
                        }
                    }
                }
            }
        }
    }

    @Test(
        "the fields of ApplePayError messages are exactly the Apple ones",
        arguments: [ContactMessageLanguage.en, .ja, .zh]
    )
    func requiredMessages(_ language: ContactMessageLanguage) {
        let v = ContactValidator(policy: ContactValidationPolicy(language: language))
        let r = v.validate(
            ApplePayPaymentContact(countryCode: "US"),
            requiredFields: [.postalAddress, .name, .email, .phone],
            phase: .full
        )
        #expect(r.errors.count == 7)
        #expect(
            Set(r.errors.compactMap(\.contactField)) == [
                .postalCode, .administrativeArea, .locality, .addressLines, .name, .emailAddress, .phoneNumber,
            ]
        )
        if language == .en { #expect(r.errors.first?.message == "Zip code is required") }
        if language == .ja { #expect(r.errors.first?.message == "郵便番号は必須です") }
        if language == .zh { #expect(r.errors.first?.message == "邮政编码为必填项") }
    }

    @Test("countries by code or name in several languages; unknown and unserved countries")
    func countries() {
        for name in ["US", "us", "United States", "UNITED STATES", "アメリカ合衆国", "美国"] {
            #expect(Countries.code(for: name) == "US", "\(name)")
        }
        for name in ["Japan", "日本", "JP", "Japon"] { #expect(Countries.code(for: name) == "JP", "\(name)") }
        let r = ContactValidator().validate(
            ApplePayPaymentContact(locality: "X", postalCode: "1", country: "Atlantis"),
            requiredFields: [.postalAddress],
            phase: .redacted
        )
        #expect(r.errors.map(\.message) == ["Unknown country or region"])
        let served = ContactValidator(policy: ContactValidationPolicy(countries: ["US"]))
        let de = ApplePayPaymentContact(locality: "Berlin", postalCode: "10115", country: "Deutschland")
        #expect(
            served.validate(de, requiredFields: [.postalAddress], phase: .redacted).errors
                == [
                    ApplePayError(
                        .addressUnserviceable,
                        contactField: .countryCode,
                        message: "Shipping not available to Germany"
                    )
                ]
        )
    }

    @Test("P.O. boxes refused only when the policy says so, and only for shipping")
    func poBoxes() {
        let refuse = ContactValidator(policy: ContactValidationPolicy(refusePOBoxes: true))
        let box = ApplePayPaymentContact(
            addressLines: ["P.O. Box 123"],
            locality: "Cupertino",
            postalCode: "95014",
            administrativeArea: "CA",
            countryCode: "US"
        )
        #expect(
            refuse.validate(box, requiredFields: [.postalAddress], phase: .full).errors.map(\.message) == [
                "Shipping not available to P.O. boxes"
            ]
        )
        #expect(refuse.validate(box, requiredFields: [.postalAddress], phase: .full, role: .billing).errors.isEmpty)
        #expect(ContactValidator().validate(box, requiredFields: [.postalAddress], phase: .full).errors.isEmpty)
    }

    @Test("postal codes per country: CA and GB spacing and case, DE, FR, AU, CN")
    func postalForms() {
        func postal(_ code: String, _ country: String, _ area: String? = nil) -> (String?, [String]) {
            let r = ContactValidator().validate(
                ApplePayPaymentContact(
                    addressLines: ["1"],
                    locality: "X",
                    postalCode: code,
                    administrativeArea: area,
                    countryCode: country
                ),
                requiredFields: [.postalAddress],
                phase: .full
            )
            return (r.contact.postalCode, r.errors.map(\.message))
        }
        #expect(postal("m5v3l9", "CA", "ON") == ("M5V 3L9", []))
        #expect(postal("sw1a1aa", "GB") == ("SW1A 1AA", []))
        #expect(postal("10115", "DE") == ("10115", []))
        #expect(postal("75 008", "FR") == ("75 008", []))
        #expect(postal("2000", "AU", "NSW") == ("2000", []))
        #expect(postal("100000", "CN", "北京市") == ("100000", []))
        #expect(postal("T5V 3L9", "CA", "ON").1 == ["Postal code doesn't match province"])
        #expect(postal("1234", "DE").1 == ["Invalid postal code for Germany"])
    }

    @Test("email syntax")
    func emails() {
        #expect(EmailAddresses.normalize(" Jane.Doe+shop@Example.COM ") == "Jane.Doe+shop@example.com")
        for bad in ["jane", "jane@", "@x.com", "jane@x", "ja..ne@x.com", "jane@-x.com", "jane@x.c0m1", "a b@x.com"] {
            #expect(EmailAddresses.normalize(bad) == nil, "\(bad)")
        }
    }
}
