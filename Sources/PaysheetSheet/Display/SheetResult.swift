/// How the sheet closed, as its snapshot reports it (`result`).
enum SheetResult: String, Sendable, Hashable {
    /// The page completed the payment with `STATUS_SUCCESS`.
    case success
    /// The page completed the payment with a failure the sheet does not stay open for.
    case failure
    /// The page called `abort()`.
    case aborted
    /// The user, the wallet or the page's own request canceled the payment.
    case canceled
    /// The page did not complete an event within its deadline.
    case timedOut
}
