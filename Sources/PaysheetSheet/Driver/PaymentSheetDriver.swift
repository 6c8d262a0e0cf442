import PaysheetModel

/// Drives one simulated sheet session from Swift: the user's side through `async` methods, the
/// page's side through a ``PaymentSheetDelegate``, time through a ``TestClock``.
///
/// ```swift
/// let sheet = try await PaymentSheetDriver.begin(version: 14, request: request, delegate: MyCheckout())
/// try await sheet.selectShippingContact(1)
/// let outcome = try await sheet.authorize()
/// #expect(outcome.paid)
/// ```
///
/// Each event goes to the delegate; its answer is fed back through the same validation the
/// page's `complete*` calls get. A delegate that advances the clock past the sheet's deadline
/// sees its answer rejected, exactly as a slow page would.
public actor PaymentSheetDriver {
    /// The engine.
    public private(set) var machine: SheetMachine
    /// Every event the delegate received, in order.
    public private(set) var events: [SheetEvent] = []
    /// Completions the sheet rejected (a slow or invalid answer from the delegate).
    public private(set) var rejected: [ScriptError] = []
    /// The clock.
    public let clock: TestClock
    let delegate: any PaymentSheetDelegate
    var lastClock: Double = 0

    init(machine: SheetMachine, delegate: any PaymentSheetDelegate, clock: TestClock) {
        self.machine = machine
        self.delegate = delegate
        self.clock = clock
    }

    /// Constructs a session, begins it, and runs merchant validation and the initial events.
    /// Throws the page's exception when the request is invalid.
    public static func begin(
        version: Int,
        request: ApplePayPaymentRequest,
        delegate: any PaymentSheetDelegate,
        configuration: SheetConfiguration = SheetConfiguration(),
        clock: TestClock = TestClock()
    ) async throws -> PaymentSheetDriver {
        var machine = SheetMachine(configuration: configuration)
        let result = machine.construct(version: version, request: request.jsonValue)
        if let error = result.threw { throw error }
        let driver = PaymentSheetDriver(machine: machine, delegate: delegate, clock: clock)
        try await driver.page(.begin)
        return driver
    }

    /// The sheet snapshot (`docs/scenario-format.md`).
    public var snapshot: JSONValue { machine.snapshot() }
    /// Whether the payment completed with SUCCESS.
    public var paid: Bool { machine.paid }
    /// The session's page-visible state.
    public var state: SessionState { machine.state(of: 1) ?? .idle }

    /// An update that keeps the sheet's current total and line items (the delegate's default).
    public func unchangedUpdate() -> ApplePayUpdate {
        guard let summary = machine.summary else { return ApplePayUpdate(newTotal: machine.request(of: 1)?.total) }
        return ApplePayUpdate(newTotal: summary.total, newLineItems: summary.lineItems)
    }

    // MARK: User actions

    /// The user chooses the wallet's card at `index`.
    public func selectPaymentMethod(_ index: Int) async throws { try await user(.selectPaymentMethod(index: index)) }
    /// The user chooses the wallet's shipping contact at `index`.
    public func selectShippingContact(_ index: Int) async throws {
        try await user(.selectShippingContact(index: index))
    }
    /// The user edits the selected shipping contact.
    public func editShippingContact(_ contact: ApplePayPaymentContact) async throws {
        try await user(.editShippingContact(contact))
    }
    /// The user edits email or phone (no event).
    public func editContact(email: String? = nil, phone: String? = nil) async throws {
        try await user(.editContact(email: email, phone: phone))
    }
    /// The user chooses a shipping method.
    public func selectShippingMethod(_ identifier: String) async throws {
        try await user(.selectShippingMethod(identifier: identifier))
    }
    /// The user enters a coupon code.
    public func enterCouponCode(_ code: String) async throws { try await user(.enterCouponCode(code)) }
    /// The user cancels.
    public func cancel() async throws { try await user(.cancel) }

    /// The user authorizes; returns whether the payment completed.
    @discardableResult
    public func authorize() async throws -> Bool {
        try await user(.authorize)
        return machine.paid
    }

    /// Lets virtual time pass (a user who waits).
    public func wait(_ seconds: Double) async {
        await clock.advance(by: seconds)
        await syncClock()
    }

    /// An action the sheet ignored (authorize while an error is shown, …).
    public struct Ignored: Error, Sendable, CustomStringConvertible {
        /// The action.
        public var action: String
        /// Why.
        public var reason: String
        public var description: String { "\(action) ignored: \(reason)" }
    }

    func user(_ action: UserAction) async throws {
        await syncClock()
        let dispatched = machine.perform(action)
        if let first = dispatched.first, case .ignored(let ignoredAction, let reason) = first.event {
            throw Ignored(action: ignoredAction, reason: reason)
        }
        await deliver(dispatched)
    }

    func page(_ call: PageCall) async throws {
        let result = machine.call(call, session: 1)
        if let error = result.threw { throw error }
        await deliver(result.events)
    }

    private func syncClock() async {
        let now = await clock.now
        if now > lastClock {
            let dispatched = machine.advance(by: now - lastClock)
            lastClock = now
            await deliver(dispatched)
        }
    }

    /// Hands events to the delegate one at a time and feeds its answers back to the engine.
    private func deliver(_ initial: [DispatchedEvent]) async {
        var queue = initial
        while !queue.isEmpty {
            let event = queue.removeFirst().event
            events.append(event)
            let call: PageCall?
            switch event {
            case .validateMerchant(let url):
                call = .completeMerchantValidation(await delegate.paymentSheet(self, validateMerchantAt: url))
            case .paymentMethodSelected(let method):
                call = .completePaymentMethodSelection(
                    await delegate.paymentSheet(self, didSelectPaymentMethod: method).jsonValue
                )
            case .shippingContactSelected(let contact):
                call = .completeShippingContactSelection(
                    await delegate.paymentSheet(self, didSelectShippingContact: contact).jsonValue
                )
            case .shippingMethodSelected(let method):
                call = .completeShippingMethodSelection(
                    await delegate.paymentSheet(self, didSelectShippingMethod: method).jsonValue
                )
            case .couponCodeChanged(let code):
                call = .completeCouponCodeChange(await delegate.paymentSheet(self, didChangeCouponCode: code).jsonValue)
            case .paymentAuthorized(let payment):
                call = .completePayment(await delegate.paymentSheet(self, didAuthorizePayment: payment).jsonValue)
            case .cancel(let err):
                await delegate.paymentSheetDidCancel(self, error: err)
                call = nil
            case .ignored, .paymentRequest: call = nil
            }
            guard let call else { continue }
            // Time the delegate spent (it may have advanced the clock) counts against the deadline.
            let now = await clock.now
            if now > lastClock {
                queue += machine.advance(by: now - lastClock)
                lastClock = now
            }
            let result = machine.call(call, session: 1)
            if let error = result.threw { rejected.append(error) }
            queue += result.events
        }
    }
}
