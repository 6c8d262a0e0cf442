import PaysheetModel

/// The payment sheet and its sessions as a pure state machine.
///
/// Inputs are page calls (``construct(version:request:userGesture:)``, ``call(_:session:)``),
/// user actions (`perform(_:)`) and the passing of time (``advance(by:)``); outputs are the
/// exceptions, return values and events the page would see. There is no I/O and no clock inside:
/// drivers (the scenario runner, ``PaymentSheetDriver``, the HTTP bridge) own those.
///
/// The rules come from WebKit (`ApplePaySession.cpp`: the method × state table, exceptions,
/// event order) and from the empirical record of the sheet (`docs/payment-sheet.md`: what each module
/// shows). Several sessions may be constructed on one page; one may be active at a time.
public struct SheetMachine: Sendable {
    /// How the sheet behaves.
    public private(set) var configuration: SheetConfiguration
    /// Virtual seconds since the page loaded.
    public private(set) var now: Double = 0
    /// Whether a payment completed with `STATUS_SUCCESS`.
    public private(set) var paid = false

    var sessions = SessionRecords()
    /// The errors the page passed with its last completion (what WebKit's mock coordinator reports
    /// as `errors`).
    public internal(set) var lastPageErrors: [ApplePayError] = []
    var sheet: SheetState?
    var tokenSequence = 0
    /// The shipping contact of WebKit's mock coordinator (``SheetConfiguration/webKitMock``).
    var mockContact = ApplePayPaymentContact()
    /// The setup features the simulated wallet offers (`ApplePaySetup`).
    var setupFeatures: [JSONValue] = []
    /// The configuration of the last `ApplePaySetup` call (what WebKit's mock reports).
    public internal(set) var setupConfiguration: JSONValue?
    /// The request of the sheet shown last (what WebKit's mock reports of it).
    public var shownRequest: ApplePayPaymentRequest? { sheet?.request }

    var paymentRequests: [PaymentRequestRecord] = []

    /// A new page with no session.
    public init(configuration: SheetConfiguration = SheetConfiguration()) {
        self.configuration = configuration
    }

    var requestValidator: RequestValidator { RequestValidator(profile: configuration.profile) }
    var updateValidator: UpdateValidator { UpdateValidator(profile: configuration.profile) }

    // MARK: - Queries

    /// Whether the page runs under WebKit's test runner (``SheetConfiguration/webKitMock``).
    public mutating func setWebKitMock(_ on: Bool) { configuration.webKitMock = on }

    /// The page's domain (``SheetConfiguration/pageDomain``).
    public mutating func setPageDomain(_ domain: String?) { configuration.pageDomain = domain }

    /// Where the page's document sits (``SheetConfiguration/frame``).
    public mutating func setFrame(_ frame: FrameContext?) { configuration.frame = frame }

    /// Why Safari refuses to start a payment from this page's document (its frame), or `nil`.
    var frameRefusal: ScriptError? { configuration.frame?.refusal(profile: configuration.profile) }

    /// The number of sessions constructed so far.
    public var sessionCount: Int { sessions.count }

    /// The WebKit state of session `session` (1-based).
    public func state(of session: Int) -> SessionState? {
        sessions.contains(session) ? sessions[session].state : nil
    }

    /// The validated request of session `session` (1-based).
    public func request(of session: Int) -> ApplePayPaymentRequest? {
        sessions.contains(session) ? sessions[session].request : nil
    }

    /// The total and line items the sheet shows now (`nil` before `begin()`).
    public var summary: (total: ApplePayLineItem, lineItems: [ApplePayLineItem])? {
        sheet.map { ($0.total, $0.lineItems) }
    }

    /// The completion the sheet is waiting for, and the virtual time it gives up.
    public var outstanding: (event: SheetEventType, deadline: Double)? {
        guard let waiting = sheet?.outstanding else { return nil }
        return (waiting.event, waiting.deadline)
    }

    /// Tells the engine which events the page listens to now (a browser page may add listeners
    /// at any time; selection events without a listener are completed by the sheet itself).
    public mutating func setListeners(_ listeners: Set<SheetEventType>) {
        configuration.listeners = listeners
    }

    // MARK: - Static members

