import Foundation

/// Turns a delegate's handler into an `async` answer, as Swift's import of PassKit's completion
/// handlers does, and notices a handler that is dropped without being called: the sheet's answer
/// is then `never` (the sheet fails at its deadline, as iOS's stays on "processing" until then).
/// A handler called twice is ignored after the first call.
enum Completion {
    static func awaitHandler<T>(never: T, _ call: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let witness = Witness(continuation: continuation, never: never)
            call { value in witness.resume(value) }
        }
    }

    /// Resumes once: with the handler's value, or with `never` when the handler is released uncalled.
    final class Witness<T>: @unchecked Sendable {
        // `@unchecked`: `continuation` is only touched under `lock` (or in `deinit`, alone); `T` is a
        // PassKit-shaped answer handed once from the delegate to the sheet.
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, Never>?
        private let never: T

        init(continuation: CheckedContinuation<T, Never>, never: T) {
            self.continuation = continuation
            self.never = never
        }

        func resume(_ value: T) {
            lock.lock()
            let pending = continuation
            continuation = nil
            lock.unlock()
            pending?.resume(returning: value)
        }

        deinit { continuation?.resume(returning: never) }
    }
}

extension PKPaymentAuthorizationResult {
    /// A deprecated completion's status as a result.
    static func legacy(_ status: PKPaymentAuthorizationStatus) -> PKPaymentAuthorizationResult {
        let result = PKPaymentAuthorizationResult(status: status, errors: nil)
        result.isLegacy = true
        return result
    }

    /// The answer of a handler that was never called.
    static func neverCompleted() -> PKPaymentAuthorizationResult {
        let result = PKPaymentAuthorizationResult(status: .failure, errors: nil)
        result.neverCompleted = true
        return result
    }
}

extension PKPaymentRequestUpdate {
    /// The answer of a handler that was never called.
    static func neverCompleted() -> Self {
        let update = Self(paymentSummaryItems: [])
        update.neverCompleted = true
        return update
    }
}

extension PKPaymentRequestShippingMethodUpdate {
    static func legacy(_ status: PKPaymentAuthorizationStatus, _ items: [PKPaymentSummaryItem]) -> Self {
        let update = Self(paymentSummaryItems: items)
        update.legacyStatus = status
        return update
    }
}

extension PKPaymentRequestShippingContactUpdate {
    static func legacy(
        _ status: PKPaymentAuthorizationStatus,
        _ methods: [PKShippingMethod],
        _ items: [PKPaymentSummaryItem]
    ) -> Self {
        let update = Self(paymentSummaryItems: items)
        update.legacyStatus = status
        update.legacyShippingMethods = methods
        return update
    }
}
