import Foundation

/// The delegate of ``PKPaymentAuthorizationController``, with every method of PassKit's: the
/// `async` forms, the handler forms of iOS 11 and later, and the completion forms of iOS 8–10
/// that take a ``PKPaymentAuthorizationStatus``. PassKit's optional methods are requirements with
/// defaults here, so a class that implements any one form of each conforms: the sheet calls the
/// `async` form, whose default calls the handler form, whose default calls the completion form.
/// Only ``paymentAuthorizationControllerDidFinish(_:)`` has no default, as in PassKit.
public protocol PKPaymentAuthorizationControllerDelegate: NSObjectProtocol {
    /// The sheet is gone (after a result, a cancel or a timeout): dismiss it.
    func paymentAuthorizationControllerDidFinish(_ controller: PKPaymentAuthorizationController)

    /// The shopper authorized; the token is being made.
    func paymentAuthorizationControllerWillAuthorizePayment(_ controller: PKPaymentAuthorizationController)

    /// The shopper authorized: charge the token and answer.
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment
    ) async -> PKPaymentAuthorizationResult
    /// The shopper authorized (iOS 11 and later).
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment,
        handler completion: @escaping (PKPaymentAuthorizationResult) -> Void
    )
    /// The shopper authorized (iOS 8–10).
    @available(iOS, deprecated: 11.0)
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment,
        completion: @escaping @Sendable (PKPaymentAuthorizationStatus) -> Void
    )

    /// The shopper chose a shipping method.
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingMethod shippingMethod: PKShippingMethod
    ) async -> PKPaymentRequestShippingMethodUpdate
    /// The shopper chose a shipping method (iOS 11 and later).
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingMethod shippingMethod: PKShippingMethod,
        handler completion: @escaping (PKPaymentRequestShippingMethodUpdate) -> Void
    )
    /// The shopper chose a shipping method (iOS 8–10).
    @available(iOS, deprecated: 11.0)
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingMethod shippingMethod: PKShippingMethod,
        completion: @escaping @Sendable (PKPaymentAuthorizationStatus, [PKPaymentSummaryItem]) -> Void
    )

    /// The shopper chose a shipping contact (redacted until authorization).
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact
    ) async -> PKPaymentRequestShippingContactUpdate
    /// The shopper chose a shipping contact (iOS 11 and later).
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact,
        handler completion: @escaping (PKPaymentRequestShippingContactUpdate) -> Void
    )
    /// The shopper chose a shipping contact (iOS 8–10).
    @available(iOS, deprecated: 11.0)
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact,
        completion:
            @escaping @Sendable (PKPaymentAuthorizationStatus, [PKShippingMethod], [PKPaymentSummaryItem]) -> Void
    )

    /// The shopper chose a card.
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectPaymentMethod paymentMethod: PKPaymentMethod
    ) async -> PKPaymentRequestPaymentMethodUpdate
    /// The shopper chose a card (iOS 11 and later).
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectPaymentMethod paymentMethod: PKPaymentMethod,
        handler completion: @escaping (PKPaymentRequestPaymentMethodUpdate) -> Void
    )
    /// The shopper chose a card (iOS 8–10).
    @available(iOS, deprecated: 11.0)
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectPaymentMethod paymentMethod: PKPaymentMethod,
        completion: @escaping @Sendable ([PKPaymentSummaryItem]) -> Void
    )

    /// The sheet needs a new merchant session (iOS 14). The simulated in-app sheet never asks.
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didRequestMerchantSessionUpdate handler: @escaping (PKPaymentRequestMerchantSessionUpdate) -> Void
    )
    /// The same, as Swift imports its `async` form (its name differs, as in PassKit).
    func paymentAuthorizationControllerDidRequestMerchantSessionUpdate(
        controller: PKPaymentAuthorizationController
    ) async -> PKPaymentRequestMerchantSessionUpdate

    /// The shopper entered a coupon code (iOS 15 and later).
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didChangeCouponCode couponCode: String
    ) async -> PKPaymentRequestCouponCodeUpdate
    /// The shopper entered a coupon code (iOS 15 and later).
    func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didChangeCouponCode couponCode: String,
        handler completion: @escaping (PKPaymentRequestCouponCodeUpdate) -> Void
    )
}

