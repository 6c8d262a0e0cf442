import PaysheetModel

/// How a module error's message is chosen: the page's `message` (shown as given), or one of the
/// sheet's own texts.
enum MessageSource: Sendable, Hashable {
    case errorMessage
    case fixed(SheetString)

    func resolve(_ error: ApplePayError?) -> ShownMessage {
        switch self {
        case .errorMessage: return .page(error?.message ?? "")
        case .fixed(let text): return .sheet(text)
        }
    }
}

/// A module display: title and message source.
struct ModuleDisplay: Sendable, Hashable {
    var title: SheetString
    var message: MessageSource

    func resolve(_ error: ApplePayError?) -> ShownError { ShownError(title: title, message: message.resolve(error)) }

    static let verifyContact = ModuleDisplay(
        title: .errorVerifyContactInformation,
        message: .fixed(.messageInvalidContactInformation)
    )
    static let addressInvalidMessage = ModuleDisplay(title: .errorShippingAddressInvalid, message: .errorMessage)
    static let addressInvalidFixed = ModuleDisplay(
        title: .errorShippingAddressInvalid,
        message: .fixed(.messageInvalidAddress)
    )
    static let unavailableFixed = ModuleDisplay(
        title: .errorShippingUnavailable,
        message: .fixed(.messageAddressNotSupported)
    )
    static let unavailableMessage = ModuleDisplay(title: .errorShippingUnavailable, message: .errorMessage)
}

/// The sheet-level status strings of the FINGERPRINT area, in English (``SheetString`` has them in
/// every language the sheet speaks).
public enum SheetStatus {
    public static let paymentNotCompleted = SheetString.statusPaymentNotCompleted.text(in: .english)
    public static let tryAgain = SheetString.statusTryAgain.text(in: .english)
    public static let shippingAddressInvalid = SheetString.statusShippingAddressInvalid.text(in: .english)
    public static let verifyContactInformation = SheetString.statusVerifyContactInformation.text(in: .english)
    public static let shippingUnavailable = SheetString.statusShippingUnavailable.text(in: .english)
    /// Not in the seed: Paysheet's names for billing and PIN outcomes.
    public static let billingAddressInvalid = SheetString.statusBillingAddressInvalid.text(in: .english)
    public static let pinRequired = SheetString.statusPINRequired.text(in: .english)
    public static let pinIncorrect = SheetString.statusPINIncorrect.text(in: .english)
    public static let pinLocked = SheetString.statusPINLocked.text(in: .english)
}

/// One row of `docs/payment-sheet.md` §4: what `completePayment` shows for a status and the page's
/// first error.
struct AuthorizationRule: Sendable, Hashable {
    /// The row number in `docs/payment-sheet.md` §4.
    var row: Int
    var status: ApplePayStatus
    /// The first error's code; `nil` = no error; the whole set for "any".
    var codes: Set<ApplePayErrorCode?>
    /// Whether the first error has a contact field; `nil` = either.
    var contactField: Bool?
    var fingerprint: SheetString?
    var contact: ModuleDisplay?
    var shipping: ModuleDisplay?
    var closes: Bool
    var popup: Bool
    var paid: Bool
}

/// The display rules of the sheet, as data (`docs/payment-sheet.md` §3 and §4).
enum DisplayRules {
    private typealias D = ModuleDisplay
    private static let sci: ApplePayErrorCode = .shippingContactInvalid
    private static let au: ApplePayErrorCode = .addressUnserviceable
    private static let unk: ApplePayErrorCode = .unknown
    private static let anyError: Set<ApplePayErrorCode?> = Set(ApplePayErrorCode.allCases.map { Optional($0) })

    private static func rule(
        _ row: Int,
        _ status: ApplePayStatus,
        _ codes: Set<ApplePayErrorCode?>,
        _ field: Bool?,
        _ fp: SheetString?,
        contact: D? = nil,
        shipping: D? = nil,
        closes: Bool = false,
        popup: Bool = false,
        paid: Bool = false
    ) -> AuthorizationRule {
        AuthorizationRule(
            row: row,
            status: status,
            codes: codes,
            contactField: field,
            fingerprint: fp,
            contact: contact,
            shipping: shipping,
            closes: closes,
            popup: popup,
            paid: paid
        )
    }

    /// The status line's texts by the seed's names, so that the rows read as its table.
    private enum Status {
        static let tryAgain = SheetString.statusTryAgain
        static let paymentNotCompleted = SheetString.statusPaymentNotCompleted
        static let shippingAddressInvalid = SheetString.statusShippingAddressInvalid
        static let verifyContactInformation = SheetString.statusVerifyContactInformation
        static let shippingUnavailable = SheetString.statusShippingUnavailable
    }

