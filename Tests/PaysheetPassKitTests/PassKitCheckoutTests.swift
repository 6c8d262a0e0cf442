import Foundation
import PaysheetModel
import PaysheetSheet
import PaysheetSheetTokens
import PaysheetToken
import Testing

@testable import PaysheetPassKit

/// Seed 004's store, written as iOS app code: the DJI items with the student discount, the two
/// couriers, the deprecated completion forms of iOS 8–10.
final class SeedStoreCheckout: NSObject, PKPaymentAuthorizationViewControllerDelegate, @unchecked Sendable {
    let items: [PKPaymentSummaryItem]
    let methods: [PKShippingMethod]
    var contacts: [PKContact] = []
    var finished = 0
    var authorized: PKPayment?

    init(items: [PKPaymentSummaryItem], methods: [PKShippingMethod]) {
        self.items = items
        self.methods = methods
    }

    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect paymentMethod: PKPaymentMethod,
        completion: @escaping ([PKPaymentSummaryItem]) -> Void
    ) {
        completion(items)
    }

    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelectShippingContact contact: PKContact,
        completion: @escaping (PKPaymentAuthorizationStatus, [PKShippingMethod], [PKPaymentSummaryItem]) -> Void
    ) {
        contacts.append(contact)
        completion(.success, methods, items)
    }

    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect shippingMethod: PKShippingMethod,
        completion: @escaping (PKPaymentAuthorizationStatus, [PKPaymentSummaryItem]) -> Void
    ) {
        completion(.success, items)
    }

    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didAuthorizePayment payment: PKPayment,
        completion: @escaping (PKPaymentAuthorizationStatus) -> Void
    ) {
        authorized = payment
        completion(.success)
    }

    func paymentAuthorizationViewControllerDidFinish(_ controller: PKPaymentAuthorizationViewController) {
        finished += 1
    }
}

/// A checkout of today's SDK: handler forms, errors, a coupon.
final class ModernCheckout: NSObject, PKPaymentAuthorizationControllerDelegate, @unchecked Sendable {
    var items: [PKPaymentSummaryItem]
    var shippingError: Error?
    var keepHandlerForever = false
    var dropAuthorizationHandler = false
    var kept: [Any] = []
    var calls: [String] = []
    var finished = 0

    init(items: [PKPaymentSummaryItem]) { self.items = items }

    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact,
        handler completion: @escaping (PKPaymentRequestShippingContactUpdate) -> Void
    ) {
        calls.append("contact \(contact.postalAddress?.isoCountryCode ?? "")")
        completion(
            PKPaymentRequestShippingContactUpdate(
                errors: shippingError.map { [$0] },
                paymentSummaryItems: items,
                shippingMethods: []
            )
        )
    }

    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didChangeCouponCode couponCode: String,
        handler completion: @escaping (PKPaymentRequestCouponCodeUpdate) -> Void
    ) {
        calls.append("coupon \(couponCode)")
        if couponCode == "WELCOME10" {
            let discount = PKPaymentSummaryItem(label: "Coupon", amount: NSDecimalNumber(string: "-1.00"))
            items = [
                items[0], discount, PKPaymentSummaryItem(label: "Tea Shop", amount: NSDecimalNumber(string: "9.00")),
            ]
            completion(PKPaymentRequestCouponCodeUpdate(errors: nil, paymentSummaryItems: items, shippingMethods: []))
        } else {
            completion(
                PKPaymentRequestCouponCodeUpdate(
                    errors: [PKPaymentRequest.paymentCouponCodeInvalidError(localizedDescription: "No such code")],
                    paymentSummaryItems: items,
                    shippingMethods: []
                )
            )
        }
    }

    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment,
        handler completion: @escaping (PKPaymentAuthorizationResult) -> Void
    ) {
        calls.append("authorize")
        if dropAuthorizationHandler { return }  // never called: the sheet stays on "processing"
        if keepHandlerForever {
            kept.append(completion)
            return
        }
        completion(PKPaymentAuthorizationResult(status: .success, errors: nil))
    }

    func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController) { finished += 1 }
}

@Suite(.serialized) struct PassKitCheckoutTests {
    let folder = NSTemporaryDirectory() + "paysheet-passkit-" + UUID().uuidString

    init() {
        PaysheetSimulator.shared.reset()
        PaysheetSimulator.shared.dataFolder = folder
    }

