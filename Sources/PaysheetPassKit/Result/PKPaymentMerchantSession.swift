import Foundation

// `@unchecked Sendable` (the classes below): they are `open`, as PassKit's are (apps subclass
// them), and an open class cannot be checked `Sendable`. Like Apple's they are not synchronized:
// the app hands them to the sheet and does not change them while the sheet has them.

/// A merchant session from Apple's session endpoint (`PKPaymentMerchantSession`), for a sheet that
/// asks for one anew (`didRequestMerchantSessionUpdate`). The simulated in-app sheet never asks.
open class PKPaymentMerchantSession: NSObject, @unchecked Sendable {
    /// The session object as the endpoint answered it.
    public let dictionary: [AnyHashable: Any]

    public init(dictionary: [AnyHashable: Any]) {
        self.dictionary = dictionary
        super.init()
    }
}

/// The answer to a request for a new merchant session (`PKPaymentRequestMerchantSessionUpdate`).
open class PKPaymentRequestMerchantSessionUpdate: NSObject, @unchecked Sendable {
    open var status: PKPaymentAuthorizationStatus
    open var session: PKPaymentMerchantSession?

    public init(status: PKPaymentAuthorizationStatus, merchantSession session: PKPaymentMerchantSession?) {
        self.status = status
        self.session = session
        super.init()
    }
}