    /// The 21 rows of `docs/payment-sheet.md` §4, in order.
    static let authorization: [AuthorizationRule] = {
        let S = Status.self
        let isc = ApplePayStatus.invalidShippingContact
        let ispa = ApplePayStatus.invalidShippingPostalAddress
        return [
            rule(1, .success, [nil], nil, nil, closes: true, paid: true),
            rule(2, .success, anyError, nil, S.tryAgain),
            rule(3, .failure, [nil], nil, S.paymentNotCompleted, closes: true),
            rule(4, .failure, [sci], true, S.shippingAddressInvalid, shipping: .addressInvalidMessage),
            rule(5, .failure, [sci], false, S.verifyContactInformation, contact: .verifyContact),
            rule(6, .failure, [au], false, S.shippingUnavailable, shipping: .unavailableFixed, popup: true),
            rule(7, .failure, [au], true, S.shippingAddressInvalid, shipping: .addressInvalidMessage, popup: true),
            rule(8, .failure, [unk], false, S.tryAgain),
            rule(9, .failure, [unk], true, S.tryAgain),
            rule(
                10,
                isc,
                [sci],
                true,
                S.verifyContactInformation,
                contact: .verifyContact,
                shipping: .addressInvalidMessage
            ),
            rule(11, isc, [sci], false, S.verifyContactInformation, contact: .verifyContact),
            rule(
                12,
                isc,
                [au],
                true,
                S.verifyContactInformation,
                contact: .verifyContact,
                shipping: .unavailableMessage,
                popup: true
            ),
            rule(
                13,
                isc,
                [au],
                false,
                S.verifyContactInformation,
                contact: .verifyContact,
                shipping: .unavailableFixed,
                popup: true
            ),
            rule(14, isc, [unk], true, S.verifyContactInformation, contact: .verifyContact),
            rule(15, isc, [unk], false, S.verifyContactInformation, contact: .verifyContact),
            rule(16, ispa, [sci], true, S.shippingAddressInvalid, shipping: .addressInvalidFixed),
            rule(
                17,
                ispa,
                [sci],
                false,
                S.shippingAddressInvalid,
                contact: .verifyContact,
                shipping: .addressInvalidFixed
            ),
            rule(18, ispa, [au], true, S.shippingAddressInvalid, shipping: .addressInvalidFixed, popup: true),
            rule(19, ispa, [au], false, S.shippingAddressInvalid, shipping: .addressInvalidFixed, popup: true),
            rule(20, ispa, [unk], true, S.shippingAddressInvalid, shipping: .addressInvalidFixed),
            rule(21, ispa, [unk], false, S.shippingAddressInvalid, shipping: .addressInvalidFixed),
        ]
    }()

    /// The row for `status` and the first error, if the seed recorded one.
    static func authorizationRule(status: ApplePayStatus, first: ApplePayError?) -> AuthorizationRule? {
        // A legacy status alone (versions 1–2 pass no errors): the seed's row for that status with
        // no contact field, which shows the same for every error code.
        if first == nil, status == .invalidShippingContact || status == .invalidShippingPostalAddress {
            return authorizationRule(status: status, first: ApplePayError(.unknown))
        }
        return authorization.first { r in
            r.status == status && r.codes.contains(first?.code)
                && (r.contactField == nil || first == nil || r.contactField == (first?.contactField != nil))
        }
    }

    /// What `completeShippingContactSelection` (and the other selection updates) show for an
    /// error code (`docs/payment-sheet.md` §3; billing and coupon codes are Paysheet's extension).
    struct UpdateRule: Sendable, Hashable {
        var fingerprint: SheetString?
        var module: SheetModule?
        var display: ModuleDisplay?
        var popup: Bool
    }

    static func updateRule(for code: ApplePayErrorCode) -> UpdateRule {
        switch code {
        case .addressUnserviceable:
            return UpdateRule(
                fingerprint: .statusShippingAddressInvalid,
                module: .shipping,
                display: .unavailableFixed,
                popup: true
            )
        case .shippingContactInvalid:
            return UpdateRule(
                fingerprint: .statusShippingAddressInvalid,
                module: .shipping,
                display: .addressInvalidMessage,
                popup: false
            )
        case .unknown:
            return UpdateRule(fingerprint: .statusShippingAddressInvalid, module: nil, display: nil, popup: false)
        case .billingContactInvalid:
            return UpdateRule(
                fingerprint: .statusBillingAddressInvalid,
                module: .card,
                display: billingDisplay,
                popup: false
            )
        case .couponCodeInvalid:
            return UpdateRule(
                fingerprint: nil,
                module: .coupon,
                display: ModuleDisplay(title: .errorInvalidCode, message: .errorMessage),
                popup: false
            )
        case .couponCodeExpired:
            return UpdateRule(
                fingerprint: nil,
                module: .coupon,
                display: ModuleDisplay(title: .errorCodeExpired, message: .errorMessage),
                popup: false
            )
        }
    }

    static let billingDisplay = ModuleDisplay(title: .errorBillingAddressInvalid, message: .errorMessage)

    /// The module display of an error that is not the first one (or not covered by a row).
    static func secondaryDisplay(for e: ApplePayError) -> (SheetModule, ShownError)? {
        switch e.code {
        case .unknown: return nil
        case .billingContactInvalid: return (.card, billingDisplay.resolve(e))
        case .couponCodeInvalid, .couponCodeExpired:
            let rule = updateRule(for: e.code)
            return (.coupon, rule.display!.resolve(e))
        case .shippingContactInvalid, .addressUnserviceable:
            let module = e.contactField.map(SheetModule.owner(of:)) ?? .shipping
            if module == .contact {
                return (.contact, ShownError(title: ModuleDisplay.verifyContact.title, message: .page(e.message)))
            }
            if e.code == .addressUnserviceable {
                return (
                    .shipping, (e.message.isEmpty ? ModuleDisplay.unavailableFixed : .unavailableMessage).resolve(e)
                )
            }
            return (.shipping, ModuleDisplay.addressInvalidMessage.resolve(e))
        }
    }
}
