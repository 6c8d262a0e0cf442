import PaysheetModel

/// What the sheet shows: selections, summary, module errors, status line and popup.
struct SheetState: Sendable {
    var session: Int
    var request: ApplePayPaymentRequest
    /// Shown (perhaps waiting for the page) or closed (with its result).
    private(set) var presence: Presence = .shown(waiting: nil)
    var pendingInitial: [SheetEventType]
    var cards: [WalletCard]
    var cardIndex: Int?
    var contacts: [ApplePayPaymentContact]
    var contactIndex: Int?
    var methods: [ApplePayShippingMethod]
    var methodIdentifier: String?
    var couponCode: String?
    var email: String?
    var phone: String?
    var lineItems: [ApplePayLineItem]
    var total: ApplePayLineItem
    var errors: [SheetModule: ShownError] = [:]
    /// Set by an `unknown` error in a shipping-contact update: no module error, but the address
    /// must change before the user can authorize.
    var shippingNeedsChange = false
    var status: StatusLine?
    /// The merchant's label when the popup ("{label} does not allow delivery to your shipping
    /// address") is shown.
    var popupLabel: String?
    /// The row of `docs/payment-sheet.md` §4 applied by the last `completePayment`.
    var lastRule: Int?
    /// The order the payment gave the wallet (`SheetMachine+WalletOrder.swift`).
    var walletOrder: SheetWalletOrder?

    init(session: Int, request: ApplePayPaymentRequest, wallet: Wallet, initialEvents: [SheetEventType]) {
        self.session = session
        self.request = request
        self.pendingInitial = initialEvents
        self.cards = wallet.cards
        self.contacts = wallet.shippingContacts
        if let prefill = request.shippingContact, prefill.hasPostalAddress { contacts.insert(prefill, at: 0) }
        self.contactIndex = contacts.isEmpty ? nil : 0
        self.methods = request.shippingMethods ?? []
        self.methodIdentifier = (methods.first { $0.selected == true } ?? methods.first)?.identifier
        self.couponCode = request.couponCode
        self.email = request.shippingContact?.emailAddress ?? wallet.email
        self.phone = request.shippingContact?.phoneNumber ?? wallet.phone
        self.lineItems = request.lineItems ?? []
        self.total = request.total
        self.cardIndex = cards.indices.first { Self.accepts(request, cards[$0]) }
    }

    /// Whether the request accepts `card`: its network is supported; with `supportsCredit` or
    /// `supportsDebit` (not both) only cards of that kind; with `supportedCountries` only cards
    /// issued there (the card's issuer country, else its billing address's country).
    static func accepts(_ request: ApplePayPaymentRequest, _ card: WalletCard) -> Bool {
        let networks = Set(request.supportedNetworks.map { $0.lowercased() })
        guard networks.contains(card.network.lowercased()) else { return false }
        let credit = request.merchantCapabilities.contains(.supportsCredit)
        let debit = request.merchantCapabilities.contains(.supportsDebit)
        if credit != debit {
            switch card.type {
            case .credit: if !credit { return false }
            case .debit, .prepaid: if !debit { return false }
            case .store: break
            }
        }
        if let countries = request.supportedCountries, !countries.isEmpty {
            guard let issued = card.issuerCountryCode ?? card.billingContact?.countryCode,
                countries.contains(issued.uppercased())
            else { return false }
        }
        return true
    }

    var requestsShipping: Bool { request.requestsShippingAddress }
    var usableCards: [Int] { cards.indices.filter { Self.accepts(request, cards[$0]) } }
    var selectedCard: WalletCard? { cardIndex.map { cards[$0] } }
    var selectedContact: ApplePayPaymentContact? {
        contactIndex.flatMap { contacts.indices.contains($0) ? contacts[$0] : nil }
    }
    var selectedMethod: ApplePayShippingMethod? { methods.first { $0.identifier == methodIdentifier } }

    /// The user's edit of the selected shipping contact (a new one when none is selected).
    mutating func edit(shippingContact contact: ApplePayPaymentContact) {
        if let index = contactIndex {
            contacts[index] = contact
        } else {
            contacts.append(contact)
            contactIndex = contacts.count - 1
        }
    }

    /// A new user action clears the last outcome's status line and popup.
    mutating func userActed() {
        status = nil
        popupLabel = nil
    }

    /// Why the user cannot authorize now (beyond outstanding completions), or `nil`.
    var authorizeBlockReason: String? {
        if selectedCard == nil { return "no card that the request accepts" }
        for module in [SheetModule.shipping, .contact, .card, .coupon, .method] where errors[module] != nil {
            return "the \(module.rawValue) module shows an error"
        }
        if shippingNeedsChange { return "the shipping address was rejected" }
        let shipping = Set(request.requiredShippingContactFields ?? [])
        let billing = Set(request.requiredBillingContactFields ?? [])
        if requestsShipping, selectedContact == nil { return "no shipping address" }
        if shipping.union(billing).contains(.email), (email ?? "").isEmpty { return "no email address" }
        if shipping.union(billing).contains(.phone), (phone ?? "").isEmpty { return "no phone number" }
        return nil
    }

    // MARK: Updates

    /// Shows each error on its own module, where no error is shown yet.
    mutating func markModules<S: Sequence>(for newErrors: S) where S.Element == ApplePayError {
        for error in newErrors {
            if let (module, shown) = DisplayRules.secondaryDisplay(for: error), errors[module] == nil {
                errors[module] = shown
            }
        }
    }