    /// `ApplePaySession.supportsVersion(version)`.
    public func supportsVersion(_ version: Int) -> PageResult {
        if version == 0 { return PageResult(threw: .invalidAccess()) }
        if let refusal = frameRefusal { return PageResult(threw: refusal) }
        return PageResult(returned: .bool(version <= configuration.profile.currentAPIVersion))
    }

    /// `ApplePaySession.canMakePayments()`.
    public func canMakePayments() -> PageResult {
        if let refusal = frameRefusal { return PageResult(threw: refusal) }
        return PageResult(returned: .bool(configuration.canMakePayments ?? !configuration.wallet.cards.isEmpty))
    }

    /// `ApplePaySession.canMakePaymentsWithActiveCard(merchantIdentifier)` (the promise's value).
    public func canMakePaymentsWithActiveCard() -> PageResult { canMakePayments() }

    /// `ApplePaySession.openPaymentSetup(merchantIdentifier)` (the promise's value).
    public func openPaymentSetup(userGesture: Bool) -> PageResult {
        if let refusal = frameRefusal { return PageResult(threw: refusal) }
        if !userGesture {
            return PageResult(
                threw: .invalidAccess("Must call ApplePaySession.openPaymentSetup from a user gesture handler.")
            )
        }
        return PageResult(returned: .bool(false))
    }

    /// `new ApplePayError(code, contactField, message)` with the page's arguments; `nil` is an
    /// argument the page passed as `undefined` (an optional argument left out).
    public func makeError(arguments: [JSONValue?]) -> PageResult {
        guard let first = arguments.first else { return PageResult(threw: .notEnoughArguments) }
        var o = JSONObject()
        o["code"] = first ?? .string("undefined")
        if arguments.count > 1, let f = arguments[1] { o["contactField"] = f }
        if arguments.count > 2, let m = arguments[2] { o["message"] = m }
        do throws(ScriptError) {
            let e = try WebIDLBinding(profile: configuration.profile).applePayError(.object(o))
            return PageResult(returned: e.jsonValue)
        } catch {
            return PageResult(threw: error)
        }
    }

    // MARK: - Construction

    /// `new ApplePaySession(version, request)`. On success `returned` is the session's number.
    public mutating func construct(version: Int, request: JSONValue, userGesture: Bool = true) -> PageResult {
        do throws(ScriptError) {
            let bound = try requestValidator.bind(request)
            if let refusal = frameRefusal { throw refusal }
            if !userGesture {
                throw ScriptError.invalidAccess("Must create a new ApplePaySession from a user gesture handler.")
            }
            let checked = try requestValidator.check(bound, version: version)
            let number = sessions.append(SessionRecord(version: version, request: checked))
            return PageResult(returned: .number(String(number)))
        } catch {
            return PageResult(threw: error)
        }
    }

    // MARK: - Page calls

    /// A method call on session `session` (1-based).
    public mutating func call(_ call: PageCall, session: Int) -> PageResult {
        guard sessions.contains(session) else {
            return PageResult(threw: .typeError("undefined is not an object (evaluating 'session.\(call.name)')"))
        }
        var events: [DispatchedEvent] = []
        do throws(ScriptError) {
            try perform(call, on: session, events: &events)
            return PageResult(events: events)
        } catch {
            return PageResult(threw: error, events: events)
        }
    }

    private mutating func perform(_ call: PageCall, on s: Int, events: inout [DispatchedEvent]) throws(ScriptError) {
        switch call {
        case .begin: try begin(s, events: &events)
        case .abort: try abort(s)
        case .completeMerchantValidation(let v): try completeMerchantValidation(s, v, events: &events)
        case .completePaymentMethodSelection(let v):
            try completeUpdate(
                s,
                try updateValidator.bindUpdate(v, kind: .paymentMethod),
                kind: .paymentMethod,
                events: &events
            )
        case .completeShippingContactSelection(let v):
            try completeUpdate(
                s,
                try updateValidator.bindUpdate(v, kind: .shippingContact),
                kind: .shippingContact,
                events: &events
            )
        case .completeShippingMethodSelection(let v):
            try completeUpdate(
                s,
                try updateValidator.bindUpdate(v, kind: .shippingMethod),
                kind: .shippingMethod,
                events: &events
            )
        case .completeCouponCodeChange(let v):
            try completeUpdate(
                s,
                try updateValidator.bindUpdate(v, kind: .couponCode),
                kind: .couponCode,
                events: &events
            )
        case .completePayment(let v): try completePayment(s, try updateValidator.bindResult(v), events: &events)
        case .legacy(let method, let args): try legacy(s, method, args, events: &events)
        }
    }

