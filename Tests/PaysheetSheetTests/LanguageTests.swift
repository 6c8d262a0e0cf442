import Foundation
import Testing

@testable import PaysheetModel
@testable import PaysheetSheet

/// The sheet in the shopper's language: how the language is chosen, the table of the sheet's
/// words, and the engine speaking it while the page's own texts stay as given.
@Suite struct LanguageTests {
    // MARK: The choice

    @Test(arguments: [
        ("en", SheetLanguage.english), ("en-GB", .english), ("EN_us", .english),
        ("zh", .simplifiedChinese), ("zh-CN", .simplifiedChinese), ("zh-Hans", .simplifiedChinese),
        ("zh_Hans_SG", .simplifiedChinese), ("zh-SG", .simplifiedChinese), ("zh-Hans-HK", .simplifiedChinese),
        ("ja", .japanese), ("ja-JP", .japanese), ("ja_JP", .japanese),
    ])
    func aTagNamesALanguageTheSheetSpeaks(tag: String, language: SheetLanguage) {
        #expect(SheetLanguage(tag: tag) == language)
    }

    @Test(arguments: ["zh-TW", "zh-HK", "zh-MO", "zh-Hant", "zh_Hant_TW", "fr", "fr-FR", "de", "ko-KR", "", "-"])
    func otherLanguagesAreNotSpoken(tag: String) {
        #expect(SheetLanguage(tag: tag) == nil)
    }

    @Test func theFirstPreferenceTheSheetSpeaksWinsElseEnglish() {
        #expect(SheetLanguage.preferred(["fr-FR", "ja-JP", "zh-CN"]) == .japanese)
        #expect(SheetLanguage.preferred(["zh-TW", "zh-CN", "en"]) == .simplifiedChinese)
        #expect(SheetLanguage.preferred(["zh-TW", "de-DE"]) == .english)
        #expect(SheetLanguage.preferred([]) == .english)
        #expect(SheetLanguage(locale: Locale(identifier: "zh_CN")) == .simplifiedChinese)
        #expect(SheetLanguage(locale: Locale(identifier: "ja_JP")) == .japanese)
        #expect(SheetLanguage(locale: Locale(identifier: "de_DE")) == .english)
    }

    @Test func theScenarioFieldChoosesTheLanguage() throws {
        func language(_ value: JSONValue) throws -> SheetLanguage {
            try SheetInput.configuration(wallet: nil, options: ["language": value]).language
        }
        #expect(try language("zh-Hans") == .simplifiedChinese)
        #expect(try language("ja") == .japanese)
        #expect(try language(["fr-FR", "zh-CN"]) == .simplifiedChinese)
        #expect(try language("fr") == .english)
        #expect(try SheetInput.configuration(wallet: nil, options: nil).language == .english)
        for bad: JSONValue in [5, [], ["ja", 3], "ja JP", "", "zh--CN", .null] {
            #expect(throws: SheetInputError.self) { try language(bad) }
            do {
                _ = try language(bad)
            } catch let error as SheetInputError {
                #expect(error.field == "options.language")
            } catch {
                Issue.record("not a SheetInputError: \(error)")
            }
        }
    }

    // MARK: The table