    /// Applies a selection update: the summary, the shipping methods, and its errors
    /// (`docs/payment-sheet.md` §3).
    mutating func apply(update: ApplePayUpdate, kind: UpdateValidator.Kind) {
        if let newTotal = update.newTotal { total = newTotal }
        lineItems = update.newLineItems ?? []
        // What continues after today, as the update replaces it (the token is made from it).
        if let recurring = update.newRecurringPaymentRequest { request.recurringPaymentRequest = recurring }
        if let reload = update.newAutomaticReloadPaymentRequest { request.automaticReloadPaymentRequest = reload }
        if let deferred = update.newDeferredPaymentRequest { request.deferredPaymentRequest = deferred }
        if let contexts = update.newMultiTokenContexts { request.multiTokenContexts = contexts }
        if let newMethods = update.newShippingMethods {
            methods = newMethods
            if let marked = newMethods.first(where: { $0.selected == true }) {
                methodIdentifier = marked.identifier
            } else if !newMethods.contains(where: { $0.identifier == methodIdentifier }) {
                methodIdentifier = newMethods.first?.identifier
            }
        }
        let updateErrors = update.errors ?? []
        status = nil
        popupLabel = nil
        guard let first = updateErrors.first else { return }
        let rule = DisplayRules.updateRule(for: first.code)
        status = rule.fingerprint.map(StatusLine.sheet)
        if rule.popup { popupLabel = total.label ?? "" }
        if first.code == .unknown, kind == .shippingContact { shippingNeedsChange = true }
        if var module = rule.module, let display = rule.display {
            var shown = display.resolve(first)
            if let field = first.contactField, module == .shipping, SheetModule.owner(of: field) == .contact {
                module = .contact
                shown = ShownError(title: ModuleDisplay.verifyContact.title, message: shown.message)
                if status == .sheet(.statusShippingAddressInvalid) { status = .sheet(.statusVerifyContactInformation) }
            }
            errors[module] = shown
        }
        markModules(for: updateErrors.dropFirst())
    }

    /// Applies a `completePayment` result (`docs/payment-sheet.md` §4) and says whether it paid.
    mutating func apply(
        result: ApplePayPaymentAuthorizationResult,
        pageErrors: [ApplePayError]
    ) -> (paid: Bool, row: Int?) {
        // The validator admits only known statuses; anything else would be a failure.
        let status = ApplePayStatus(rawValue: result.status) ?? .failure
        let all = result.errors ?? []
        let first = pageErrors.first ?? all.first
        errors = [:]
        popupLabel = nil
        lastRule = nil
        switch status {
        case .pinRequired:
            self.status = .sheet(.statusPINRequired)
            return (false, nil)
        case .pinIncorrect:
            self.status = .sheet(.statusPINIncorrect)
            return (false, nil)
        case .pinLockout:
            self.status = .sheet(.statusPINLocked)
            return (false, nil)
        default: break
        }
        if let rule = DisplayRules.authorizationRule(status: status, first: first) {
            lastRule = rule.row
            self.status = rule.fingerprint.map(StatusLine.sheet)
            var contact = rule.contact?.resolve(first)
            var shipping = rule.shipping?.resolve(first)
            // A CONTACT field (§2) moves the row's SHIPPING display to the CONTACT module.
            if let field = pageErrors.first?.contactField, SheetModule.owner(of: field) == .contact,
                let moved = shipping
            {
                contact = ShownError(
                    title: ModuleDisplay.verifyContact.title,
                    message: rule.contact == nil ? moved.message : contact!.message
                )
                shipping = nil
                if self.status == .sheet(.statusShippingAddressInvalid) {
                    self.status = .sheet(.statusVerifyContactInformation)
                }
            }
            errors[.contact] = contact
            errors[.shipping] = shipping
            if rule.popup { popupLabel = total.label ?? "" }
            markModules(for: pageErrors.dropFirst())
            return (rule.paid, rule.row)
        }
        // Outside the seed's table: billing errors (status 2 or billingContactInvalid) and
        // coupon errors. Paysheet's own rules, documented in the README.
        if let first, first.code == .couponCodeInvalid || first.code == .couponCodeExpired {
            self.status = .sheet(.statusTryAgain)
        } else {
            self.status = .sheet(.statusBillingAddressInvalid)
            let message = first?.message ?? ""
            errors[.card] = ShownError(
                title: .errorBillingAddressInvalid,
                message: message.isEmpty ? .sheet(.messageInvalidBillingAddress) : .page(message)
            )
        }
        markModules(for: pageErrors.isEmpty ? all : pageErrors)
        return (false, nil)
    }
}

extension SheetState {
    /// Whether the sheet is on screen. Each case carries what is valid in it: only a shown sheet
    /// waits for a completion from the page (until a virtual deadline); only a closed one has a
    /// result.
    enum Presence: Sendable {
        case shown(waiting: Outstanding?)
        case closed(SheetResult)
    }

    /// A completion the shown sheet waits for, and the virtual time it gives up.
    struct Outstanding: Sendable {
        var event: SheetEventType
        var deadline: Double
    }

    /// Whether the sheet is on screen.
    var visible: Bool {
        if case .shown = presence { return true }
        return false
    }

    /// The completion the shown sheet waits for (`nil` when it waits for none, or is closed).
    var outstanding: Outstanding? {
        if case .shown(let waiting) = presence { return waiting }
        return nil
    }

    /// How the sheet closed (`nil` while shown).
    var result: SheetResult? {
        if case .closed(let result) = presence { return result }
        return nil
    }

    /// The shown sheet waits for `event` until `deadline`; a closed sheet waits for nothing.
    mutating func wait(for event: SheetEventType, until deadline: Double) {
        guard visible else { return }
        presence = .shown(waiting: Outstanding(event: event, deadline: deadline))
    }

    /// The page completed what the sheet waited for.
    mutating func stopWaiting() {
        guard visible else { return }
        presence = .shown(waiting: nil)
    }

    /// The sheet closes with `result`.
    mutating func close(_ result: SheetResult) { presence = .closed(result) }
}