    mutating func begin(_ s: Int, events: inout [DispatchedEvent]) throws(ScriptError) {
        guard sessions[s].state == .idle else { throw .invalidAccess("Payment session is already active.") }
        if sessions.contains(otherThan: s, where: { !$0.state.isFinal && $0.state != .idle }) {
            throw .invalidAccess("Page already has an active payment session.")
        }
        sessions[s].begin()
        sheet = SheetState(
            session: s,
            request: sessions[s].request,
            wallet: configuration.wallet,
            initialEvents: configuration.initialEvents
        )
        if let reason = SheetBilling.conflict(sessions[s].request) {
            // Apple: such a request "results in an error and cancels the payment request".
            cancel(s, status: reason, events: &events)
            return
        }
        setOutstanding(.validatemerchant)
        if configuration.webKitMock {
            // WebKit's mock: its own URL, and no sheet events but its shipping contact.
            mockContact = sessions[s].request.shippingContact ?? ApplePayPaymentContact()
            sheet?.pendingInitial = []
            emit(.validateMerchant(validationURL: "https://webkit.org/"), to: s, events: &events)
            return
        }
        emit(.validateMerchant(validationURL: configuration.validationURL), to: s, events: &events)
    }

    mutating func abort(_ s: Int) throws(ScriptError) {
        let st = sessions[s].state
        guard st != .idle, !st.isFinal else { throw .invalidAccess() }
        sessions[s].end(.aborted)
        if showsSheet(s) { close(result: .aborted) }
    }

    mutating func completeMerchantValidation(
        _ s: Int,
        _ value: JSONValue,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        guard sessions[s].state == .active, !sessions[s].isMerchantValidated else { throw .invalidAccess() }
        guard case .object = value else {
            if case .array = value { throw .invalidAccess() }
            throw .typeError("Type error")
        }
        if configuration.merchantSessions == .checked, !configuration.webKitMock, case .object(let o) = value,
            let reason = MerchantSessionCheck.problem(
                o,
                verifier: configuration.merchantSessionVerifier,
                pageDomain: configuration.pageDomain,
                nowMs: configuration.epochMs + now * 1000
            )
        {
            // The wallet refuses the session: the sheet closes and the page gets `cancel`.
            sessions[s].merchantValidationEnded()
            events.append(
                DispatchedEvent(session: s, event: .ignored(action: "completeMerchantValidation", reason: reason))
            )
            cancel(s, status: reason, events: &events)
            return
        }
        sessions[s].merchantValidationEnded()
        sheet?.stopWaiting()
        if configuration.webKitMock, showsSheet(s) {
            // `MockPaymentCoordinator::completeMerchantValidation` reports its shipping contact.
            dispatch(
                .shippingcontactselected,
                state: .shippingContactSelected,
                event: .shippingContactSelected(Self.mockVersioned(mockContact, version: sessions[s].version)),
                session: s,
                events: &events
            )
            return
        }
        continueInitialEvents(events: &events)
    }

    /// A contact as WebKit converts it for a page of API `version` (phonetic names from version 3).
    static func mockVersioned(_ c: ApplePayPaymentContact, version: Int) -> ApplePayPaymentContact {
        var c = c
        if version < 3 {
            c.phoneticGivenName = nil
            c.phoneticFamilyName = nil
        }
        return c
    }

    /// WebKit's mock coordinator's `changePaymentMethod`: the page is told of `method` as given
    /// (no card of the wallet behind it, no redaction); a `PaymentRequest`'s modifiers follow its
    /// `type`. Reported like a user action that cannot be taken when the sheet is not waiting.
    public mutating func mockChangePaymentMethod(_ method: ApplePayPaymentMethod) -> [DispatchedEvent] {
        var events: [DispatchedEvent] = []
        guard let sh = sheet, sh.visible else {
            events.append(
                DispatchedEvent(
                    session: sheet?.session ?? 1,
                    event: .ignored(action: "changePaymentMethod", reason: "the sheet is not shown")
                )
            )
            return events
        }
        if let o = sh.outstanding, o.event != .validatemerchant {
            events.append(
                DispatchedEvent(
                    session: sh.session,
                    event: .ignored(
                        action: "changePaymentMethod",
                        reason: "waiting for the page to complete \(o.event.rawValue)"
                    )
                )
            )
            return events
        }
        let s = sh.session
        if let p = sessions[s].paymentRequest {
            paymentRequests[p].selectedType = method.type
            if !configuration.listeners.contains(.paymentmethodselected) {
                applyPaymentRequestTotals(p, events: &events)
                return events
            }
        }
        dispatch(
            .paymentmethodselected,
            state: .paymentMethodSelected,
            event: .paymentMethodSelected(method),
            session: s,
            events: &events
        )
        return events
    }