    static func seedRequest() -> (PKPaymentRequest, [PKPaymentSummaryItem], [PKShippingMethod]) {
        let prices = [9888.0, 230.0, 200.0, 150.0, 233.0, 33.0, -1800.0]
        let labels = ["DJI精灵4无人机主机", "DJI精灵4智能电池", "DJI精灵4螺旋桨", "DJI精灵4旅行背包", "DJI精灵4第二手柄", "DJI精灵4云台盖", "大学生折扣价"]
        var items = zip(labels, prices).map { PKPaymentSummaryItem(label: $0, amount: NSDecimalNumber(value: $1)) }
        items.append(PKPaymentSummaryItem(label: "DJI官方旗舰店", amount: NSDecimalNumber(value: prices.reduce(0, +))))
        let method1 = PKShippingMethod(label: "韵达快递", amount: NSDecimalNumber(value: 0.0))
        method1.detail = "送货上门"
        method1.identifier = "yundakuaidi"
        let method2 = PKShippingMethod(label: "顺风快递", amount: NSDecimalNumber(value: 18.0))
        method2.detail = "24小时"
        method2.identifier = "shunfengkuaidi"
        let request = PKPaymentRequest()
        request.merchantIdentifier = "merchant.dev.paysheet.sandbox"
        request.countryCode = "CN"
        request.currencyCode = "CNY"
        request.supportedNetworks = [.chinaUnionPay, .visa, .masterCard]
        request.merchantCapabilities = [.capability3DS, .capabilityEMV]
        request.paymentSummaryItems = items
        request.requiredBillingAddressFields = .all
        request.requiredShippingAddressFields = .all
        request.shippingMethods = [method1, method2]
        request.shippingType = .storePickup
        request.applicationData = "BuyID=123456789".data(using: .utf8)
        return (request, items, [method1, method2])
    }

    @Test func seedFoursStorePaysWithARealTokenThroughTheDeprecatedCompletions() async throws {
        #expect(PKPaymentAuthorizationViewController.canMakePayments())
        #expect(
            PKPaymentAuthorizationViewController.canMakePayments(usingNetworks: [.chinaUnionPay, .visa, .masterCard])
        )
        let (request, items, methods) = Self.seedRequest()
        PaysheetSimulator.shared.shopper = [.selectShippingMethod("shunfengkuaidi"), .authorize]
        let checkout = SeedStoreCheckout(items: items, methods: methods)
        let avc = try #require(PKPaymentAuthorizationViewController(paymentRequest: request))
        avc.delegate = checkout
        let host = PaysheetHostViewController()
        host.present(avc, animated: true, completion: nil)
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        #expect(session.outcome == .paid, "\(session.log) \(session.snapshot.compactText)")
        #expect(checkout.finished == 1)
        #expect(session.delegateCalls.first == "didSelectPaymentMethod")
        #expect(session.delegateCalls.contains("didSelectShippingMethod"))
        #expect(session.delegateCalls.last == "paymentAuthorizationViewControllerDidFinish")

        // Before authorization the contact was redacted; after it, the payment carries it whole.
        let before = try #require(checkout.contacts.first)
        #expect(before.name == nil)
        #expect(before.postalAddress?.street == "")
        let payment = try #require(checkout.authorized)
        #expect(payment.shippingContact?.postalAddress?.street.isEmpty == false)
        #expect(payment.shippingMethod?.identifier == "shunfengkuaidi")
        #expect(payment.token.paymentMethod.network == .visa)

