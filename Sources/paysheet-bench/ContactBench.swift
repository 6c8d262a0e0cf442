import Foundation
import PaysheetContact
import PaysheetModel

// `swift run -c release paysheet-bench contacts`: full-contact validations per second on one
// core (address, name, phonetic name, phone, email; US, JP, GB, CA, DE contacts in the formats
// people type), next to a baseline measured in the same run: decoding the same contacts from
// JSON with Foundation's JSONDecoder (what any server does before validating).
func runContactBenchmark() throws {
    let contacts: [ApplePayPaymentContact] = [
        .init(
            phoneNumber: "(408) 555-0100",
            emailAddress: "Jane@Example.com",
            givenName: "Jane",
            familyName: "Appleseed",
            addressLines: ["1 Infinite Loop"],
            locality: "Cupertino",
            postalCode: "95014-2083",
            administrativeArea: "California",
            countryCode: "US"
        ),
        .init(
            phoneNumber: "090-1234-5678",
            emailAddress: "taro@example.jp",
            givenName: "太郎",
            familyName: "山田",
            phoneticGivenName: "たろう",
            phoneticFamilyName: "ヤマダ",
            addressLines: ["千代田区丸の内1-1", "パレスビル3階"],
            locality: "千代田区",
            postalCode: "1000005",
            administrativeArea: "東京",
            countryCode: "JP"
        ),
        .init(
            phoneNumber: "+44 20 7946 0958",
            emailAddress: "sam@example.co.uk",
            givenName: "Sam",
            familyName: "Smith",
            addressLines: ["10 Downing St"],
            locality: "London",
            postalCode: "sw1a2aa",
            countryCode: "GB"
        ),
        .init(
            phoneNumber: "416 555 0199",
            emailAddress: "lee@example.ca",
            givenName: "Lee",
            familyName: "Wong",
            addressLines: ["290 Bremner Blvd"],
            locality: "Toronto",
            postalCode: "m5v3l9",
            administrativeArea: "Ontario",
            countryCode: "CA"
        ),
        .init(
            phoneNumber: "030 901820",
            emailAddress: "max@example.de",
            givenName: "Max",
            familyName: "Muster",
            addressLines: ["Platz der Republik 1"],
            locality: "Berlin",
            postalCode: "11011",
            countryCode: "DE"
        ),
    ]
    let validator = ContactValidator()
    // Phonetic names are asked of the Japanese contact only, as a Japanese store would.
    let fieldSets: [Set<ApplePayContactField>] = contacts.map {
        $0.countryCode == "JP"
            ? [.postalAddress, .name, .phoneticName, .phone, .email] : [.postalAddress, .name, .phone, .email]
    }
    var errors = 0
    for (c, fields) in zip(contacts, fieldSets) {
        errors += validator.validate(c, requiredFields: fields, phase: .full).errors.count
    }
    guard errors == 0 else { fatalError("benchmark contacts should be valid, found \(errors) errors") }

    // Five timed runs of each; the median is reported (this shared machine's speed varies).
    let rounds = 60_000
    var sink = 0
    func timed(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(rounds) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    let encoded = try contacts.map { try JSONEncoder().encode($0) }
    let decoder = JSONDecoder()
    var rates: [Double] = []
    var baselines: [Double] = []
    for _ in 0..<5 {
        rates.append(
            timed {
                for round in 0..<rounds {
                    let index = round % contacts.count
                    sink &+=
                        validator.validate(contacts[index], requiredFields: fieldSets[index], phase: .full).contact
                        .postalCode?
                        .count ?? 0
                }
            }
        )
        baselines.append(
            try timed {
                for round in 0..<rounds {
                    sink &+=
                        try decoder.decode(ApplePayPaymentContact.self, from: encoded[round % encoded.count])
                        .postalCode?
                        .count ?? 0
                }
            }
        )
    }
    rates.sort()
    baselines.sort()
    let rate = rates[2]
    let baseline = baselines[2]
    guard sink > 0 else { fatalError() }
    print("Contact benchmark (one core, release)")
    print(
        String(
            format: "  full-contact validations/s:             %8.0f   (target ≥ 200000; median of 5 runs, %.0f–%.0f)",
            rate,
            rates[0],
            rates[4]
        )
    )
    print(String(format: "  baseline: JSONDecoder of the contact/s: %8.0f", baseline))
    print(String(format: "  ratio validation / baseline:             %8.2f", rate / baseline))
}

func runContactStages() {
    func us(_ name: String, _ n: Int = 20000, _ body: () -> Int) {
        var sink = body()  // first use loads the metadata: not timed
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<n { sink &+= body() }
        print(
            String(
                format: "  %-40@ %7.2f µs  (%d)",
                name as NSString,
                Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(n),
                sink % 7
            )
        )
    }
    let validator = ContactValidator()
    let us1 = ApplePayPaymentContact(
        addressLines: ["1 Infinite Loop"],
        locality: "Cupertino",
        postalCode: "95014-2083",
        administrativeArea: "California",
        countryCode: "US"
    )
    us("address only US") { validator.validate(us1, requiredFields: [.postalAddress], phase: .full).errors.count }
    let phoneContact = ApplePayPaymentContact(phoneNumber: "(408) 555-0100", countryCode: "US")
    us("phone only US") { validator.validate(phoneContact, requiredFields: [.phone], phase: .full).errors.count }
    us("PhoneNumbers.e164 US") { PhoneNumbers.e164("(408) 555-0100", region: "US")?.count ?? 0 }
    us("PhoneNumbers.e164 DE") { PhoneNumbers.e164("030 901820", region: "DE")?.count ?? 0 }
    let emailContact = ApplePayPaymentContact(emailAddress: "Jane@Example.com")
    us("email only") { validator.validate(emailContact, requiredFields: [.email], phase: .full).errors.count }
    let japaneseContact = ApplePayPaymentContact(
        addressLines: ["千代田区丸の内1-1"],
        locality: "千代田区",
        postalCode: "1000005",
        administrativeArea: "東京",
        countryCode: "JP"
    )
    us("address only JP") {
        validator.validate(japaneseContact, requiredFields: [.postalAddress], phase: .full).errors.count
    }
    let phoneticContact = ApplePayPaymentContact(phoneticGivenName: "たろう", phoneticFamilyName: "ヤマダ", countryCode: "JP")
    us("phonetic only JP") {
        validator.validate(phoneticContact, requiredFields: [.phoneticName], phase: .full).errors.count
    }
}
