import Foundation

/// The delegate of ``PKPaymentAuthorizationViewController`` (seed 004's), with every method of PassKit's: the
/// `async` forms, the handler forms of iOS 11 and later, and the completion forms of iOS 8–10
/// that take a ``PKPaymentAuthorizationStatus``. PassKit's optional methods are requirements with
/// defaults here, so a class that implements any one form of each conforms: the sheet calls the
/// `async` form, whose default calls the handler form, whose default calls the completion form.
/// Only ``paymentAuthorizationViewControllerDidFinish(_:)`` has no default, as in PassKit.
public protocol PKPaymentAuthorizationViewControllerDelegate: NSObjectProtocol {
    /// The sheet is gone (after a result, a cancel or a timeout): dismiss it.
    func paymentAuthorizationViewControllerDidFinish(_ controller: PKPaymentAuthorizationViewController)

    /// The shopper authorized; the token is being made.
    func paymentAuthorizationViewControllerWillAuthorizePayment(_ controller: PKPaymentAuthorizationViewController)

    /// The shopper authorized: charge the token and answer.
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didAuthorizePayment payment: PKPayment
    ) async -> PKPaymentAuthorizationResult
    /// The shopper authorized (iOS 11 and later).
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didAuthorizePayment payment: PKPayment,
        handler completion: @escaping @Sendable (PKPaymentAuthorizationResult) -> Void
    )
    /// The shopper authorized (iOS 8–10).
    @available(iOS, deprecated: 11.0)
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didAuthorizePayment payment: PKPayment,
        completion: @escaping @Sendable (PKPaymentAuthorizationStatus) -> Void
    )

    /// The shopper chose a shipping method.
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect shippingMethod: PKShippingMethod
    ) async -> PKPaymentRequestShippingMethodUpdate
    /// The shopper chose a shipping method (iOS 11 and later).
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect shippingMethod: PKShippingMethod,
        handler completion: @escaping @Sendable (PKPaymentRequestShippingMethodUpdate) -> Void
    )
    /// The shopper chose a shipping method (iOS 8–10).
    @available(iOS, deprecated: 11.0)
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect shippingMethod: PKShippingMethod,
        completion: @escaping @Sendable (PKPaymentAuthorizationStatus, [PKPaymentSummaryItem]) -> Void
    )

    /// The shopper chose a shipping contact (redacted until authorization).
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelectShippingContact contact: PKContact
    ) async -> PKPaymentRequestShippingContactUpdate
    /// The shopper chose a shipping contact (iOS 11 and later).
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelectShippingContact contact: PKContact,
        handler completion: @escaping @Sendable (PKPaymentRequestShippingContactUpdate) -> Void
    )
    /// The shopper chose a shipping contact (iOS 8–10).
    @available(iOS, deprecated: 11.0)
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelectShippingContact contact: PKContact,
        completion:
            @escaping @Sendable (PKPaymentAuthorizationStatus, [PKShippingMethod], [PKPaymentSummaryItem]) -> Void
    )

    /// The shopper chose a card.
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect paymentMethod: PKPaymentMethod
    ) async -> PKPaymentRequestPaymentMethodUpdate
    /// The shopper chose a card (iOS 11 and later).
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect paymentMethod: PKPaymentMethod,
        handler completion: @escaping @Sendable (PKPaymentRequestPaymentMethodUpdate) -> Void
    )
    /// The shopper chose a card (iOS 8–10).
    @available(iOS, deprecated: 11.0)
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect paymentMethod: PKPaymentMethod,
        completion: @escaping @Sendable ([PKPaymentSummaryItem]) -> Void
    )

    /// The sheet needs a new merchant session (iOS 14). The simulated in-app sheet never asks.
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didRequestMerchantSessionUpdate handler: @escaping @Sendable (PKPaymentRequestMerchantSessionUpdate) -> Void
    )
    /// The same, as Swift imports its `async` form.
    func paymentAuthorizationViewControllerDidRequestMerchantSessionUpdate(
        controller: PKPaymentAuthorizationViewController
    ) async -> PKPaymentRequestMerchantSessionUpdate

    /// The shopper entered a coupon code (iOS 15 and later).
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didChangeCouponCode couponCode: String
    ) async -> PKPaymentRequestCouponCodeUpdate
    /// The shopper entered a coupon code (iOS 15 and later).
    func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didChangeCouponCode couponCode: String,
        handler completion: @escaping @Sendable (PKPaymentRequestCouponCodeUpdate) -> Void
    )
}