    @Test func everyStringIsInEveryLanguageWithTheSamePlaceholders() {
        let placeholder = /\{[a-z]+\}/
        for id in SheetString.allCases {
            let english = id.text(in: .english)
            let names = english.matches(of: placeholder).map { String($0.output) }.sorted()
            #expect(!english.isEmpty, "\(id.rawValue)")
            for language in [SheetLanguage.simplifiedChinese, .japanese] {
                let text = id.text(in: language)
                #expect(!text.isEmpty, "\(id.rawValue) in \(language.rawValue)")
                #expect(text != english, "\(id.rawValue) is not translated to \(language.rawValue)")
                // Chinese and Japanese words, not English ones left behind.
                #expect(text.unicodeScalars.contains { $0.value >= 0x3000 }, "\(id.rawValue) in \(language.rawValue)")
                #expect(
                    text.matches(of: placeholder).map { String($0.output) }.sorted() == names,
                    "\(id.rawValue) in \(language.rawValue) keeps \(names)"
                )
            }
        }
    }

    @Test func theIdsAreStableAndGroupedByWhereTheyAppear() {
        let groups: Set<String> = [
            "status", "error", "message", "popup", "module", "sheet", "label", "closed", "payLater", "disbursement",
            "shipping",
        ]
        for id in SheetString.allCases {
            let group = String(id.rawValue.prefix { $0 != "." })
            #expect(groups.contains(group), "\(id.rawValue)")
            // The renderer draws headings and controls; statuses and errors come in the snapshot.
            #expect(id.isDrawnByRenderer == !["status", "error", "message", "popup"].contains(group))
        }
        // The English words are those of docs/payment-sheet.md, which existing scenarios test.
        #expect(SheetString.statusPaymentNotCompleted.text(in: .english) == "Payment Not Completed")
        #expect(SheetString.errorVerifyContactInformation.text(in: .english) == "VERIFY CONTACT INFORMATION")
        #expect(SheetStatus.tryAgain == "Try Again")
    }

    /// docs/sheet.md lists the table with each translation's source; the two agree.
    @Test func theDocsListTheSameTable() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/sheet.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        var rows: [String: [String]] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 5 else { continue }
            rows[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = Array(cells.dropFirst())
        }
        #expect(Set(rows.keys) == Set(SheetString.allCases.map(\.rawValue)))
        for id in SheetString.allCases {
            let row = id.row
            let sources =
                row.zhHansSource == row.jaSource
                ? row.zhHansSource.rawValue : "zh: \(row.zhHansSource.rawValue); ja: \(row.jaSource.rawValue)"
            #expect(rows[id.rawValue] == [row.en, row.zhHans, row.ja, sources], "\(id.rawValue)")
        }
    }

    // MARK: The engine speaks it

    var request: ApplePayPaymentRequest {
        var r = ApplePayPaymentRequest(
            countryCode: "US",
            currencyCode: "USD",
            supportedNetworks: ["visa"],
            merchantCapabilities: [.supports3DS],
            total: ApplePayLineItem(label: "Paysheet Demo Store", amount: "10.00")
        )
        r.requiredShippingContactFields = [.postalAddress]
        return r
    }

    /// A sheet open and waiting for the page's answer to `shippingcontactselected`.
    func openSheet(_ language: SheetLanguage) -> SheetMachine {
        var machine = SheetMachine(configuration: SheetConfiguration(language: language))
        _ = machine.construct(version: 14, request: request.jsonValue)
        _ = machine.call(.begin, session: 1)
        _ = machine.call(.completeMerchantValidation(["merchantSessionIdentifier": "SSH"]), session: 1)
        _ = machine.call(.completePaymentMethodSelection(["newTotal": request.total.jsonValue]), session: 1)
        return machine
    }

    @Test(arguments: [
        (SheetLanguage.english, "Shipping Address Invalid", "SHIPPING UNAVAILABLE", "Address not supported"),
        (.simplifiedChinese, "送货地址无效", "无法送货", "不支持此地址"),
        (.japanese, "配送先住所が無効です", "配送不可", "この住所には対応していません"),
    ])
    func theSheetsWordsAreInItsLanguageThePagesAsGiven(
        language: SheetLanguage,
        status: String,
        title: String,
        message: String
    ) throws {
        var machine = openSheet(language)
        let update: JSONValue = [
            "newTotal": request.total.jsonValue,
            "errors": [
                ["code": "addressUnserviceable"],
                ["code": "shippingContactInvalid", "contactField": "phoneNumber", "message": "Call the shop first"],
            ],
        ]
        let result = machine.call(.completeShippingContactSelection(update), session: 1)
        #expect(result.threw == nil)
        let snap = machine.snapshot()
        #expect(snap["language"] == .string(language.rawValue))
        #expect(snap["status"] == .string(status))
        #expect(snap["statusId"] == "status.shippingAddressInvalid")
        // The sheet's own title and message (docs/payment-sheet.md §3), in the sheet's language.
        #expect(snap["modules"]?["shipping"]?["error"] == ["title": .string(title), "message": .string(message)])
        // The page's message and the merchant's label are never translated.
        let contact = SheetString.errorVerifyContactInformation.text(in: language)
        #expect(snap["modules"]?["contact"]?["error"] == ["title": .string(contact), "message": "Call the shop first"])
        let popup = try #require(snap["popup"]?.stringValue)
        #expect(popup == SheetString.popupNoDelivery.text(in: language, ["label": "Paysheet Demo Store"]))
        #expect(popup.contains("Paysheet Demo Store"))
    }

    @Test func theSheetsOwnMessagesAreTranslatedToo() {
        var machine = openSheet(.japanese)
        _ = machine.call(.completeShippingContactSelection(["newTotal": request.total.jsonValue]), session: 1)
        _ = machine.perform(.authorize)
        // Row 6 of docs/payment-sheet.md §4: the sheet's own message "Address not supported".
        let result: JSONValue = ["status": 1, "errors": [["code": "addressUnserviceable"]]]
        _ = machine.call(.completePayment(result), session: 1)
        let snap = machine.snapshot()
        #expect(snap["rule"] == 6)
        #expect(snap["status"] == "配送できません")
        #expect(snap["statusId"] == "status.shippingUnavailable")
        #expect(snap["modules"]?["shipping"]?["error"] == ["title": "配送不可", "message": "この住所には対応していません"])
    }

    @Test func theRendererGetsItsWordsFromTheTable() {
        let machine = openSheet(.simplifiedChinese)
        let texts = machine.sheetTexts()
        #expect(texts["module.shipping"] == "送货地址")
        #expect(texts["sheet.simulationLabel"] == "模拟付款单 — 不是 Apple Pay")
        #expect(texts["status.tryAgain"] == nil, "statuses come resolved in the snapshot")
        let drawn = SheetString.allCases.filter(\.isDrawnByRenderer)
        #expect(texts.objectValue?.members.count == drawn.count)
    }

    @Test func theDriversConfigurationChoosesTheLanguage() async throws {
        let sheet = try await PaymentSheetDriver.begin(
            version: 14,
            request: request,
            delegate: Checkout(slowAuthorization: 31),
            configuration: SheetConfiguration(language: SheetLanguage(locale: Locale(identifier: "zh_CN")))
        )
        #expect(try await sheet.authorize() == false)
        #expect(await sheet.snapshot["status"] == "付款未完成")
        #expect(await sheet.snapshot["statusId"] == "status.paymentNotCompleted")
        #expect(await sheet.snapshot["result"] == "timedOut")
    }

    @Test func aDiagnosticOfTheSimulatorStaysInEnglish() {
        let request: JSONValue = [
            "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa"],
            "merchantCapabilities": ["supports3DS"], "total": ["label": "Tea", "amount": "1.00"],
            "recurringPaymentRequest": [
                "paymentDescription": "Tea",
                "regularBilling": [
                    "label": "Tea", "amount": "29.00", "paymentTiming": "recurring",
                    "recurringPaymentIntervalUnit": "month",
                ],
                "managementURL": "https://store.example/subscriptions",
            ],
            "automaticReloadPaymentRequest": [
                "paymentDescription": "Top-up",
                "automaticReloadBilling": [
                    "label": "Top-up", "amount": "20.00", "paymentTiming": "automaticReload",
                    "automaticReloadPaymentThresholdAmount": "5.00",
                ],
                "managementURL": "https://store.example/card",
            ],
        ]
        var machine = SheetMachine(configuration: SheetConfiguration(language: .japanese))
        #expect(machine.construct(version: 14, request: request).threw == nil)
        _ = machine.call(.begin, session: 1)
        let snap = machine.snapshot()
        #expect(snap["status"] == "A recurring payment cannot be combined with an automatic reload payment")
        #expect(snap["statusId"] == .null)
        #expect(snap["language"] == "ja")
    }
}