        // The token is real: it decrypts with the data folder's merchant key under its sandbox CA.
        let key = try SandboxMerchant.loadOrCreate(dataFolder: folder, merchantIdentifier: request.merchantIdentifier)
        let decryptor = PaymentTokenDecryptor(
            keys: MerchantKeyring([key]),
            verifier: PaymentTokenVerifier(trust: try SandboxMerchant.pki(dataFolder: folder).trustAnchors),
            replayGuard: nil
        )
        let decrypted = try await decryptor.decrypt(json: Array(payment.token.paymentData))
        #expect(decrypted.paymentData.currencyCode == "156")
        // The seed's delegate keeps its summary whatever the courier: the sheet charges what it shows.
        #expect(decrypted.paymentData.transactionAmount == 893_400)
        #expect(String(decoding: payment.token.paymentData, as: UTF8.self).contains("EC_v1"))
    }

    @Test func errorsShowOnTheSheetAndACouponChangesTheTotal() async throws {
        let request = PKPaymentRequest()
        request.merchantIdentifier = "merchant.dev.paysheet.sandbox"
        request.countryCode = "US"
        request.currencyCode = "USD"
        request.supportedNetworks = [.visa]
        request.merchantCapabilities = .capability3DS
        request.requiredShippingContactFields = [.postalAddress, .name]
        request.supportsCouponCode = true
        let tea = PKPaymentSummaryItem(label: "Tea", amount: NSDecimalNumber(string: "10.00"))
        request.paymentSummaryItems = [
            tea, PKPaymentSummaryItem(label: "Tea Shop", amount: NSDecimalNumber(string: "10.00")),
        ]
        let checkout = ModernCheckout(items: request.paymentSummaryItems)
        checkout.shippingError = PKPaymentRequest.paymentShippingAddressInvalidError(
            withKey: CNPostalAddressPostalCodeKey,
            localizedDescription: "We do not deliver to this ZIP code"
        )
        PaysheetSimulator.shared.shopper = [.enterCouponCode("NOPE"), .enterCouponCode("WELCOME10"), .cancel]
        let controller = PKPaymentAuthorizationController(paymentRequest: request)
        controller.delegate = checkout
        #expect(await controller.present())
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        let shown = session.snapshot.compactText
        #expect(shown.contains("We do not deliver to this ZIP code"), "\(shown)")
        #expect(checkout.calls.contains("coupon NOPE") && checkout.calls.contains("coupon WELCOME10"))
        #expect(shown.contains("9.00"), "\(shown)")
        #expect(session.outcome == .canceled)
        #expect(checkout.finished == 1)

        let error = try #require(checkout.shippingError as? PKPaymentError)
        #expect(error.code == .shippingContactInvalidError)
        #expect(error.errorCode == 1)
        #expect(type(of: error).errorDomain == PKPaymentErrorDomain)
        #expect(
            error.userInfo[PKPaymentErrorKey.postalAddressUserInfoKey.rawValue] as? String
                == CNPostalAddressPostalCodeKey
        )
    }

    @Test func aHandlerNeverCalledFailsTheSheetAtItsDeadline() async throws {
        let (request, items, _) = Self.seedRequest()
        request.requiredShippingContactFields = []
        request.requiredBillingContactFields = []
        request.shippingMethods = nil
        let checkout = ModernCheckout(items: items)
        checkout.dropAuthorizationHandler = true
        let controller = PKPaymentAuthorizationController(paymentRequest: request)
        controller.delegate = checkout
        #expect(await controller.present())
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        #expect(session.outcome != .paid)
        #expect(session.log.contains { $0.contains("never called") }, "\(session.log)")
        #expect(checkout.finished == 1)

        // A handler kept and never called: the sheet gives up after the completion deadline.
        PaysheetSimulator.shared.completionTimeout = 0.2
        let kept = ModernCheckout(items: items)
        kept.keepHandlerForever = true
        let second = PKPaymentAuthorizationController(paymentRequest: request)
        second.delegate = kept
        #expect(await second.present())
        let secondSession = try #require(await PaysheetSimulator.shared.finishedSession())
        #expect(secondSession.outcome != .paid)
        #expect(kept.finished == 1)
    }

    @Test func iOSRefusesWhatItRefusesAndTheWalletDecidesCanMakePayments() async throws {
        let (request, _, _) = Self.seedRequest()
        request.merchantCapabilities = .capabilityEMV  // no 3DS
        #expect(PKPaymentAuthorizationViewController(paymentRequest: request) == nil)
        #expect(PaysheetSimulator.shared.log.last?.contains("capability3DS") == true)
        let controller = PKPaymentAuthorizationController(paymentRequest: request)
        #expect(await controller.present() == false)

        let bad = Self.seedRequest().0
        bad.currencyCode = "XYZ1"
        #expect(await PKPaymentAuthorizationController(paymentRequest: bad).present() == false)
        #expect(PaysheetSimulator.shared.log.last?.contains("not valid") == true, "\(PaysheetSimulator.shared.log)")

        // Seed 004's "set up" path: no card of these networks.
        PaysheetSimulator.shared.wallet = Wallet(cards: [
            WalletCard(network: "amex", type: .credit, displayName: "Amex 1005")
        ])
        #expect(
            !PKPaymentAuthorizationViewController.canMakePayments(usingNetworks: [.chinaUnionPay, .visa, .masterCard])
        )
        #expect(PKPaymentAuthorizationController.canMakePayments(usingNetworks: [.amex]))
        #expect(
            !PKPaymentAuthorizationController.canMakePayments(usingNetworks: [.amex], capabilities: .capabilityDebit)
        )
        let button = PKPaymentButton(paymentButtonType: .setUp, paymentButtonStyle: .whiteOutline)
        #expect(button.paymentButtonType == .setUp)
        PKPassLibrary().openPaymentSetup()
        #expect(PaysheetSimulator.shared.events == ["PKPassLibrary.openPaymentSetup"])
    }
}