    mutating func completeUpdate(
        _ s: Int,
        _ bound: ApplePayUpdate,
        kind: UpdateValidator.Kind,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        let expected: SessionState
        switch kind {
        case .paymentMethod: expected = .paymentMethodSelected
        case .shippingContact: expected = .shippingContactSelected
        case .shippingMethod: expected = .shippingMethodSelected
        case .couponCode: expected = .couponCodeChanged
        }
        guard sessions[s].state == expected else { throw .invalidAccess() }
        let update = try updateValidator.checkUpdate(bound, kind: kind)
        lastPageErrors = update.errors ?? []
        sessions[s].step(to: .active)
        guard showsSheet(s) else { return }
        sheet?.stopWaiting()
        sheet?.apply(update: update, kind: kind)
        continueInitialEvents(events: &events)
    }

    mutating func completePayment(
        _ s: Int,
        _ bound: ApplePayPaymentAuthorizationResult,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        guard sessions[s].state == .authorized else { throw .invalidAccess() }
        let checked = try updateValidator.checkResult(bound)
        lastPageErrors = bound.errors ?? []
        guard showsSheet(s) else {
            if checked.isFinal { sessions[s].end(.completed) } else { sessions[s].step(to: .active) }
            return
        }
        sheet?.stopWaiting()
        // Shown: checked above.
        guard let outcome = sheet?.apply(result: checked, pageErrors: bound.errors ?? []) else { return }
        if checked.isFinal {
            sessions[s].end(.completed)
            if outcome.paid { paid = true }
            close(result: outcome.paid ? .success : .failure)
        } else {
            sessions[s].step(to: .active)
        }
    }

    private mutating func legacy(
        _ s: Int,
        _ method: PageCall.Method,
        _ args: [JSONValue],
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        let b = WebIDLBinding(profile: configuration.profile)
        func need(_ n: Int) throws(ScriptError) { if args.count < n { throw .notEnoughArguments } }
        switch method {
        case .completePayment:
            try need(1)
            if case .object = args[0] {
                return try completePayment(s, try updateValidator.bindResult(args[0]), events: &events)
            }
            let status = b.unsignedLong(args[0]) & 0xFFFF
            try completePayment(s, try updateValidator.bindResult(["status": .number(String(status))]), events: &events)
        case .completePaymentMethodSelection:
            if args.count == 1 { return try perform(.completePaymentMethodSelection(args[0]), on: s, events: &events) }
            try need(2)
            let total = try b.lineItem(args[0])
            let items = try b.lineItems(args[1])
            try completeUpdate(
                s,
                ApplePayUpdate(newTotal: total, newLineItems: items),
                kind: .paymentMethod,
                events: &events
            )
        case .completeShippingMethodSelection:
            if args.count == 1 { return try perform(.completeShippingMethodSelection(args[0]), on: s, events: &events) }
            try need(3)
            let status = b.unsignedLong(args[0]) & 0xFFFF
            let total = try b.lineItem(args[1])
            let items = try b.lineItems(args[2])
            switch status {
            case 0:
                try completeUpdate(
                    s,
                    ApplePayUpdate(newTotal: total, newLineItems: items),
                    kind: .shippingMethod,
                    events: &events
                )
            case 1...7:
                // "This is a fatal error. Cancel the request." — before any state check.
                sessions[s].step(to: .cancelRequested)
                if showsSheet(s) {
                    sessions[s].end(.canceled)
                    close(result: .canceled)
                    emit(.cancel(ApplePaySessionError()), to: s, events: &events)
                }
            default: throw .invalidAccess()
            }
        case .completeShippingContactSelection:
            if args.count == 1 {
                return try perform(.completeShippingContactSelection(args[0]), on: s, events: &events)
            }
            try need(4)
            let status = b.unsignedLong(args[0]) & 0xFFFF
            let methods = try b.shippingMethods(args[1])
            let total = try b.lineItem(args[2])
            let items = try b.lineItems(args[3])
            let error: ApplePayError?
            switch status {
            case 0: error = nil
            case 1, 5, 6, 7: error = ApplePayError(.unknown)
            case 2: error = ApplePayError(.billingContactInvalid)
            case 3: error = ApplePayError(.shippingContactInvalid, contactField: .postalAddress)
            case 4: error = ApplePayError(.shippingContactInvalid)
            default: throw .invalidAccess()
            }
            let u = ApplePayUpdate(
                newTotal: total,
                newLineItems: items,
                newShippingMethods: methods,
                errors: error.map { [$0] } ?? []
            )
            try completeUpdate(s, u, kind: .shippingContact, events: &events)
        case .begin, .abort, .completeMerchantValidation, .completeCouponCodeChange:
            // No positional form: the call with its first argument.
            guard let first = args.first else { throw .notEnoughArguments }
            try perform(PageCall(method, argument: first), on: s, events: &events)
        }
    }

