import Foundation
import Metrics
import PaysheetPayments

extension PaymentService {
    /// What a merchant token's life-cycle event did to the agreements charged with that token.
    struct TokenEventReport: Sendable, Equatable {
        /// The agreements charged with the token.
        var agreements: [String] = []
        /// Those the event changed (stored).
        var changed: [String] = []
        /// Those it was applied to before.
        var alreadyApplied: [String] = []
        /// Those it was too late for (issued before their token's last event), and why.
        var stale: [String] = []
        /// Those it had nothing to change in, and why.
        var unchanged: [String] = []
    }

    /// How many agreements stored before token references existed are read, at most, when an
    /// event names a token no agreement is known by (each is then given its reference, once).
    static let legacyTokenScan = 1_000

    /// Applies `event` of the merchant token `merchantTokenIdentifier` to every agreement charged
    /// with it (the core's `AgreementLifecycle.applying(_:at:)`, stored version-checked): deleted
    /// ends them, suspended stops their charges until resumed, updated records the card's metadata.
    /// The identifier is never logged or stored in clear: agreements are found by its keyed reference.
    func apply(_ event: MerchantTokenEvent, toToken merchantTokenIdentifier: String) async throws -> TokenEventReport {
        guard let vault else {
            throw ServiceError(
                .unavailable,
                code: "credentials_unavailable",
                message: "this server cannot open merchant tokens"
            )
        }
        let reference = vault.tokenReference(merchantTokenIdentifier)
        var agreements = try await store.agreements(tokenReference: reference)
        if agreements.isEmpty {
            agreements = try await linkLegacyAgreements(to: merchantTokenIdentifier, reference: reference, vault: vault)
        }
        var report = TokenEventReport(agreements: agreements.map(\.id))
        for agreement in agreements {
            try await apply(event, to: agreement, into: &report)
        }
        return report
    }

    /// Applies `event` to `agreement` (reloaded when another writer was first), noting the effect in `report`.
    private func apply(
        _ event: MerchantTokenEvent,
        to agreement: AgreementRecord,
        into report: inout TokenEventReport
    )
        async throws
    {
        var current = agreement
        for _ in 0..<4 {
            switch AgreementLifecycle(current).applying(event, at: now()) {
            case .alreadyApplied:
                report.alreadyApplied.append(current.id)
                return
            case .stale(let why):
                report.stale.append("\(current.id): \(why)")
                return
            case .unchanged(let why):
                report.unchanged.append("\(current.id): \(why)")
                return
            case .changed(let next):
                if try await store.update(next) != nil {
                    report.changed.append(current.id)
                    let status = next.merchantTokenStatus.rawValue
                    logger.info(
                        "agreement \(current.id): merchant token event \(event.id) applied (token \(status)\(next.canceledAt != nil && current.canceledAt == nil ? ", agreement ended" : ""))"
                    )
                    if next.canceledAt != nil && current.canceledAt == nil {
                        Counter(label: "paysheet_agreements_ended_total").increment()
                    }
                    return
                }
                guard let reloaded = try await store.agreement(current.id) else { return }
                current = reloaded
            }
        }
        throw ServiceError.conflict(
            "agreement \(agreement.id) kept changing; the token event was not applied, try again"
        )
    }

    /// Open agreements stored before token references existed whose sealed token is
    /// `merchantTokenIdentifier`; each agreement read is given its reference, so it is read once.
    private func linkLegacyAgreements(
        to merchantTokenIdentifier: String,
        reference: String,
        vault: CredentialVault
    ) async throws -> [AgreementRecord] {
        var found: [AgreementRecord] = []
        for agreement in try await store.agreementsWithoutTokenReference(limit: Self.legacyTokenScan) {
            guard let credential = try? vault.open(agreement.credential, for: agreement.id) else { continue }
            let own = vault.tokenReference(credential.tokenIdentifier)
            try await store.setTokenReference(own, of: agreement.id)
            if own == reference { found.append(agreement) }
        }
        return found
    }
}