/// The deprecated completions' statuses, shown as seed 000's table says.
final class LegacyStatusCheckout: NSObject, PKPaymentAuthorizationControllerDelegate, @unchecked Sendable {
    let contactStatus: PKPaymentAuthorizationStatus
    let paymentStatus: PKPaymentAuthorizationStatus
    var contactCalls = 0

    init(contactStatus: PKPaymentAuthorizationStatus, paymentStatus: PKPaymentAuthorizationStatus) {
        self.contactStatus = contactStatus
        self.paymentStatus = paymentStatus
    }

    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact,
        completion: @escaping (PKPaymentAuthorizationStatus, [PKShippingMethod], [PKPaymentSummaryItem]) -> Void
    ) {
        contactCalls += 1
        completion(contactStatus, [], controller.session?.request.paymentSummaryItems ?? [])
    }

    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment,
        completion: @escaping (PKPaymentAuthorizationStatus) -> Void
    ) {
        completion(paymentStatus)
    }

    func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController) {}
}

extension PassKitCheckoutTests {
    func legacyRequest() -> PKPaymentRequest {
        let request = PKPaymentRequest()
        request.merchantIdentifier = "merchant.dev.paysheet.sandbox"
        request.countryCode = "US"
        request.currencyCode = "USD"
        request.supportedNetworks = [.visa]
        request.merchantCapabilities = .capability3DS
        request.requiredShippingContactFields = [.postalAddress]
        request.paymentSummaryItems = [PKPaymentSummaryItem(label: "Tea Shop", amount: NSDecimalNumber(string: "5.00"))]
        return request
    }

    @Test func aDeprecatedStatusInAShippingContactCompletionIsAnErrorOnTheSheet() async throws {
        PaysheetSimulator.shared.shopper = [.cancel]
        let checkout = LegacyStatusCheckout(contactStatus: .invalidShippingPostalAddress, paymentStatus: .success)
        let controller = PKPaymentAuthorizationController(paymentRequest: legacyRequest())
        controller.delegate = checkout
        #expect(await controller.present())
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        let shown = session.shown.map(\.compactText).joined(separator: "\n")
        #expect(checkout.contactCalls == 1)
        // The sheet engine maps a status as WebKit maps the legacy completions (status 3 is a
        // shippingContactInvalid error on the postal address, which the sheet shows as
        // "Verify Contact Information"); authorizing waits for a new contact.
        #expect(shown.contains("Verify Contact Information"), "\(session.delegateCalls) \(session.log)")
        #expect(shown.contains("\"canAuthorize\":false"))
    }

    @Test func aDeprecatedFailureStatusOfTheAuthorizationIsNotAPayment() async throws {
        let checkout = LegacyStatusCheckout(contactStatus: .success, paymentStatus: .failure)
        let controller = PKPaymentAuthorizationController(paymentRequest: legacyRequest())
        controller.delegate = checkout
        #expect(await controller.present())
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        #expect(session.outcome == .failed, "\(session.snapshot.compactText)")
    }
}

/// Today's Swift: the `async` forms.
final class AsyncCheckout: NSObject, PKPaymentAuthorizationControllerDelegate, @unchecked Sendable {
    var seen: [String] = []
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact
    ) async -> PKPaymentRequestShippingContactUpdate {
        seen.append("contact")
        return PKPaymentRequestShippingContactUpdate(
            errors: [
                PKPaymentRequest.paymentContactInvalidError(
                    withContactField: .phoneNumber,
                    localizedDescription: "Call us?"
                )
            ],
            paymentSummaryItems: controller.session?.request.paymentSummaryItems ?? [],
            shippingMethods: []
        )
    }
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment
    ) async -> PKPaymentAuthorizationResult {
        seen.append("authorize")
        return PKPaymentAuthorizationResult(status: .success, errors: nil)
    }
    func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController) {
        seen.append("finish")
    }
}