    // MARK: - Page lifecycle

    /// The page navigates away and enters the back/forward cache: every active session is
    /// canceled (and gets `cancel`); idle sessions survive.
    public mutating func navigate() -> [DispatchedEvent] {
        var events: [DispatchedEvent] = []
        for i in sessions.numbers where sessions[i].state != .idle && !sessions[i].state.isFinal {
            sessions[i].end(.canceled)
            if showsSheet(i) { close(result: .canceled) }
            emit(.cancel(ApplePaySessionError()), to: i, events: &events)
        }
        return events
    }

    // MARK: - Time

    /// Lets `seconds` of virtual time pass. An outstanding completion past its deadline makes
    /// the sheet show "Payment Not Completed", close, and the page receive `cancel`.
    public mutating func advance(by seconds: Double) -> [DispatchedEvent] {
        now += max(0, seconds)
        var events: [DispatchedEvent] = []
        if let s = sheet, s.visible, let deadline = s.outstanding?.deadline, now >= deadline {
            sheet?.status = SheetStatus.paymentNotCompleted
            sessions[s.session].end(.canceled)
            close(result: .timedOut)
            emit(.cancel(ApplePaySessionError()), to: s.session, events: &events)
        }
        return events
    }

    // MARK: - User actions

    /// The simulated user does `action`. An action the sheet cannot take now is reported as an
    /// ``SheetEvent/ignored(action:reason:)`` event and changes nothing.
    ///
    /// `source` says who acts: the simulated shopper, or the stand-in for WebKit's
    /// `MockPaymentCoordinator` (``ActionSource``).
    public mutating func perform(_ action: UserAction, from source: ActionSource = .user) -> [DispatchedEvent] {
        var events: [DispatchedEvent] = []
        if let reason = userBlockReason(for: action, from: source) {
            events.append(
                DispatchedEvent(
                    session: sheet?.session ?? 1,
                    event: .ignored(action: action.name, reason: reason)
                )
            )
            return events
        }
        // Not blocked: a sheet is shown.
        guard let s = sheet?.session else { return events }
        let version = sessions[s].version
        switch action {
        case .cancel:
            cancel(s, status: nil, events: &events)
        case .editContact(let email, let phone):
            if let email { sheet?.email = email }
            if let phone { sheet?.phone = phone }
            sheet?.errors[.contact] = nil
        case .selectPaymentMethod(let index):
            sheet?.userActed()
            sheet?.cardIndex = index
            sheet?.errors[.card] = nil
            dispatchPaymentMethod(s, version: version, events: &events)
        case .selectShippingContact(let index):
            sheet?.userActed()
            sheet?.contactIndex = index
            dispatchShippingContact(s, events: &events)
        case .editShippingContact(let contact):
            sheet?.userActed()
            sheet?.edit(shippingContact: contact)
            dispatchShippingContact(s, events: &events)
        case .selectShippingMethod(let id):
            // Not blocked: the method is the sheet's.
            guard let m = sheet?.methods.first(where: { $0.identifier == id }) else { return events }
            sheet?.userActed()
            sheet?.methodIdentifier = id
            sheet?.errors[.method] = nil
            dispatch(
                .shippingmethodselected,
                state: .shippingMethodSelected,
                event: .shippingMethodSelected(Self.pageMethod(m)),
                session: s,
                events: &events
            )
        case .enterCouponCode(let code):
            sheet?.userActed()
            sheet?.couponCode = code
            sheet?.errors[.coupon] = nil
            dispatch(
                .couponcodechanged,
                state: .couponCodeChanged,
                event: .couponCodeChanged(code),
                session: s,
                events: &events
            )
        case .authorize:
            // Not blocked: a usable card is selected.
            guard let payment = authorizedPayment(s) else { return events }
            sheet?.userActed()
            sessions[s].step(to: .authorized)
            setOutstanding(.paymentauthorized)
            emit(.paymentAuthorized(payment), to: s, events: &events)
        }
        return events
    }

