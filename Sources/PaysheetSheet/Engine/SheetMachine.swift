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
    /// The merchant-validation deadline under WebKit's test runner (see ``begin``).
    static let mockValidationSeconds: Double = 8

    /// How many times a sheet was shown (a mock coordinator's action is for the showing it was made in).
    public private(set) var showCount = 0
    /// What WebKit's mock coordinator would hold (``MockCoordinatorView``).
    public internal(set) var mockView = MockCoordinatorView()

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

    /// The language of the sheet's own words (``SheetConfiguration/language``); the sheet shown
    /// now speaks it from its next snapshot.
    public mutating func setLanguage(_ language: SheetLanguage) { configuration.language = language }

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
    public func canMakePaymentsWithActiveCard() -> PageResult {
        if configuration.thirdPartyBrowser, frameRefusal == nil { return PageResult(returned: .bool(false)) }
        if let active = configuration.activeCard, frameRefusal == nil, canMakePayments().returned?.boolValue == true {
            return PageResult(returned: .bool(active))
        }
        return canMakePayments()
    }

    /// `ApplePaySession.applePayCapabilities(merchantIdentifier)`: one of the four
    /// `PaymentCredentialStatus` values. A device told it cannot make payments does not support
    /// Apple Pay; a third-party browser cannot see the wallet; otherwise the wallet's cards decide.
    public func applePayCapabilities() -> PageResult {
        if let refusal = frameRefusal { return PageResult(threw: refusal) }
        let status: String
        if configuration.canMakePayments == false {
            status = "applePayUnsupported"
        } else if configuration.thirdPartyBrowser {
            status = "paymentCredentialStatusUnknown"
        } else if configuration.canMakePayments == true || !configuration.wallet.cards.isEmpty {
            status = "paymentCredentialsAvailable"
        } else {
            status = "paymentCredentialsUnavailable"
        }
        return PageResult(returned: ["paymentCredentialStatus": .string(status)])
    }

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
        var object = JSONObject()
        object["code"] = first ?? .string("undefined")
        if arguments.count > 1, let field = arguments[1] { object["contactField"] = field }
        if arguments.count > 2, let message = arguments[2] { object["message"] = message }
        do throws(ScriptError) {
            let applePayError = try WebIDLBinding(profile: configuration.profile).applePayError(.object(object))
            return PageResult(returned: applePayError.jsonValue)
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

    private mutating func perform(
        _ call: PageCall,
        on session: Int,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        switch call {
        case .begin: try begin(session, events: &events)
        case .abort: try abort(session)
        case .completeMerchantValidation(let value): try completeMerchantValidation(session, value, events: &events)
        case .completePaymentMethodSelection(let value):
            try completeUpdate(
                session,
                try updateValidator.bindUpdate(value, kind: .paymentMethod),
                kind: .paymentMethod,
                events: &events
            )
        case .completeShippingContactSelection(let value):
            try completeUpdate(
                session,
                try updateValidator.bindUpdate(value, kind: .shippingContact),
                kind: .shippingContact,
                events: &events
            )
        case .completeShippingMethodSelection(let value):
            try completeUpdate(
                session,
                try updateValidator.bindUpdate(value, kind: .shippingMethod),
                kind: .shippingMethod,
                events: &events
            )
        case .completeCouponCodeChange(let value):
            try completeUpdate(
                session,
                try updateValidator.bindUpdate(value, kind: .couponCode),
                kind: .couponCode,
                events: &events
            )
        case .completePayment(let value):
            try completePayment(session, try updateValidator.bindResult(value), events: &events)
        case .legacy(let method, let args): try legacy(session, method, args, events: &events)
        }
    }

    mutating func begin(_ session: Int, events: inout [DispatchedEvent]) throws(ScriptError) {
        guard sessions[session].state == .idle else { throw .invalidAccess("Payment session is already active.") }
        if sessions.contains(otherThan: session, where: \.isBegun) {
            throw .invalidAccess("Page already has an active payment session.")
        }
        sessions[session].begin()
        showCount += 1
        mockView.shown(sessions[session].request)
        sheet = SheetState(
            session: session,
            request: sessions[session].request,
            wallet: configuration.wallet,
            initialEvents: configuration.initialEvents
        )
        if let reason = SheetBilling.conflict(sessions[session].request) {
            // Apple: such a request "results in an error and cancels the payment request".
            cancel(session, status: reason, events: &events)
            return
        }
        setOutstanding(.validatemerchant)
        if configuration.webKitMock {
            // WebKit's mock has no clock and a page that never completes merchant validation
            // would wait forever; the simulated sheet gives it `mockValidationSeconds` (Safari's
            // sheet gives up after 30 s), so a run of WebKit's pages never hangs on the simulator.
            sheet?.wait(
                for: .validatemerchant,
                until: now + min(configuration.timeoutSeconds, Self.mockValidationSeconds)
            )
            // WebKit's mock: its own URL, and no sheet events but its shipping contact.
            if let contact = sessions[session].request.shippingContact { mockContact = contact }
            sheet?.pendingInitial = []
            emit(.validateMerchant(validationURL: "https://webkit.org/"), to: session, events: &events)
            return
        }
        emit(.validateMerchant(validationURL: configuration.validationURL), to: session, events: &events)
    }

    mutating func abort(_ session: Int) throws(ScriptError) {
        guard sessions[session].isBegun else { throw .invalidAccess() }
        sessions[session].end(.aborted)
        if showsSheet(session) { close(result: .aborted) }
    }

    mutating func completeMerchantValidation(
        _ session: Int,
        _ value: JSONValue,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        guard sessions[session].state == .active, !sessions[session].isMerchantValidated else { throw .invalidAccess() }
        guard case .object = value else {
            if case .array = value { throw .invalidAccess() }
            throw .typeError("Type error")
        }
        if configuration.merchantSessions == .checked, !configuration.webKitMock, case .object(let object) = value,
            let reason = MerchantSessionCheck.problem(
                object,
                verifier: configuration.merchantSessionVerifier,
                pageDomain: configuration.pageDomain,
                nowMs: configuration.epochMs + now * 1000
            )
        {
            // The wallet refuses the session: the sheet closes and the page gets `cancel`.
            sessions[session].merchantValidationEnded()
            events.append(
                DispatchedEvent(session: session, event: .ignored(action: "completeMerchantValidation", reason: reason))
            )
            cancel(session, status: reason, events: &events)
            return
        }
        sessions[session].merchantValidationEnded()
        sheet?.stopWaiting()
        if configuration.webKitMock, showsSheet(session) {
            if let paymentRequest = sessions[session].paymentRequest, paymentRequests[paymentRequest].showDetails {
                // The page's events wait for `show()`'s details (`whenDetailsSettled`).
                paymentRequests[paymentRequest].heldShippingContact = true
                return
            }
            dispatchMockShippingContact(session, events: &events)
            return
        }
        continueInitialEvents(events: &events)
    }

    /// `MockPaymentCoordinator::completeMerchantValidation` reports its shipping contact.
    mutating func dispatchMockShippingContact(_ session: Int, events: inout [DispatchedEvent]) {
        dispatch(
            .shippingcontactselected,
            state: .shippingContactSelected,
            event: .shippingContactSelected(Self.mockVersioned(mockContact, version: sessions[session].version)),
            session: session,
            events: &events
        )
    }

    /// A contact as WebKit converts it for a page of API `version` (phonetic names from version 3).
    static func mockVersioned(_ contact: ApplePayPaymentContact, version: Int) -> ApplePayPaymentContact {
        var contact = contact
        if version < 3 {
            contact.phoneticGivenName = nil
            contact.phoneticFamilyName = nil
        }
        return contact
    }

    /// WebKit's mock coordinator's `setShippingAddress`: the contact it reports after merchant
    /// validation and pays with, from now on (a request's own `shippingContact` replaces it).
    public mutating func setMockShippingAddress(_ contact: ApplePayPaymentContact) { mockContact = contact }

    /// WebKit's mock coordinator's `changePaymentMethod`: the page is told of `method` as given
    /// (no card of the wallet behind it, no redaction); a `PaymentRequest`'s modifiers follow its
    /// `type`. Reported like a user action that cannot be taken when the sheet is not waiting.
    public mutating func mockChangePaymentMethod(_ method: ApplePayPaymentMethod) -> [DispatchedEvent] {
        var events: [DispatchedEvent] = []
        guard let shown = sheet, shown.visible else {
            events.append(
                DispatchedEvent(
                    session: sheet?.session ?? 1,
                    event: .ignored(action: "changePaymentMethod", reason: "the sheet is not shown")
                )
            )
            return events
        }
        let detailsPending = sessions[shown.session].paymentRequest.map { paymentRequests[$0].showDetails } ?? false
        if detailsPending || (shown.outstanding.map { $0.event != .validatemerchant } ?? false) {
            if let paymentRequest = sessions[shown.session].paymentRequest {
                // WebKit records the card's type now and holds the event until the page's update
                // settles (`PaymentRequest::whenDetailsSettled`).
                paymentRequests[paymentRequest].selectedType = method.type
                paymentRequests[paymentRequest].deferredMethodChange = method
                return events
            }
            events.append(
                DispatchedEvent(
                    session: shown.session,
                    event: .ignored(
                        action: "changePaymentMethod",
                        reason: "waiting for the page to complete \(shown.outstanding?.event.rawValue ?? "")"
                    )
                )
            )
            return events
        }
        let session = shown.session
        if let paymentRequest = sessions[session].paymentRequest {
            paymentRequests[paymentRequest].selectedType = method.type
            if !configuration.listeners.contains(.paymentmethodselected) {
                applyPaymentRequestTotals(paymentRequest, events: &events)
                return events
            }
        }
        dispatch(
            .paymentmethodselected,
            state: .paymentMethodSelected,
            event: .paymentMethodSelected(method),
            session: session,
            events: &events
        )
        return events
    }

    mutating func completeUpdate(
        _ session: Int,
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
        guard sessions[session].state == expected else { throw .invalidAccess() }
        let update = try updateValidator.checkUpdate(bound, kind: kind)
        lastPageErrors = update.errors ?? []
        sessions[session].step(to: .active)
        guard showsSheet(session) else { return }
        mockView.updated(update, kind: kind)
        sheet?.stopWaiting()
        sheet?.apply(update: update, kind: kind)
        continueInitialEvents(events: &events)
    }

    mutating func completePayment(
        _ session: Int,
        _ bound: ApplePayPaymentAuthorizationResult,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        guard sessions[session].state == .authorized else { throw .invalidAccess() }
        let checked = try updateValidator.checkResult(bound)
        lastPageErrors = bound.errors ?? []
        mockView.completed(errors: bound.errors ?? [])
        guard showsSheet(session) else {
            if checked.isFinal { sessions[session].end(.completed) } else { sessions[session].step(to: .active) }
            return
        }
        sheet?.stopWaiting()
        // Shown: checked above.
        guard let outcome = sheet?.apply(result: checked, pageErrors: bound.errors ?? []) else { return }
        if checked.isFinal {
            sessions[session].end(.completed)
            if outcome.paid { paid = true }
            keepWalletOrder(checked.orderDetails, paid: outcome.paid)
            close(result: outcome.paid ? .success : .failure)
        } else {
            sessions[session].step(to: .active)
        }
    }

    private mutating func legacy(
        _ session: Int,
        _ method: PageCall.Method,
        _ args: [JSONValue],
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        let binding = WebIDLBinding(profile: configuration.profile)
        func need(_ count: Int) throws(ScriptError) { if args.count < count { throw .notEnoughArguments } }
        switch method {
        case .completePayment:
            try need(1)
            if case .object = args[0] {
                return try completePayment(session, try updateValidator.bindResult(args[0]), events: &events)
            }
            let status = binding.unsignedLong(args[0]) & 0xFFFF
            try completePayment(
                session,
                try updateValidator.bindResult(["status": .number(String(status))]),
                events: &events
            )
        case .completePaymentMethodSelection:
            if args.count == 1 {
                return try perform(.completePaymentMethodSelection(args[0]), on: session, events: &events)
            }
            try need(2)
            let total = try binding.lineItem(args[0])
            let items = try binding.lineItems(args[1])
            try completeUpdate(
                session,
                ApplePayUpdate(newTotal: total, newLineItems: items),
                kind: .paymentMethod,
                events: &events
            )
        case .completeShippingMethodSelection:
            if args.count == 1 {
                return try perform(.completeShippingMethodSelection(args[0]), on: session, events: &events)
            }
            try need(3)
            let status = binding.unsignedLong(args[0]) & 0xFFFF
            let total = try binding.lineItem(args[1])
            let items = try binding.lineItems(args[2])
            switch status {
            case 0:
                try completeUpdate(
                    session,
                    ApplePayUpdate(newTotal: total, newLineItems: items),
                    kind: .shippingMethod,
                    events: &events
                )
            case 1...7:
                // "This is a fatal error. Cancel the request." — before any state check.
                sessions[session].step(to: .cancelRequested)
                if showsSheet(session) {
                    sessions[session].end(.canceled)
                    close(result: .canceled)
                    emit(.cancel(ApplePaySessionError()), to: session, events: &events)
                }
            default: throw .invalidAccess()
            }
        case .completeShippingContactSelection:
            if args.count == 1 {
                return try perform(.completeShippingContactSelection(args[0]), on: session, events: &events)
            }
            try need(4)
            let status = binding.unsignedLong(args[0]) & 0xFFFF
            let methods = try binding.shippingMethods(args[1])
            let total = try binding.lineItem(args[2])
            let items = try binding.lineItems(args[3])
            let error: ApplePayError?
            switch status {
            case 0: error = nil
            case 1, 5, 6, 7: error = ApplePayError(.unknown)
            case 2: error = ApplePayError(.billingContactInvalid)
            case 3: error = ApplePayError(.shippingContactInvalid, contactField: .postalAddress)
            case 4: error = ApplePayError(.shippingContactInvalid)
            default: throw .invalidAccess()
            }
            let update = ApplePayUpdate(
                newTotal: total,
                newLineItems: items,
                newShippingMethods: methods,
                errors: error.map { [$0] } ?? []
            )
            try completeUpdate(session, update, kind: .shippingContact, events: &events)
        case .begin, .abort, .completeMerchantValidation, .completeCouponCodeChange:
            // No positional form: the call with its first argument.
            guard let first = args.first else { throw .notEnoughArguments }
            try perform(PageCall(method, argument: first), on: session, events: &events)
        }
    }

    // MARK: - Page lifecycle

    /// The page navigates away and enters the back/forward cache: every active session is
    /// canceled (and gets `cancel`); idle sessions survive.
    public mutating func navigate() -> [DispatchedEvent] {
        var events: [DispatchedEvent] = []
        for session in sessions.numbers where sessions[session].isBegun {
            sessions[session].end(.canceled)
            if showsSheet(session) { close(result: .canceled) }
            emit(.cancel(ApplePaySessionError()), to: session, events: &events)
        }
        // A response the page kept is closed: its `complete()` and `retry()` reject with
        // `AbortError` when the page comes back (WebKit's `PaymentRequest::suspend`).
        for index in paymentRequests.indices
        where paymentRequests[index].response == .open || paymentRequests[index].response == .retrying {
            paymentRequests[index].response = .closed
        }
        return events
    }

    // MARK: - Time

    /// Lets `seconds` of virtual time pass. An outstanding completion past its deadline makes
    /// the sheet show "Payment Not Completed", close, and the page receive `cancel`.
    public mutating func advance(by seconds: Double) -> [DispatchedEvent] {
        now += max(0, seconds)
        var events: [DispatchedEvent] = []
        if let shown = sheet, shown.visible, let deadline = shown.outstanding?.deadline, now >= deadline {
            sheet?.status = .sheet(.statusPaymentNotCompleted)
            sessions[shown.session].end(.canceled)
            close(result: .timedOut)
            emit(.cancel(ApplePaySessionError()), to: shown.session, events: &events)
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
        guard let session = sheet?.session else { return events }
        let version = sessions[session].version
        switch action {
        case .cancel:
            cancel(session, status: nil, events: &events)
        case .editContact(let email, let phone):
            if let email { sheet?.email = email }
            if let phone { sheet?.phone = phone }
            sheet?.errors[.contact] = nil
        case .selectPaymentMethod(let index):
            sheet?.userActed()
            sheet?.cardIndex = index
            sheet?.errors[.card] = nil
            dispatchPaymentMethod(session, version: version, events: &events)
        case .selectShippingContact(let index):
            sheet?.userActed()
            sheet?.contactIndex = index
            dispatchShippingContact(session, events: &events)
        case .editShippingContact(let contact):
            sheet?.userActed()
            sheet?.edit(shippingContact: contact)
            dispatchShippingContact(session, events: &events)
        case .selectShippingMethod(let id):
            // Not blocked: the method is the sheet's.
            guard let method = sheet?.methods.first(where: { $0.identifier == id }) else { return events }
            sheet?.userActed()
            sheet?.methodIdentifier = id
            sheet?.errors[.method] = nil
            dispatch(
                .shippingmethodselected,
                state: .shippingMethodSelected,
                event: .shippingMethodSelected(Self.pageMethod(method)),
                session: session,
                events: &events
            )
        case .enterCouponCode(let code):
            enterCouponCode(code, session: session, events: &events)
        case .authorize:
            // Not blocked: a usable card is selected.
            guard let payment = authorizedPayment(session) else { return events }
            sheet?.userActed()
            sessions[session].step(to: .authorized)
            setOutstanding(.paymentauthorized)
            emit(.paymentAuthorized(payment), to: session, events: &events)
        }
        return events
    }

    /// The shopper enters a coupon code: the session's `couponcodechanged`, or a request's
    /// `paymentmethodchange` with `{couponCode}`.
    private mutating func enterCouponCode(_ code: String, session: Int, events: inout [DispatchedEvent]) {
        sheet?.userActed()
        sheet?.couponCode = code
        sheet?.errors[.coupon] = nil
        if let paymentRequest = sessions[session].paymentRequest {
            return dispatchCouponCode(code, request: paymentRequest, session: session, events: &events)
        }
        dispatch(
            .couponcodechanged,
            state: .couponCodeChanged,
            event: .couponCodeChanged(code),
            session: session,
            events: &events
        )
    }

    /// Why `action` cannot be taken now, or `nil`.
    func userBlockReason(for action: UserAction, from source: ActionSource = .user) -> String? {
        guard let shown = sheet, shown.visible else { return "the sheet is not shown" }
        let record = sessions[shown.session]
        if case .cancel = action { return nil }
        if !record.isMerchantValidated, source == .user { return "merchant validation is not complete" }
        if case .authorize = action, source == .webKitMock, configuration.webKitMock {
            // WebKit's mock accepts whatever the sheet would require.
            guard let waiting = shown.outstanding, waiting.event != .validatemerchant else { return nil }
            return "waiting for the page to complete \(waiting.event.rawValue)"
        }
        if case .editContact = action {
            return record.state == .authorized ? "the payment is being authorized" : nil
        }
        if let waiting = shown.outstanding, !(source == .webKitMock && waiting.event == .validatemerchant) {
            return "waiting for the page to complete \(waiting.event.rawValue)"
        }
        switch action {
        case .selectPaymentMethod(let index):
            if !shown.usableCards.contains(index) { return "no usable card at index \(index)" }
        case .selectShippingContact(let index):
            if !shown.requestsShipping { return "the request asks for no shipping address" }
            if !shown.contacts.indices.contains(index) { return "no shipping contact at index \(index)" }
        case .editShippingContact:
            if !shown.requestsShipping { return "the request asks for no shipping address" }
            if shown.request.shippingContactEditingMode == .storePickup {
                return "the shipping contact cannot be edited (storePickup)"
            }
        case .selectShippingMethod(let id):
            if !shown.methods.contains(where: { $0.identifier == id }) { return "no shipping method \"\(id)\"" }
        case .enterCouponCode:
            // WebKit's mock enters a code whatever the request says (`changeCouponCode`).
            if shown.request.supportsCouponCode != true, source != .webKitMock {
                return "the request does not support coupon codes"
            }
        case .authorize:
            if let reason = shown.authorizeBlockReason { return reason }
        case .cancel, .editContact: break
        }
        return nil
    }

    // MARK: - Dispatch helpers

    mutating func setOutstanding(_ event: SheetEventType) {
        let deadline = now + configuration.timeoutSeconds
        sheet?.wait(for: event, until: deadline)
    }

    mutating func emit(_ event: SheetEvent, to session: Int, events: inout [DispatchedEvent]) {
        if let paymentRequest = sessions[session].paymentRequest {
            // A PaymentRequest always learns of the payment and of the sheet closing.
            if let pageEvent = paymentRequestEvent(for: event, request: paymentRequest) {
                events.append(DispatchedEvent(session: session, event: pageEvent))
            }
            return
        }
        if let type = SheetEventType(rawValue: event.type), !configuration.listeners.contains(type) { return }
        events.append(DispatchedEvent(session: session, event: event))
    }

    /// Dispatches a selection event, or completes it with no update when the page has no listener.
    @discardableResult
    private mutating func dispatch(
        _ type: SheetEventType,
        state: SessionPhase.Step,
        event: SheetEvent,
        session: Int,
        events: inout [DispatchedEvent]
    ) -> Bool {
        guard configuration.listeners.contains(type) else { return false }
        sessions[session].step(to: state)
        setOutstanding(type)
        emit(event, to: session, events: &events)
        return true
    }

    @discardableResult
    private mutating func dispatchPaymentMethod(_ session: Int, version: Int, events: inout [DispatchedEvent]) -> Bool {
        guard let shown = sheet, let card = shown.selectedCard else { return false }
        if let paymentRequest = sessions[session].paymentRequest {
            paymentRequests[paymentRequest].selectedType = card.type
            if !configuration.listeners.contains(.paymentmethodselected) {
                // No `paymentmethodchange` listener: the handler applies the modifiers itself.
                applyPaymentRequestTotals(paymentRequest, events: &events)
                return false
            }
        }
        var method = ApplePayPaymentMethod(
            displayName: card.displayName,
            network: card.pageNetworkName,
            type: card.type,
            paymentPass: card.paymentPass
        )
        if version >= 10, !shown.requestsShipping, let billing = shown.request.billingContact ?? card.billingContact {
            method.billingContact = Redaction.redacted(billing)
        }
        return dispatch(
            .paymentmethodselected,
            state: .paymentMethodSelected,
            event: .paymentMethodSelected(method),
            session: session,
            events: &events
        )
    }

    @discardableResult
    private mutating func dispatchShippingContact(_ session: Int, events: inout [DispatchedEvent]) -> Bool {
        sheet?.errors[.shipping] = nil
        sheet?.shippingNeedsChange = false
        guard let shown = sheet, shown.requestsShipping, let contact = shown.selectedContact else { return false }
        return dispatch(
            .shippingcontactselected,
            state: .shippingContactSelected,
            event: .shippingContactSelected(Redaction.redacted(contact)),
            session: session,
            events: &events
        )
    }

    private mutating func continueInitialEvents(events: inout [DispatchedEvent]) {
        guard let session = sheet?.session else { return }
        while let shown = sheet, shown.visible, shown.outstanding == nil, let next = shown.pendingInitial.first {
            sheet?.pendingInitial.removeFirst()
            switch next {
            case .paymentmethodselected:
                dispatchPaymentMethod(session, version: sessions[session].version, events: &events)
            case .shippingcontactselected: dispatchShippingContact(session, events: &events)
            case .shippingmethodselected:
                if let method = shown.selectedMethod {
                    dispatch(
                        .shippingmethodselected,
                        state: .shippingMethodSelected,
                        event: .shippingMethodSelected(Self.pageMethod(method)),
                        session: session,
                        events: &events
                    )
                }
            case .couponcodechanged:
                if shown.request.supportsCouponCode == true, let code = shown.couponCode {
                    dispatch(
                        .couponcodechanged,
                        state: .couponCodeChanged,
                        event: .couponCodeChanged(code),
                        session: session,
                        events: &events
                    )
                }
            default: break
            }
        }
    }

    static func pageMethod(_ method: ApplePayShippingMethod) -> ApplePayShippingMethod {
        var method = method
        method.selected = nil
        return method
    }

    /// The payment the page is told of when the user authorizes with the sheet's selected card
    /// (`nil` when no card is selected).
    private mutating func authorizedPayment(_ session: Int) -> ApplePayPayment? {
        guard let shown = sheet, let card = shown.selectedCard else { return nil }
        let record = sessions[session]
        tokenSequence += 1
        var token = configuration.tokenFactory.makeToken(
            for: TokenContext(card: card, request: shown.request, total: shown.total, sequence: tokenSequence)
        )
        // The request's `billingContact` prefills the billing address (the card's otherwise).
        let billing = Redaction.authorized(
            record.request.billingContact ?? card.billingContact,
            fields: record.request.requiredBillingContactFields?.filter {
                $0 == .postalAddress || $0 == .name || $0 == .phoneticName
            },
            email: nil,
            phone: nil,
            version: record.version
        )
        let shipping = Redaction.authorized(
            shown.selectedContact,
            fields: record.request.requiredShippingContactFields,
            email: shown.email,
            phone: shown.phone,
            version: record.version
        )
        if configuration.webKitMock {
            // `MockPaymentCoordinator::acceptPayment`: the mock's shipping contact, nothing else.
            return ApplePayPayment(
                token: token,
                billingContact: nil,
                shippingContact: Self.mockVersioned(mockContact, version: record.version)
            )
        }
        if record.version >= 10, let billing { token.paymentMethod.billingContact = billing }
        return ApplePayPayment(token: token, billingContact: billing, shippingContact: shipping)
    }

    /// Ends session `s` as canceled: its sheet, if shown, closes with `status` on it (a diagnostic of
    /// the simulator, in English), and the page gets `cancel`.
    mutating func cancel(_ session: Int, status: String?, events: inout [DispatchedEvent]) {
        sessions[session].end(.canceled)
        if showsSheet(session) {
            sheet?.status = status.map(StatusLine.diagnostic)
            close(result: .canceled)
        }
        emit(.cancel(ApplePaySessionError()), to: session, events: &events)
    }

    /// Whether the sheet is on screen for session `s`.
    func showsSheet(_ session: Int) -> Bool { sheet?.session == session && sheet?.visible == true }

    mutating func close(result: SheetResult) {
        sheet?.close(result)
    }
}