extension PKPaymentAuthorizationViewControllerDelegate {
    public func paymentAuthorizationViewControllerWillAuthorizePayment(
        _ controller: PKPaymentAuthorizationViewController
    ) {}

    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didRequestMerchantSessionUpdate handler: @escaping @Sendable (PKPaymentRequestMerchantSessionUpdate) -> Void
    ) {
        handler(PKPaymentRequestMerchantSessionUpdate(status: .failure, merchantSession: nil))
    }

    public func paymentAuthorizationViewControllerDidRequestMerchantSessionUpdate(
        controller: PKPaymentAuthorizationViewController
    ) async -> PKPaymentRequestMerchantSessionUpdate {
        await Completion.awaitHandler(
            never: PKPaymentRequestMerchantSessionUpdate(status: .failure, merchantSession: nil)
        ) {
            handler in self.paymentAuthorizationViewController(controller, didRequestMerchantSessionUpdate: handler)
        }
    }

    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didAuthorizePayment payment: PKPayment
    ) async -> PKPaymentAuthorizationResult {
        await Completion.awaitHandler(never: PKPaymentAuthorizationResult.neverCompleted()) { handler in
            self.paymentAuthorizationViewController(controller, didAuthorizePayment: payment, handler: handler)
        }
    }
    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didAuthorizePayment payment: PKPayment,
        handler completion: @escaping @Sendable (PKPaymentAuthorizationResult) -> Void
    ) {
        paymentAuthorizationViewController(controller, didAuthorizePayment: payment) {
            (status: PKPaymentAuthorizationStatus) in completion(.legacy(status))
        }
    }
    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didAuthorizePayment payment: PKPayment,
        completion: @escaping @Sendable (PKPaymentAuthorizationStatus) -> Void
    ) {
        // None of the three forms: nothing completes the authorization, as on iOS.
        controller.session?.note(
            "the delegate implements no paymentAuthorizationViewController(_:didAuthorizePayment:…): the sheet waits for a result"
        )
    }

    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect shippingMethod: PKShippingMethod
    ) async -> PKPaymentRequestShippingMethodUpdate {
        await Completion.awaitHandler(never: PKPaymentRequestShippingMethodUpdate.neverCompleted()) { handler in
            self.paymentAuthorizationViewController(controller, didSelect: shippingMethod, handler: handler)
        }
    }
    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect shippingMethod: PKShippingMethod,
        handler completion: @escaping @Sendable (PKPaymentRequestShippingMethodUpdate) -> Void
    ) {
        paymentAuthorizationViewController(controller, didSelect: shippingMethod) {
            (status: PKPaymentAuthorizationStatus, items: [PKPaymentSummaryItem]) in
            completion(.legacy(status, items))
        }
    }
    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect shippingMethod: PKShippingMethod,
        completion: @escaping @Sendable (PKPaymentAuthorizationStatus, [PKPaymentSummaryItem]) -> Void
    ) {
        completion(.success, controller.currentSummaryItems)
    }

    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelectShippingContact contact: PKContact
    ) async -> PKPaymentRequestShippingContactUpdate {
        await Completion.awaitHandler(never: PKPaymentRequestShippingContactUpdate.neverCompleted()) { handler in
            self.paymentAuthorizationViewController(controller, didSelectShippingContact: contact, handler: handler)
        }
    }
    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelectShippingContact contact: PKContact,
        handler completion: @escaping @Sendable (PKPaymentRequestShippingContactUpdate) -> Void
    ) {
        paymentAuthorizationViewController(controller, didSelectShippingContact: contact) {
            (status: PKPaymentAuthorizationStatus, methods: [PKShippingMethod], items: [PKPaymentSummaryItem]) in
            completion(.legacy(status, methods, items))
        }
    }
    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelectShippingContact contact: PKContact,
        completion:
            @escaping @Sendable (PKPaymentAuthorizationStatus, [PKShippingMethod], [PKPaymentSummaryItem]) -> Void
    ) {
        completion(.success, controller.currentShippingMethods, controller.currentSummaryItems)
    }

    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect paymentMethod: PKPaymentMethod
    ) async -> PKPaymentRequestPaymentMethodUpdate {
        await Completion.awaitHandler(never: PKPaymentRequestPaymentMethodUpdate.neverCompleted()) { handler in
            self.paymentAuthorizationViewController(controller, didSelect: paymentMethod, handler: handler)
        }
    }
    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect paymentMethod: PKPaymentMethod,
        handler completion: @escaping @Sendable (PKPaymentRequestPaymentMethodUpdate) -> Void
    ) {
        paymentAuthorizationViewController(controller, didSelect: paymentMethod) {
            (items: [PKPaymentSummaryItem]) in
            completion(PKPaymentRequestPaymentMethodUpdate(paymentSummaryItems: items))
        }
    }
    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didSelect paymentMethod: PKPaymentMethod,
        completion: @escaping @Sendable ([PKPaymentSummaryItem]) -> Void
    ) {
        completion(controller.currentSummaryItems)
    }

    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didChangeCouponCode couponCode: String
    ) async -> PKPaymentRequestCouponCodeUpdate {
        await Completion.awaitHandler(never: PKPaymentRequestCouponCodeUpdate.neverCompleted()) { handler in
            self.paymentAuthorizationViewController(controller, didChangeCouponCode: couponCode, handler: handler)
        }
    }
    public func paymentAuthorizationViewController(
        _ controller: PKPaymentAuthorizationViewController,
        didChangeCouponCode couponCode: String,
        handler completion: @escaping @Sendable (PKPaymentRequestCouponCodeUpdate) -> Void
    ) {
        completion(
            PKPaymentRequestCouponCodeUpdate(
                errors: nil,
                paymentSummaryItems: controller.currentSummaryItems,
                shippingMethods: controller.currentShippingMethods
            )
        )
    }
}