    /// Why `action` cannot be taken now, or `nil`.
    func userBlockReason(for action: UserAction, from source: ActionSource = .user) -> String? {
        guard let sh = sheet, sh.visible else { return "the sheet is not shown" }
        let rec = sessions[sh.session]
        if case .cancel = action { return nil }
        if !rec.isMerchantValidated, source == .user { return "merchant validation is not complete" }
        if case .authorize = action, source == .webKitMock, configuration.webKitMock {
            // WebKit's mock accepts whatever the sheet would require.
            guard let o = sh.outstanding, o.event != .validatemerchant else { return nil }
            return "waiting for the page to complete \(o.event.rawValue)"
        }
        if case .editContact = action {
            return rec.state == .authorized ? "the payment is being authorized" : nil
        }
        if let o = sh.outstanding, !(source == .webKitMock && o.event == .validatemerchant) {
            return "waiting for the page to complete \(o.event.rawValue)"
        }
        switch action {
        case .selectPaymentMethod(let i):
            if !sh.usableCards.contains(i) { return "no usable card at index \(i)" }
        case .selectShippingContact(let i):
            if !sh.requestsShipping { return "the request asks for no shipping address" }
            if !sh.contacts.indices.contains(i) { return "no shipping contact at index \(i)" }
        case .editShippingContact:
            if !sh.requestsShipping { return "the request asks for no shipping address" }
            if sh.request.shippingContactEditingMode == .storePickup {
                return "the shipping contact cannot be edited (storePickup)"
            }
        case .selectShippingMethod(let id):
            if !sh.methods.contains(where: { $0.identifier == id }) { return "no shipping method \"\(id)\"" }
        case .enterCouponCode:
            if sh.request.supportsCouponCode != true { return "the request does not support coupon codes" }
        case .authorize:
            if let r = sh.authorizeBlockReason { return r }
        case .cancel, .editContact: break
        }
        return nil
    }

    // MARK: - Dispatch helpers

    mutating func setOutstanding(_ e: SheetEventType) {
        let deadline = now + configuration.timeoutSeconds
        sheet?.wait(for: e, until: deadline)
    }

    mutating func emit(_ event: SheetEvent, to s: Int, events: inout [DispatchedEvent]) {
        if let p = sessions[s].paymentRequest {
            // A PaymentRequest always learns of the payment and of the sheet closing.
            if let e = paymentRequestEvent(for: event, request: p) {
                events.append(DispatchedEvent(session: s, event: e))
            }
            return
        }
        if let t = SheetEventType(rawValue: event.type), !configuration.listeners.contains(t) { return }
        events.append(DispatchedEvent(session: s, event: event))
    }

    /// Dispatches a selection event, or completes it with no update when the page has no listener.
    @discardableResult
    private mutating func dispatch(
        _ type: SheetEventType,
        state: SessionPhase.Step,
        event: SheetEvent,
        session s: Int,
        events: inout [DispatchedEvent]
    ) -> Bool {
        guard configuration.listeners.contains(type) else { return false }
        sessions[s].step(to: state)
        setOutstanding(type)
        emit(event, to: s, events: &events)
        return true
    }

    @discardableResult
    private mutating func dispatchPaymentMethod(_ s: Int, version: Int, events: inout [DispatchedEvent]) -> Bool {
        guard let shown = sheet, let card = shown.selectedCard else { return false }
        if let p = sessions[s].paymentRequest {
            paymentRequests[p].selectedType = card.type
            if !configuration.listeners.contains(.paymentmethodselected) {
                // No `paymentmethodchange` listener: the handler applies the modifiers itself.
                applyPaymentRequestTotals(p, events: &events)
                return false
            }
        }
        var method = ApplePayPaymentMethod(
            displayName: card.displayName,
            network: card.pageNetworkName,
            type: card.type,
            paymentPass: card.paymentPass
        )
        if version >= 10, !shown.requestsShipping, let b = card.billingContact {
            method.billingContact = Redaction.redacted(b)
        }
        return dispatch(
            .paymentmethodselected,
            state: .paymentMethodSelected,
            event: .paymentMethodSelected(method),
            session: s,
            events: &events
        )
    }

