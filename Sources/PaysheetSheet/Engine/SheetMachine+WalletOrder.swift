import PaysheetModel

/// Orders in Wallet: the order details of a payment completed with `STATUS_SUCCESS`
/// (`ApplePayPaymentAuthorizationResult.orderDetails`, or the Payment Request API's
/// `PaymentResponse.complete(result, {data: {orderDetails}})`) are kept with the sheet that took
/// the payment. The machine does no I/O: its driver fetches and checks the order and records the
/// verdict here, which the snapshot's `order` member then reports.
extension SheetMachine {
    /// The order details of the payment the last sheet took (`nil`: none, or not paid).
    public var walletOrder: ApplePayPaymentOrderDetails? { sheet?.walletOrder?.details }

    /// What the driver found of ``walletOrder`` (`nil` until it has checked it).
    public var walletOrderVerdict: WalletOrderVerdict? { sheet?.walletOrder?.verdict }

    /// Records the driver's `verdict` on the order `details`; `false` (nothing recorded) when the
    /// sheet's order is no longer those details (another payment came meanwhile).
    @discardableResult
    public mutating func recordWalletOrderVerdict(
        _ verdict: WalletOrderVerdict,
        for details: ApplePayPaymentOrderDetails
    ) -> Bool {
        guard sheet?.walletOrder?.details == details else { return false }
        sheet?.walletOrder?.verdict = verdict
        return true
    }

    /// Keeps `details` with the sheet of the payment they complete: Wallet takes an order only
    /// from a successful payment (PassKit: "only if the status is success").
    mutating func keepWalletOrder(_ details: ApplePayPaymentOrderDetails?, paid: Bool) {
        guard paid, let details else { return }
        sheet?.walletOrder = SheetWalletOrder(details: details, verdict: nil)
    }
}
