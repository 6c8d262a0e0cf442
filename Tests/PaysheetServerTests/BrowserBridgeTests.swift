import Foundation
import NIOCore
import PaysheetModel
import PaysheetSheet
import PaysheetToken
import Testing
@testable import PaysheetBrowserBridge
@testable import PaysheetServer

/// The bridge behind `paysheet.js`: one engine per page, time as an input.
@Suite struct BrowserBridgeTests {
    static let request: JSONValue = [
        "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa"],
        "merchantCapabilities": ["supports3DS"],
        "total": ["label": "Shop", "amount": "10.00"],
    ]

    func page(gesture: Bool = true, virtual: Bool = false) -> BrowserPage {
        var p = BrowserPage(configuration: SheetConfiguration(), wall: 1_000)
        p.requireUserGesture = gesture
        p.virtualClock = virtual
        return p
    }

    func run(_ p: inout BrowserPage, _ op: JSONObject, at wall: Double = 1_000) throws -> JSONObject {
        do throws(BrowserPage.BridgeError) { return try p.handle(op, wall: wall) } catch {
            throw BridgeFailure(message: "\(error.field ?? "-"): \(error.message)")
        }
    }

    struct BridgeFailure: Error { var message: String }

    func types(_ answer: JSONObject) -> [String] {
        answer["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
    }

    /// The one check `paysheet.js` makes itself (too few arguments) throws the engine's message.
    @Test func paysheetJSHasTheEnginesNotEnoughArgumentsMessage() throws {
        let js = String(buffer: try BrowserRoutes.load("paysheet.js"))
        #expect(js.contains("var NOT_ENOUGH_ARGUMENTS = \"\(ScriptError.notEnoughArguments.message)\";"))
        #expect(!js.contains("new TypeError(\"Not enough"), "written once, as NOT_ENOUGH_ARGUMENTS")
    }

    @Test func theGestureRuleAndItsSwitch() throws {
        var p = page()
        var a = try run(&p, ["op": "construct", "version": 3, "request": Self.request, "userGesture": false])
        #expect(
            a["threw"] == [
                "name": "InvalidAccessError",
                "message": "Must create a new ApplePaySession from a user gesture handler.",
            ]
        )
        a = try run(&p, ["op": "construct", "version": 3, "request": Self.request, "userGesture": true])
        #expect(a["threw"] == nil)
        #expect(a["returned"] == .number("1"))
        var relaxed = page(gesture: false)
        a = try run(&relaxed, ["op": "construct", "version": 3, "request": Self.request, "userGesture": false])
        #expect(a["returned"] == .number("1"))
    }

    @Test func theVersionIsConvertedAsAnUnsignedLong() throws {
        var p = page()
        let a = try run(&p, ["op": "construct", "version": "3", "request": Self.request, "userGesture": true])
        #expect(a["returned"] == .number("1"))
        let b = try run(&p, ["op": "static", "method": "supportsVersion", "args": ["0"]])
        #expect(b["threw"]?["name"] == "InvalidAccessError")
    }

    @Test func theRealClockCancelsAnOutstandingCompletionAfterThirtySeconds() throws {
        var p = page()
        _ = try run(&p, ["op": "construct", "version": 3, "request": Self.request, "userGesture": true])
        let begun = try run(&p, ["op": "call", "session": 1, "method": "begin", "args": []])
        #expect(types(begun) == ["validatemerchant"])
        #expect(begun["sheet"]?["outstanding"] == "validatemerchant")
        let early = try run(&p, ["op": "tick"], at: 1_029.5)
        #expect(types(early).isEmpty)
        #expect(early["sheet"]?["secondsLeft"] == .number("0.5"))
        let late = try run(&p, ["op": "tick"], at: 1_030)
        #expect(types(late) == ["cancel"])
        #expect(late["sheet"]?["result"] == "timedOut")
        #expect(late["sessions"] == ["canceled"])
    }

    @Test func theVirtualClockMovesOnlyWhenTold() throws {
        var p = page(virtual: true)
        _ = try run(&p, ["op": "construct", "version": 3, "request": Self.request, "userGesture": true])
        _ = try run(&p, ["op": "call", "session": 1, "method": "begin", "args": []])
        let later = try run(&p, ["op": "tick"], at: 5_000)
        #expect(types(later).isEmpty)
        #expect(later["clock"] == "virtual")
        let advanced = try run(&p, ["op": "advance", "seconds": 30], at: 5_000)
        #expect(types(advanced) == ["cancel"])
    }

    @Test func selectionEventsWithoutAListenerAreCompletedByTheSheet() throws {
        var p = page()
        _ = try run(&p, ["op": "construct", "version": 3, "request": Self.request, "userGesture": true])
        _ = try run(&p, ["op": "call", "session": 1, "method": "begin", "args": [], "listeners": ["validatemerchant"]])
        let a = try run(
            &p,
            [
                "op": "call", "session": 1, "method": "completeMerchantValidation", "args": [[:]],
                "listeners": ["validatemerchant"],
            ]
        )
        #expect(types(a).isEmpty)
        #expect(a["sheet"]?["outstanding"] == .null)
        #expect(a["sheet"]?["canAuthorize"] == true)
        let b = try run(
            &p,
            ["op": "user", "user": "authorize", "listeners": ["validatemerchant", "paymentauthorized"]]
        )
        #expect(types(b) == ["paymentauthorized"])
    }

    @Test func missingArgumentsAndUnknownMethodsAreTheEnginesTypeErrors() throws {
        var p = page()
        _ = try run(&p, ["op": "construct", "version": 3, "request": Self.request, "userGesture": true])
        let a = try run(&p, ["op": "call", "session": 1, "method": "completeMerchantValidation", "args": []])
        #expect(a["threw"] == ["name": "TypeError", "message": "Not enough arguments"])
        let b = try run(&p, ["op": "call", "session": 1, "method": "completeEverything", "args": [1]])
        #expect(b["threw"]?["name"] == "TypeError")
        let c = try run(&p, ["op": "call", "session": 7, "method": "begin", "args": []])
        #expect(c["threw"]?["name"] == "TypeError")
    }

    @Test func ignoredUserActionsSayWhyAndAreLogged() throws {
        var p = page()
        let a = try run(&p, ["op": "user", "user": "authorize"])
        #expect(a["ignored"] == "the sheet is not shown")
        let log = try run(&p, ["op": "state"])["log"]?.arrayValue ?? []
        #expect(log.last?["type"] == "ignored")
    }

    @Test func anUndefinedMessageIsLeftOutButNullIsConverted() throws {
        var p = page()
        let a = try run(
            &p,
            ["op": "static", "method": "ApplePayError", "args": ["unknown", "postalCode", .null], "undefinedAt": [2]]
        )
        #expect(a["returned"] == ["code": "unknown", "contactField": "postalCode", "message": ""])
        let b = try run(&p, ["op": "static", "method": "ApplePayError", "args": ["unknown", "postalCode", .null]])
        #expect(b["returned"] == ["code": "unknown", "contactField": "postalCode", "message": "null"])
    }

    @Test func malformedOperationsNameTheField() {
        var p = page()
        let cases: [(JSONObject, String)] = [
            (["nothing": 1], "op"), (["op": "dance"], "op"), (["op": "call", "method": "begin"], "session"),
            (["op": "call", "session": 1], "method"), (["op": "advance", "seconds": -1], "seconds"),
            (["op": "state", "listeners": ["click"]], "listeners"), (["op": "user", "user": "fly"], "user"),
            (["op": "construct"], "version"),
        ]
        for (op, field) in cases {
            do throws(BrowserPage.BridgeError) {
                _ = try p.handle(op, wall: 1_000)
                Issue.record("\(op.keys) was accepted")
            } catch {
                #expect(error.field == field, "\(op.keys)")
                #expect(!error.message.isEmpty)
            }
        }
    }

    // MARK: - The hub

    static let pki: SandboxPKI = {
        let folder = NSTemporaryDirectory() + "paysheet-hub-" + UUID().uuidString
        return try! SandboxPKI.loadOrCreate(folder: folder)
    }()

    func hub(capacity: Int = 10, perClient: Int = 32) throws -> SheetHub {
        let credentials = try MerchantCredentials.create(merchantIdentifier: "merchant.test.hub", pki: Self.pki)
        return SheetHub(
            pki: Self.pki,
            recipient: TokenRecipient(credentials.merchantKey),
            capacity: capacity,
            pagesPerClient: perClient
        )
    }

    @Test func configurationErrorsNameTheKey() async throws {
        let h = try hub()
        let page = await h.create(client: "10.0.0.1", wall: 1)
        let bad: [(JSONValue, String?)] = [
            (["op": "configure", "colour": "red"], "colour"),
            (["op": "configure", "wallet": ["cards": "none"]], "wallet"),
            (["op": "configure", "options": ["timeoutSeconds": -1]], "options.timeoutSeconds"),
            (["op": "configure", "clock": "sundial"], "clock"),
            (["op": "configure", "merchantCertificate": "not a certificate"], "merchantCertificate"),
            (["op": "configure", "requireUserGesture": "sometimes"], "requireUserGesture"),
        ]
        for (body, field) in bad {
            do throws(ServiceError) {
                _ = try await h.handle(page: page, body: body, wall: 1)
                Issue.record("\(body.compactText) was accepted")
            } catch {
                #expect(error.field == field, "\(body.compactText): \(error.message)")
            }
        }
    }

    // MARK: - The sheet's language

    /// `paysheet.js` draws the sheet's words from the engine's `texts`: none of them is written in
    /// it (the table is `SheetString`'s).
    @Test func paysheetJSKeepsNoCopyOfTheSheetsWords() throws {
        let js = String(buffer: try BrowserRoutes.load("paysheet.js"))
        for id in SheetString.allCases {
            for language in SheetLanguage.allCases {
                let text = id.text(in: language)
                #expect(!js.contains("\"\(text)\""), "\(id.rawValue) is written in paysheet.js")
                #expect(
                    !js.contains(
                        "\"\(text.replacingOccurrences(of: "{label}", with: "").replacingOccurrences(of: "{url}", with: ""))\""
                    )
                )
            }
            if id.isDrawnByRenderer { #expect(js.contains("\"\(id.rawValue)\""), "paysheet.js draws \(id.rawValue)") }
        }
    }

    @Test func theBrowsersLanguagesChooseTheSheetsUnlessThePageChose() async throws {
        let h = try hub()
        let page = await h.create(client: "10.0.0.1", wall: 1)
        func construct(_ languages: JSONValue) async throws(ServiceError) -> JSONValue {
            try await h.handle(
                page: page,
                body: [
                    "op": "construct", "version": 3, "request": Self.request, "userGesture": true,
                    "languages": languages,
                ],
                wall: 1
            )
        }
        // Before any session: no sheet, no words to draw; the snapshot says the language.
        let none = try await h.handle(page: page, body: ["op": "state"], wall: 1)
        #expect(none["sheet"]?["language"] == "en")
        #expect(none["texts"] == nil)
        _ = try await construct(["zh-TW", "zh-CN", "en-US"])
        let begun = try await h.handle(
            page: page,
            body: ["op": "call", "session": 1, "method": "begin", "args": []],
            wall: 1
        )
        #expect(begun["sheet"]?["language"] == "zh-Hans")
        #expect(begun["texts"]?["module.card"] == "付款方式")
        #expect(begun["texts"]?["sheet.total"] == "支付 {label}")
        // A language tag that is not one is the page's mistake, named.
        do throws(ServiceError) {
            _ = try await construct(["zh CN"])
            Issue.record("a malformed tag was accepted")
        } catch {
            #expect(error.field == "languages")
        }
        // The page's own choice (options.language) stays, whatever the browser says.
        _ = try await h.handle(page: page, body: ["op": "configure", "options": ["language": "ja"]], wall: 1)
        _ = try await construct(["zh-CN"])
        let chosen = try await h.handle(
            page: page,
            body: ["op": "call", "session": 1, "method": "begin", "args": []],
            wall: 1
        )
        #expect(chosen["sheet"]?["language"] == "ja")
        #expect(chosen["texts"]?["module.shipping"] == "配送先")
        // Without a choice, a browser in a language the sheet does not speak gets English.
        _ = try await h.handle(page: page, body: ["op": "configure"], wall: 1)
        _ = try await construct(["fr-FR", "de"])
        let english = try await h.handle(
            page: page,
            body: ["op": "call", "session": 1, "method": "begin", "args": []],
            wall: 1
        )
        #expect(english["sheet"]?["language"] == "en")
        #expect(english["texts"]?["sheet.pay"] == "Pay (simulated)")
    }

    @Test func pageIdsAreIssuedByTheServerAndAnUnknownIdIsNotAPage() async throws {
        let h = try hub()
        let a = await h.create(client: "10.0.0.1", wall: 1)
        let b = await h.create(client: "10.0.0.1", wall: 1)
        #expect(a != b)
        #expect(a.hasPrefix("pg_") && a.count == 3 + 32 && a.dropFirst(3).allSatisfy(\.isHexDigit))
        // A client cannot make a page by naming one (it used to create it, or take over another's).
        for id in ["page-0001", "x", String(a.dropLast()) + "0", ""] where id != a {
            do throws(ServiceError) {
                _ = try await h.handle(page: id, body: ["op": "state"], wall: 1)
                Issue.record("page \(id) answered")
            } catch {
                #expect(error.kind == .notFound)
            }
        }
        #expect(await h.count == 2)
    }

    @Test func aConfiguredPageUsesItsWalletAndIssuesRealTokens() async throws {
        let h = try hub()
        let page = await h.create(client: "10.0.0.1", wall: 1)
        let wallet: JSONValue = ["cards": [["network": "visa", "type": "debit", "displayName": "Visa 7777"]]]
        let configured = try await h.handle(
            page: page,
            body: ["op": "configure", "wallet": wallet, "requireUserGesture": false],
            wall: 1
        )
        #expect(configured["sheet"]?["visible"] == false)
        _ = try await h.handle(page: page, body: ["op": "construct", "version": 3, "request": Self.request], wall: 1)
        _ = try await h.handle(
            page: page,
            body: [
                "op": "call", "session": 1, "method": "begin", "args": [],
                "listeners": ["validatemerchant", "paymentauthorized"],
            ],
            wall: 1
        )
        _ = try await h.handle(
            page: page,
            body: [
                "op": "call", "session": 1, "method": "completeMerchantValidation", "args": [[:]],
                "listeners": ["validatemerchant", "paymentauthorized"],
            ],
            wall: 1
        )
        let a = try await h.handle(page: page, body: ["op": "user", "user": "authorize"], wall: 2)
        let payment = a["events"]?.arrayValue?.first?["payment"]
        #expect(payment?["token"]?["paymentMethod"]?["displayName"] == "Visa 7777")
        #expect(payment?["token"]?["paymentData"]?["version"] == "EC_v1")
        // Another page is another engine.
        let other = try await h.handle(
            page: await h.create(client: "10.0.0.1", wall: 2),
            body: ["op": "state"],
            wall: 2
        )
        #expect(other["sessions"] == [])
    }

    @Test func aClientReplacesOnlyItsOwnPagesAndAFullHubTakesFromTheClientWithMost() async throws {
        let h = try hub(capacity: 3, perClient: 2)
        let mine = await h.create(client: "10.0.0.1", wall: 0)
        _ = try await h.handle(page: mine, body: ["op": "configure", "requireUserGesture": false], wall: 0)
        _ = try await h.handle(page: mine, body: ["op": "construct", "version": 3, "request": Self.request], wall: 0)
        // Another client opens pages until its own limit, then beyond it: its own oldest goes.
        let first = await h.create(client: "10.0.0.2", wall: 1)
        let second = await h.create(client: "10.0.0.2", wall: 2)
        let third = await h.create(client: "10.0.0.2", wall: 3)
        #expect(await h.count == 3)
        #expect(try await h.handle(page: mine, body: ["op": "state"], wall: 4)["sessions"] == ["idle"])
        await #expect(throws: ServiceError.self) { _ = try await h.handle(page: first, body: ["op": "state"], wall: 4) }
        _ = try await h.handle(page: second, body: ["op": "state"], wall: 4)
        _ = try await h.handle(page: third, body: ["op": "state"], wall: 5)
        // The hub is full: a third client gets a page, from the client with the most (10.0.0.2's
        // least recently used), and mine, the only page of its client, stays.
        let newcomer = await h.create(client: "10.0.0.3", wall: 5)
        #expect(await h.count == 3)
        await #expect(throws: ServiceError.self) {
            _ = try await h.handle(page: second, body: ["op": "state"], wall: 6)
        }
        _ = try await h.handle(page: third, body: ["op": "state"], wall: 6)
        _ = try await h.handle(page: newcomer, body: ["op": "state"], wall: 6)
        #expect(try await h.handle(page: mine, body: ["op": "state"], wall: 6)["sessions"] == ["idle"])
        // An hour later every page has expired.
        await #expect(throws: ServiceError.self) {
            _ = try await h.handle(page: mine, body: ["op": "state"], wall: 5_000)
        }
        _ = await h.create(client: "10.0.0.3", wall: 5_000)
    }
}