    @discardableResult
    private mutating func dispatchShippingContact(_ s: Int, events: inout [DispatchedEvent]) -> Bool {
        sheet?.errors[.shipping] = nil
        sheet?.shippingNeedsChange = false
        guard let shown = sheet, shown.requestsShipping, let c = shown.selectedContact else { return false }
        return dispatch(
            .shippingcontactselected,
            state: .shippingContactSelected,
            event: .shippingContactSelected(Redaction.redacted(c)),
            session: s,
            events: &events
        )
    }

    private mutating func continueInitialEvents(events: inout [DispatchedEvent]) {
        guard let s = sheet?.session else { return }
        while let shown = sheet, shown.visible, shown.outstanding == nil, let next = shown.pendingInitial.first {
            sheet?.pendingInitial.removeFirst()
            switch next {
            case .paymentmethodselected: dispatchPaymentMethod(s, version: sessions[s].version, events: &events)
            case .shippingcontactselected: dispatchShippingContact(s, events: &events)
            case .shippingmethodselected:
                if let m = shown.selectedMethod {
                    dispatch(
                        .shippingmethodselected,
                        state: .shippingMethodSelected,
                        event: .shippingMethodSelected(Self.pageMethod(m)),
                        session: s,
                        events: &events
                    )
                }
            case .couponcodechanged:
                if shown.request.supportsCouponCode == true, let c = shown.couponCode {
                    dispatch(
                        .couponcodechanged,
                        state: .couponCodeChanged,
                        event: .couponCodeChanged(c),
                        session: s,
                        events: &events
                    )
                }
            default: break
            }
        }
    }

    static func pageMethod(_ m: ApplePayShippingMethod) -> ApplePayShippingMethod {
        var m = m
        m.selected = nil
        return m
    }

    /// The payment the page is told of when the user authorizes with the sheet's selected card
    /// (`nil` when no card is selected).
    private mutating func authorizedPayment(_ s: Int) -> ApplePayPayment? {
        guard let sh = sheet, let card = sh.selectedCard else { return nil }
        let rec = sessions[s]
        tokenSequence += 1
        var token = configuration.tokenFactory.makeToken(
            for: TokenContext(card: card, request: sh.request, total: sh.total, sequence: tokenSequence)
        )
        let billing = Redaction.authorized(
            card.billingContact,
            fields: rec.request.requiredBillingContactFields?.filter {
                $0 == .postalAddress || $0 == .name || $0 == .phoneticName
            },
            email: nil,
            phone: nil,
            version: rec.version
        )
        let shipping = Redaction.authorized(
            sh.selectedContact,
            fields: rec.request.requiredShippingContactFields,
            email: sh.email,
            phone: sh.phone,
            version: rec.version
        )
        if configuration.webKitMock {
            // `MockPaymentCoordinator::acceptPayment`: the mock's shipping contact, nothing else.
            return ApplePayPayment(
                token: token,
                billingContact: nil,
                shippingContact: Self.mockVersioned(mockContact, version: rec.version)
            )
        }
        if rec.version >= 10, let billing { token.paymentMethod.billingContact = billing }
        return ApplePayPayment(token: token, billingContact: billing, shippingContact: shipping)
    }

    /// Ends session `s` as canceled: its sheet, if shown, closes with `status` on it, and the page
    /// gets `cancel`.
    mutating func cancel(_ s: Int, status: String?, events: inout [DispatchedEvent]) {
        sessions[s].end(.canceled)
        if showsSheet(s) {
            sheet?.status = status
            close(result: .canceled)
        }
        emit(.cancel(ApplePaySessionError()), to: s, events: &events)
    }

    /// Whether the sheet is on screen for session `s`.
    func showsSheet(_ s: Int) -> Bool { sheet?.session == s && sheet?.visible == true }

    mutating func close(result: SheetResult) {
        sheet?.close(result)
    }
}
