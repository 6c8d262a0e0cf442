import Foundation

extension AgreementLifecycle {
    /// How many applied lifecycle events an agreement remembers (their ids), for replays.
    public static let keptTokenEvents = 16

    /// What a lifecycle event of its merchant token does to an agreement.
    public enum TokenEventEffect: Sendable, Equatable {
        /// The agreement as changed by the event: to be stored (version-checked).
        case changed(AgreementRecord)
        /// This event was applied to it before: nothing changes.
        case alreadyApplied
        /// Nothing to change (why): a resume of a token that is not suspended, any event after the
        /// token's deletion, an event type this server does not act on.
        case unchanged(String)
        /// Issued before the last event applied to the token (why): applying it would undo a
        /// later state. Nothing changes.
        case stale(String)
    }

    /// What `event` does to the agreement at `now`:
    ///
    /// - deleted: the token is gone for good; the agreement ends (`canceledBecause` says the token
    ///   was deleted, and by whom when the gateway says) unless it had ended already;
    /// - suspended: no charge until a later event resumes it;
    /// - resumed: usable again (only a suspended token);
    /// - updated: the card's new suffix and expiration date are recorded;
    /// - anything else: recorded by the server, nothing changes here.
    ///
    /// An event applied before (its id), or issued before the last one applied, changes nothing.
    public func applying(_ event: MerchantTokenEvent, at now: Date) -> TokenEventEffect {
        if agreement.tokenEventIds?.contains(event.id) == true { return .alreadyApplied }
        if let issued = event.issuedAt, let last = agreement.tokenEventAt, issued < last {
            return .stale(
                "event \(event.id) was issued at \(Timestamp.text(issued)), before the token's last event (\(Timestamp.text(last)))"
            )
        }
        var next = agreement
        switch (event.kind, agreement.merchantTokenStatus) {
        case (_, .deleted):
            return .unchanged("its merchant token was deleted; no later event changes it")
        case (.other(let type), _):
            return .unchanged("event type \(type) is not one this server acts on")
        case (.deleted, _):
            next.tokenStatus = .deleted
            if next.canceledAt == nil {
                next.canceledAt = now
                next.canceledBecause = "its merchant token was deleted" + (event.originator.map { " by \($0)" } ?? "")
            }
        case (.suspended, .suspended):
            return .unchanged("its merchant token is suspended already")
        case (.suspended, _):
            next.tokenStatus = .suspended
        case (.resumed, .suspended):
            next.tokenStatus = .active
        case (.resumed, _):
            return .unchanged("its merchant token is not suspended")
        case (.updated, _):
            if let suffix = event.cardSuffix { next.cardSuffix = suffix }
            if let expiration = event.cardExpiration { next.cardExpiration = expiration }
        }
        next.tokenEventAt = event.issuedAt ?? now
        next.tokenEventIds = Array(((agreement.tokenEventIds ?? []) + [event.id]).suffix(Self.keptTokenEvents))
        return .changed(next)
    }

    /// Why the agreement's merchant token takes no charge, if it does not: deleted
    /// (`merchant_token_deleted`) or suspended (`merchant_token_suspended`).
    public var tokenRefusal: PaymentRefusal? {
        let id = agreement.id
        let since = agreement.tokenEventAt.map { " at \(Timestamp.text($0))" } ?? ""
        switch agreement.merchantTokenStatus {
        case .active: return nil
        case .deleted:
            return .conflict(
                "agreement \(id): its merchant token was deleted\(since); it takes no charge (ask the shopper again, on the sheet)",
                code: "merchant_token_deleted"
            )
        case .suspended:
            return .conflict(
                "agreement \(id): its merchant token was suspended\(since); no charge until it is resumed",
                code: "merchant_token_suspended"
            )
        }
    }
}
