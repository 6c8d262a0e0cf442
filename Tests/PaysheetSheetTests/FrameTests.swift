import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// Safari's rules for payments started from a frame (`PaymentSession::canCreateSession`), on the
/// engine without a browser: which APIs they guard, which exception each case gets, per profile.
@Suite struct FrameTests {
    static let request: JSONValue = [
        "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa"],
        "merchantCapabilities": ["supports3DS"], "total": ["label": "Shop", "amount": "1.00"],
    ]
    static let third =
        "Third-party iframes are not allowed to request payments unless explicitly allowed via Feature-Policy (payment)"
    static let insecure = "Trying to start an Apple Pay session from an insecure document."
    static let insecureParent = "Trying to start an Apple Pay session from a document with an insecure parent frame."
    static let otherOrigin =
        "Trying to start an Apple Pay session from a document with an different security origin than its top-level frame."

    func machine(_ origins: [String?], allowed: Bool?, profile: SafariProfile = .current) -> SheetMachine {
        var c = SheetConfiguration(profile: profile)
        c.frame = FrameContext(origins: origins, paymentAllowed: allowed)
        return SheetMachine(configuration: c)
    }

    func threw(_ r: PageResult) -> [String]? { r.threw.map { [$0.name.rawValue, $0.message] } }

    @Test func everyGuardedAPIRefusesACrossOriginFrameWithoutThePolicy() {
        var m = machine(["https://pay.example", "https://shop.example"], allowed: false)
        let want = ["SecurityError", Self.third]
        #expect(threw(m.construct(version: 3, request: Self.request)) == want)
        #expect(threw(m.supportsVersion(3)) == want)
        #expect(threw(m.canMakePayments()) == want)
        #expect(threw(m.canMakePaymentsWithActiveCard()) == want)
        #expect(threw(m.openPaymentSetup(userGesture: true)) == want)
        #expect(threw(m.getSetupFeatures(configuration: .object([:]))) == want)
        #expect(threw(m.beginSetup(configuration: .object([:]), features: nil, userGesture: true)) == want)
        #expect(m.sessionCount == 0)
        // supportsVersion(0) is refused before the frame is looked at, as in WebKit.
        #expect(threw(m.supportsVersion(0))?.first == "InvalidAccessError")
        // ApplePayError is not guarded.
        #expect(m.makeError(arguments: [.string("unknown")]).threw == nil)
    }

    @Test func thePaymentRequestConstructorRefusesWithASecurityErrorAfterConvertingItsArguments() {
        var m = machine(["http://shop.example"], allowed: true)
        let methods: JSONValue = [["supportedMethods": "https://apple.com/apple-pay", "data": ["version": 3]]]
        let details: JSONValue = ["total": ["label": "Shop", "amount": ["currency": "USD", "value": "1.00"]]]
        #expect(
            threw(m.constructPaymentRequest(methodData: methods, details: details, options: nil)) == [
                "SecurityError", Self.insecure,
            ]
        )
        // A conversion error comes first.
        #expect(
            threw(m.constructPaymentRequest(methodData: methods, details: .number("4"), options: nil))?.first
                == "TypeError"
        )
        #expect(m.paymentRequestCount == 0)
    }

    @Test func allowedFramesMayPay() {
        // A cross-origin frame with allow="payment", a same-origin frame, and a page on loopback HTTP.
        for (origins, allowed) in [
            (["https://pay.example", "https://shop.example"], true),
            (["https://shop.example", "https://shop.example"], true),
            (["http://127.0.0.1:8080"], nil), (["http://localhost:1"], true), (["http://[::1]:9"], true),
            (["https://pay.example", nil], nil),
        ] as [([String?], Bool?)] {
            var m = machine(origins, allowed: allowed)
            #expect(m.construct(version: 3, request: Self.request).threw == nil, "\(origins)")
            #expect(m.canMakePayments().threw == nil)
        }
    }

    @Test func insecureDocumentsAndParents() {
        for (origins, want) in [
            (["http://shop.example"], Self.insecure), (["http://127.0.0.1.example"], Self.insecure),
            (["http://localhost.evil.example"], Self.insecure), (["file://"], Self.insecure),
            (["https://pay.example", "http://shop.example"], Self.insecureParent),
            (["https://pay.example", "http://mid.example", "https://shop.example"], Self.insecureParent),
        ] {
            var m = machine(origins, allowed: true)
            #expect(
                threw(m.construct(version: 3, request: Self.request)) == ["InvalidAccessError", want],
                "\(origins)"
            )
        }
        // The permissions policy is checked first.
        let m = machine(["http://pay.example", "https://shop.example"], allowed: false)
        #expect(threw(m.canMakePayments())?.first == "SecurityError")
    }

    @Test func safariElevenToFourteenRefusedEveryOtherOrigin() {
        for profile in [SafariProfile.safari14, .safari12] {
            // allow="payment" did not exist: the policy is not looked at, the origin is.
            var m = machine(["https://pay.example", "https://shop.example"], allowed: true, profile: profile)
            #expect(threw(m.construct(version: 3, request: Self.request)) == ["InvalidAccessError", Self.otherOrigin])
            m = machine(["https://shop.example", "https://shop.example"], allowed: false, profile: profile)
            #expect(m.construct(version: 3, request: Self.request).threw == nil)
            m = machine(
                ["https://shop.example", "http://shop.example:81", "https://shop.example"],
                allowed: true,
                profile: profile
            )
            #expect(threw(m.canMakePayments()) == ["InvalidAccessError", Self.insecureParent])
            m = machine(
                ["https://shop.example", "https://cdn.example", "https://shop.example"],
                allowed: true,
                profile: profile
            )
            #expect(threw(m.canMakePayments()) == ["InvalidAccessError", Self.otherOrigin])
        }
    }

    @Test func thePageDescriptionIsReadStrictly() {
        #expect(
            FrameContext(json: ["origins": ["https://a.example", .null], "paymentAllowed": .null])
                == FrameContext(origins: ["https://a.example", nil], paymentAllowed: nil)
        )
        #expect(FrameContext(json: ["origins": []]) == nil)
        #expect(FrameContext(json: ["origins": [4]]) == nil)
        #expect(FrameContext(json: ["origins": ["https://a.example"], "paymentAllowed": "yes"]) == nil)
        #expect(FrameContext(json: .string("top")) == nil)
        let c = FrameContext(origins: ["https://a.example", nil], paymentAllowed: false)
        #expect(FrameContext(json: c.jsonValue) == c)
    }
}