extension PKPaymentAuthorizationControllerDelegate {
    public func paymentAuthorizationControllerWillAuthorizePayment(_ controller: PKPaymentAuthorizationController) {}

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didRequestMerchantSessionUpdate handler: @escaping (PKPaymentRequestMerchantSessionUpdate) -> Void
    ) {
        handler(PKPaymentRequestMerchantSessionUpdate(status: .failure, merchantSession: nil))
    }

    public func paymentAuthorizationControllerDidRequestMerchantSessionUpdate(
        controller: PKPaymentAuthorizationController
    ) async -> PKPaymentRequestMerchantSessionUpdate {
        await Completion.awaitHandler(
            never: PKPaymentRequestMerchantSessionUpdate(status: .failure, merchantSession: nil)
        ) {
            handler in self.paymentAuthorizationController(controller, didRequestMerchantSessionUpdate: handler)
        }
    }

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment
    ) async -> PKPaymentAuthorizationResult {
        await Completion.awaitHandler(never: PKPaymentAuthorizationResult.neverCompleted()) { handler in
            self.paymentAuthorizationController(controller, didAuthorizePayment: payment, handler: handler)
        }
    }
    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment,
        handler completion: @escaping (PKPaymentAuthorizationResult) -> Void
    ) {
        paymentAuthorizationController(controller, didAuthorizePayment: payment) {
            (status: PKPaymentAuthorizationStatus) in completion(.legacy(status))
        }
    }
    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didAuthorizePayment payment: PKPayment,
        completion: @escaping @Sendable (PKPaymentAuthorizationStatus) -> Void
    ) {
        // None of the three forms: nothing completes the authorization, as on iOS.
        controller.session?.note(
            "the delegate implements no paymentAuthorizationController(_:didAuthorizePayment:…): the sheet waits for a result"
        )
    }

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingMethod shippingMethod: PKShippingMethod
    ) async -> PKPaymentRequestShippingMethodUpdate {
        await Completion.awaitHandler(never: PKPaymentRequestShippingMethodUpdate.neverCompleted()) { handler in
            self.paymentAuthorizationController(controller, didSelectShippingMethod: shippingMethod, handler: handler)
        }
    }
    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingMethod shippingMethod: PKShippingMethod,
        handler completion: @escaping (PKPaymentRequestShippingMethodUpdate) -> Void
    ) {
        paymentAuthorizationController(controller, didSelectShippingMethod: shippingMethod) {
            (status: PKPaymentAuthorizationStatus, items: [PKPaymentSummaryItem]) in
            completion(.legacy(status, items))
        }
    }
    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingMethod shippingMethod: PKShippingMethod,
        completion: @escaping @Sendable (PKPaymentAuthorizationStatus, [PKPaymentSummaryItem]) -> Void
    ) {
        completion(.success, controller.currentSummaryItems)
    }

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact
    ) async -> PKPaymentRequestShippingContactUpdate {
        await Completion.awaitHandler(never: PKPaymentRequestShippingContactUpdate.neverCompleted()) { handler in
            self.paymentAuthorizationController(controller, didSelectShippingContact: contact, handler: handler)
        }
    }
    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact,
        handler completion: @escaping (PKPaymentRequestShippingContactUpdate) -> Void
    ) {
        paymentAuthorizationController(controller, didSelectShippingContact: contact) {
            (status: PKPaymentAuthorizationStatus, methods: [PKShippingMethod], items: [PKPaymentSummaryItem]) in
            completion(.legacy(status, methods, items))
        }
    }
    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectShippingContact contact: PKContact,
        completion:
            @escaping @Sendable (PKPaymentAuthorizationStatus, [PKShippingMethod], [PKPaymentSummaryItem]) -> Void
    ) {
        completion(.success, controller.currentShippingMethods, controller.currentSummaryItems)
    }

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectPaymentMethod paymentMethod: PKPaymentMethod
    ) async -> PKPaymentRequestPaymentMethodUpdate {
        await Completion.awaitHandler(never: PKPaymentRequestPaymentMethodUpdate.neverCompleted()) { handler in
            self.paymentAuthorizationController(controller, didSelectPaymentMethod: paymentMethod, handler: handler)
        }
    }
    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectPaymentMethod paymentMethod: PKPaymentMethod,
        handler completion: @escaping (PKPaymentRequestPaymentMethodUpdate) -> Void
    ) {
        paymentAuthorizationController(controller, didSelectPaymentMethod: paymentMethod) {
            (items: [PKPaymentSummaryItem]) in
            completion(PKPaymentRequestPaymentMethodUpdate(paymentSummaryItems: items))
        }
    }
    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didSelectPaymentMethod paymentMethod: PKPaymentMethod,
        completion: @escaping @Sendable ([PKPaymentSummaryItem]) -> Void
    ) {
        completion(controller.currentSummaryItems)
    }

    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didChangeCouponCode couponCode: String
    ) async -> PKPaymentRequestCouponCodeUpdate {
        await Completion.awaitHandler(never: PKPaymentRequestCouponCodeUpdate.neverCompleted()) { handler in
            self.paymentAuthorizationController(controller, didChangeCouponCode: couponCode, handler: handler)
        }
    }
    public func paymentAuthorizationController(
        _ controller: PKPaymentAuthorizationController,
        didChangeCouponCode couponCode: String,
        handler completion: @escaping (PKPaymentRequestCouponCodeUpdate) -> Void
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