/// The view controller's handler forms of iOS 11 and later.
final class HandlerViewCheckout: NSObject, PKPaymentAuthorizationViewControllerDelegate, @unchecked Sendable {
    var seen: [String] = []
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect paymentMethod: PKPaymentMethod,
        handler completion: @escaping (PKPaymentRequestPaymentMethodUpdate) -> Void
    ) {
        seen.append("method \(paymentMethod.type == .credit ? "credit" : "other")")
        completion(
            PKPaymentRequestPaymentMethodUpdate(
                errors: nil,
                paymentSummaryItems: controller.session?.request.paymentSummaryItems ?? []
            )
        )
    }
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didAuthorizePayment payment: PKPayment,
        handler completion: @escaping (PKPaymentAuthorizationResult) -> Void
    ) {
        seen.append("authorize")
        completion(PKPaymentAuthorizationResult(status: .success, errors: nil))
    }
    func paymentAuthorizationViewControllerDidFinish(_ controller: PKPaymentAuthorizationViewController) {
        seen.append("finish")
    }
}

extension PassKitCheckoutTests {
    @Test func theAsyncFormsAreCalledAndAContactErrorShows() async throws {
        let request = legacyRequest()
        request.requiredShippingContactFields = [.postalAddress, .phoneNumber]
        PaysheetSimulator.shared.shopper = [.editShippingContact(Wallet.default.shippingContacts[0]), .cancel]
        let checkout = AsyncCheckout()
        let controller = PKPaymentAuthorizationController(paymentRequest: request)
        controller.delegate = checkout
        #expect(await controller.present())
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        #expect(checkout.seen.first == "contact")
        #expect(checkout.seen.last == "finish")
        #expect(
            session.shown.contains { $0.compactText.contains("Call us?") },
            "\(session.shown.last?.compactText ?? "")"
        )
    }

    @Test func theViewControllersHandlerFormsPayWithAnRSAToken() async throws {
        PaysheetSimulator.shared.tokenFormat = .rsaV1
        let request = legacyRequest()
        let checkout = HandlerViewCheckout()
        let avc = try #require(PKPaymentAuthorizationViewController(paymentRequest: request))
        avc.delegate = checkout
        #expect(await avc.paysheetPresent())
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        #expect(session.outcome == .paid)
        #expect(checkout.seen == ["method credit", "authorize", "finish"])
        let payment = try #require(session.payment)
        #expect(String(decoding: payment.token.paymentData, as: UTF8.self).contains("RSA_v1"))
        let key = try SandboxMerchant.loadOrCreate(
            dataFolder: folder,
            merchantIdentifier: request.merchantIdentifier,
            keyType: .rsa
        )
        let decryptor = PaymentTokenDecryptor(
            keys: MerchantKeyring([key]),
            verifier: PaymentTokenVerifier(trust: try SandboxMerchant.pki(dataFolder: folder).trustAnchors),
            replayGuard: nil
        )
        let decrypted = try await decryptor.decrypt(json: Array(payment.token.paymentData))
        #expect(decrypted.paymentData.transactionAmount == 500)
    }
}

extension PassKitCheckoutTests {
    @Test(arguments: [
        (PKPaymentAuthorizationStatus.pinRequired, "PIN Required"), (.pinIncorrect, "Incorrect PIN"),
        (.pinLockout, "PIN Locked"),
    ])
    func thePINStatusesShowAsTheSheetShowsThem(status: PKPaymentAuthorizationStatus, shown: String) async throws {
        let checkout = LegacyStatusCheckout(contactStatus: .success, paymentStatus: status)
        let controller = PKPaymentAuthorizationController(paymentRequest: legacyRequest())
        controller.delegate = checkout
        #expect(await controller.present())
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        let after = session.shownAfter.last { $0.cause == "completePayment" }?.sheet
        #expect(after?["status"]?.stringValue == shown, "\(after?.compactText ?? "")")
        #expect(session.outcome != .paid)
    }
}
