import Foundation
import PaysheetModel
import PaysheetSheet
import PaysheetSheetTokens
import PaysheetToken

/// One presented sheet: the engine (``SheetMachine``, the same that serves the web) driven by the
/// simulated shopper, its events handed to the PassKit delegate and the answers fed back through
/// the sheet's own validation. Read it from a test through ``PaysheetSimulator/sessions``.
public final class PaysheetSheetSession: @unchecked Sendable {
    // `@unchecked`: its state is only touched under `lock` (`Synchronization.Mutex` needs macOS 15,
    // the package supports macOS 14, and this target depends on nothing that has a checked lock).
    /// How the sheet ended.
    public enum Outcome: String, Sendable {
        /// Still open.
        case open
        /// Authorized, and the delegate reported success.
        case paid
        /// The delegate reported a failure.
        case failed
        /// The shopper canceled, or a deadline passed.
        case canceled
    }

    /// Who presented the sheet.
    enum Host {
        case controller(PKPaymentAuthorizationController)
        case viewController(PKPaymentAuthorizationViewController)
    }

    private let lock = NSLock()
    private var machine: SheetMachine
    let request: PKPaymentRequest
    let host: Host
    let simulator: PaysheetSimulator
    private var _calls: [String] = []
    private var _log: [String] = []
    private var _payment: PKPayment?
    private var _shown: [(cause: String, sheet: JSONValue)] = []
    private var _finished = false
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    private var _summaryItems: [PKPaymentSummaryItem]
    private var _shippingMethods: [PKShippingMethod]
    private var _selectedMethod: PKShippingMethod?

    private init(request: PKPaymentRequest, host: Host, simulator: PaysheetSimulator, machine: SheetMachine) {
        self.request = request
        self.host = host
        self.simulator = simulator
        self.machine = machine
        self._summaryItems = request.paymentSummaryItems
        self._shippingMethods = request.shippingMethods ?? []
        self._selectedMethod = request.shippingMethods?.first
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// The summary the sheet shows now (what a delegate's default answer keeps).
    var summaryItems: [PKPaymentSummaryItem] { locked { _summaryItems } }
    /// The shipping methods the sheet offers now (read by the presenter from the app's side).
    var shippingMethods: [PKShippingMethod] { locked { _shippingMethods } }

    // MARK: What a test reads

    /// The sheet as it shows now (the snapshot of docs/scenario-format.md: modules, texts, errors).
    public var snapshot: JSONValue { locked { machine.snapshot() } }
    /// What the sheet showed after each answer of the delegate and each step of the shopper, in
    /// order (``snapshot`` is the last).
    public var shown: [JSONValue] { locked { _shown.map(\.sheet) } }
    /// The same, each with what it followed: the page call the delegate's answer became
    /// (`completePayment`, `completeShippingContactSelection`, …) or the shopper's step (`authorize`, …).
    public var shownAfter: [(cause: String, sheet: JSONValue)] { locked { _shown } }
    /// The delegate methods the sheet called, in order (`didSelectShippingContact`, …).
    public var delegateCalls: [String] { locked { _calls } }
    /// What the simulator noticed (a handler never called, an answer the sheet refused, …).
    public var log: [String] { locked { _log } }
    /// The payment handed to the delegate, once authorized.
    public var payment: PKPayment? { locked { _payment } }
    /// Whether the delegate was told the sheet finished.
    public var isFinished: Bool { locked { _finished } }
    /// How the sheet ended.
    public var outcome: Outcome {
        locked {
            let state = machine.state(of: 1) ?? .idle
            if machine.paid { return .paid }
            switch state {
            case .completed: return .failed
            case .aborted, .canceled: return .canceled
            default: return .open
            }
        }
    }

    /// Waits until the delegate has been told the sheet finished.
    public func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if _finished {
                lock.unlock()
                continuation.resume()
            } else {
                finishWaiters.append(continuation)
                lock.unlock()
            }
        }
    }

    func note(_ line: String) { locked { _log.append(line) } }
    private func called(_ name: String) { locked { _calls.append(name) } }

    // MARK: Starting

    /// A session for `request`, or the reason iOS would not present it.
    static func make(
        request: PKPaymentRequest,
        host: Host,
        simulator: PaysheetSimulator
    ) -> Result<PaysheetSheetSession, PresentationRefusal> {
        if let problem = iOSRefusal(of: request) { return .failure(PresentationRefusal(problem)) }
        let factory: SandboxTokenFactory
        do {
            factory = try tokenFactory(for: request, simulator: simulator)
        } catch {
            return .failure(
                PresentationRefusal("no sandbox token can be made for \(request.merchantIdentifier): \(error)")
            )
        }
        var configuration = SheetConfiguration(wallet: simulator.wallet, tokenFactory: factory)
        configuration.language = simulator.language
        configuration.pageDomain = "app"
        var machine = SheetMachine(configuration: configuration)
        let json = PassKitBridge.$minorDigits.withValue(Currency(request.currencyCode)?.minorUnits) {
            PassKitBridge.request(request)
        }
        let constructed = machine.construct(version: 14, request: json)
        if let error = constructed.threw {
            return .failure(PresentationRefusal("the request is not valid: \(error)"))
        }
        return .success(PaysheetSheetSession(request: request, host: host, simulator: simulator, machine: machine))
    }

    /// What iOS checks before it shows a sheet, beyond the rules the engine applies.
    static func iOSRefusal(of request: PKPaymentRequest) -> String? {
        if request.merchantIdentifier.isEmpty { return "merchantIdentifier is empty" }
        if request.paymentSummaryItems.isEmpty { return "paymentSummaryItems is empty (the last item is the total)" }
        if !request.merchantCapabilities.contains(.threeDSecure) {
            return "merchantCapabilities must include threeDSecure (capability3DS)"
        }
        if request.supportedNetworks.isEmpty { return "supportedNetworks is empty" }
        if let total = request.paymentSummaryItems.last, total.amount.compare(NSDecimalNumber.zero) == .orderedAscending
        {
            return "the total (the last summary item) is negative"
        }
        return nil
    }

    static func tokenFactory(for request: PKPaymentRequest, simulator: PaysheetSimulator) throws -> SandboxTokenFactory
    {
        let folder = simulator.dataFolder
        let key: MerchantKey
        switch simulator.tokenFormat {
        case .ecV1:
            key = try SandboxMerchant.loadOrCreate(dataFolder: folder, merchantIdentifier: request.merchantIdentifier)
        case .rsaV1:
            key = try SandboxMerchant.loadOrCreate(
                dataFolder: folder,
                merchantIdentifier: request.merchantIdentifier,
                keyType: .rsa
            )
        }
        return SandboxTokenFactory(pki: try SandboxMerchant.pki(dataFolder: folder), recipient: TokenRecipient(key))
    }

    // MARK: Running

    /// Runs the sheet to its end: the initial events, then the shopper's steps.
    func run() async {
        await PassKitBridge.$minorDigits.withValue(Currency(request.currencyCode)?.minorUnits) { await runSteps() }
    }

    private func runSteps() async {
        let begun = locked { machine.call(.begin, session: 1) }
        if let error = begun.threw { note("the sheet did not begin: \(error)") }
        await deliver(begun.events)
        for step in simulator.shopper {
            // Cancelled: the presenter dismissed the sheet; the shopper's other steps are not taken.
            if isOver || Task.isCancelled { break }
            await perform(step)
        }
        if !isOver {
            note(
                Task.isCancelled
                    ? "the app dismissed the sheet while it was open: it is canceled"
                    : "the shopper's steps ended with the sheet open: the shopper dismisses it"
            )
            await perform(.cancel)
        }
        await finish()
    }

    private var isOver: Bool { locked { (machine.state(of: 1) ?? .idle).isFinal } }

    private func perform(_ step: PaysheetShopperStep) async {
        let action: UserAction
        switch step {
        case .selectCard(let index): action = .selectPaymentMethod(index: index)
        case .selectShippingContact(let index): action = .selectShippingContact(index: index)
        case .editShippingContact(let contact): action = .editShippingContact(contact)
        case .editContact(let email, let phone): action = .editContact(email: email, phone: phone)
        case .selectShippingMethod(let identifier): action = .selectShippingMethod(identifier: identifier)
        case .enterCouponCode(let code): action = .enterCouponCode(code)
        case .authorize: action = .authorize
        case .cancel: action = .cancel
        case .wait(let seconds):
            await deliver(locked { machine.advance(by: seconds) })
            return
        }
        let dispatched = locked { machine.perform(action) }
        locked { _shown.append((action.name, machine.snapshot())) }
        if let first = dispatched.first, case .ignored(let name, let reason) = first.event {
            note("\(name) ignored: \(reason)")
        }
        await deliver(dispatched)
    }

    private func finish() async {
        let waiters: [CheckedContinuation<Void, Never>]? = locked {
            guard !_finished else { return nil }
            _finished = true
            defer { finishWaiters = [] }
            return finishWaiters
        }
        guard let waiters else { return }
        switch host {
        case .controller(let controller):
            called("paymentAuthorizationControllerDidFinish")
            controller.delegate?.paymentAuthorizationControllerDidFinish(controller)
        case .viewController(let viewController):
            called("paymentAuthorizationViewControllerDidFinish")
            viewController.delegate?.paymentAuthorizationViewControllerDidFinish(viewController)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Asks the delegate, racing its answer against the completion deadline (real time).
    private func ask<T: Sendable>(
        _ name: String,
        _ question: @escaping @Sendable () async -> T,
        never: (T) -> Bool
    ) async
        -> T?
    {
        called(name)
        let answer = try? await FirstOf.value(within: simulator.completionTimeout) { await question() }
        guard let answer, !never(answer) else {
            note("\(name): the completion was never called; the sheet fails at its deadline")
            return nil
        }
        return answer
    }

    /// Hands the engine's events to the delegate and feeds the answers back.
    private func deliver(_ initial: [DispatchedEvent]) async {
        var queue = initial
        while !queue.isEmpty {
            let event = queue.removeFirst().event
            var call: PageCall?
            var answered = true
            switch event {
            case .validateMerchant:
                // An app has no merchant validation of its own: iOS validates with the entitlement.
                call = .completeMerchantValidation(["merchantSessionIdentifier": "PAYSHEET_IN_APP"])
            case .paymentMethodSelected(let method):
                let pkMethod = PassKitBridge.paymentMethod(method)
                if let update = await askPaymentMethod(pkMethod) {
                    call = .completePaymentMethodSelection(
                        PassKitBridge.update(update, errors: update.errors, methods: nil)
                    )
                    remember(update)
                } else {
                    answered = false
                }
            case .shippingContactSelected(let contact):
                let pkContact = PassKitBridge.contact(contact)
                if let update = await askShippingContact(pkContact) {
                    if let status = update.legacyStatus {
                        call = .legacy(
                            method: .completeShippingContactSelection,
                            arguments: PassKitBridge.legacyArguments(
                                status: status,
                                methods: update.legacyShippingMethods ?? [],
                                items: update.paymentSummaryItems
                            )
                        )
                        update.shippingMethods = update.legacyShippingMethods ?? []
                    } else {
                        call = .completeShippingContactSelection(
                            PassKitBridge.update(update, errors: update.errors, methods: update.shippingMethods)
                        )
                    }
                    remember(update)
                } else {
                    answered = false
                }
            case .shippingMethodSelected(let method):
                let pkMethod =
                    shippingMethods.first { $0.identifier == method.identifier }
                    ?? {
                        let m = PKShippingMethod(label: method.label, amount: NSDecimalNumber(string: method.amount))
                        m.identifier = method.identifier
                        m.detail = method.detail
                        return m
                    }()
                locked { _selectedMethod = pkMethod }
                if let update = await askShippingMethod(pkMethod) {
                    if let status = update.legacyStatus {
                        call = .legacy(
                            method: .completeShippingMethodSelection,
                            arguments: PassKitBridge.legacyArguments(
                                status: status,
                                methods: nil,
                                items: update.paymentSummaryItems
                            )
                        )
                    } else {
                        call = .completeShippingMethodSelection(
                            PassKitBridge.update(update, errors: nil, methods: update.shippingMethods)
                        )
                    }
                    remember(update)
                } else {
                    answered = false
                }
            case .couponCodeChanged(let code):
                if let update = await askCoupon(code) {
                    call = .completeCouponCodeChange(
                        PassKitBridge.update(update, errors: update.errors, methods: update.shippingMethods)
                    )
                    remember(update)
                } else {
                    answered = false
                }
            case .paymentAuthorized(let authorized):
                let payment = pkPayment(authorized)
                locked { _payment = payment }
                willAuthorize()
                if let result = await askAuthorization(payment) {
                    call =
                        result.isLegacy
                        ? .legacy(method: .completePayment, arguments: [.number(String(result.status.rawValue))])
                        : .completePayment(PassKitBridge.result(result))
                } else {
                    answered = false
                }
            case .cancel, .ignored, .paymentRequest:
                call = nil
            }
            if !answered {
                // Nothing will complete it: the sheet's deadline passes.
                let timeout = locked { machine.configuration.timeoutSeconds }
                queue += locked { machine.advance(by: timeout + 1) }
                continue
            }
            guard let call else { continue }
            let result = locked { machine.call(call, session: 1) }
            if let error = result.threw { note("the sheet refused the delegate's answer: \(error)") }
            locked { _shown.append((call.method.rawValue, machine.snapshot())) }
            queue += result.events
        }
    }

    private func remember(_ update: PKPaymentRequestUpdate) {
        locked {
            if !update.paymentSummaryItems.isEmpty { _summaryItems = update.paymentSummaryItems }
            if !update.shippingMethods.isEmpty { _shippingMethods = update.shippingMethods }
        }
    }

    private func pkPayment(_ payment: ApplePayPayment) -> PKPayment {
        let token = PKPaymentToken(
            paymentMethod: PassKitBridge.paymentMethod(payment.token.paymentMethod),
            transactionIdentifier: payment.token.transactionIdentifier ?? "",
            paymentData: Data(payment.token.paymentData.compactText.utf8)
        )
        return PKPayment(
            token: token,
            billingContact: payment.billingContact.map(PassKitBridge.contact),
            shippingContact: payment.shippingContact.map(PassKitBridge.contact),
            shippingMethod: request.shippingMethods == nil ? nil : locked { _selectedMethod }
        )
    }

    // MARK: The two delegates

    private func willAuthorize() {
        switch host {
        case .controller(let c):
            called("paymentAuthorizationControllerWillAuthorizePayment")
            c.delegate?.paymentAuthorizationControllerWillAuthorizePayment(c)
        case .viewController(let c):
            called("paymentAuthorizationViewControllerWillAuthorizePayment")
            c.delegate?.paymentAuthorizationViewControllerWillAuthorizePayment(c)
        }
    }

    private func askPaymentMethod(_ method: PKPaymentMethod) async -> PKPaymentRequestPaymentMethodUpdate? {
        switch host {
        case .controller(let c):
            guard let d = c.delegate else { return .init(paymentSummaryItems: summaryItems) }
            return await ask(
                "didSelectPaymentMethod",
                { await d.paymentAuthorizationController(c, didSelectPaymentMethod: method) }
            ) {
                $0.neverCompleted
            }
        case .viewController(let c):
            guard let d = c.delegate else { return .init(paymentSummaryItems: summaryItems) }
            return await ask(
                "didSelectPaymentMethod",
                { await d.paymentAuthorizationViewController(c, didSelect: method) }
            ) {
                $0.neverCompleted
            }
        }
    }

    private func askShippingContact(_ contact: PKContact) async -> PKPaymentRequestShippingContactUpdate? {
        switch host {
        case .controller(let c):
            guard let d = c.delegate else { return .init(paymentSummaryItems: summaryItems) }
            return await ask(
                "didSelectShippingContact",
                { await d.paymentAuthorizationController(c, didSelectShippingContact: contact) }
            ) { $0.neverCompleted }
        case .viewController(let c):
            guard let d = c.delegate else { return .init(paymentSummaryItems: summaryItems) }
            return await ask(
                "didSelectShippingContact",
                { await d.paymentAuthorizationViewController(c, didSelectShippingContact: contact) }
            ) { $0.neverCompleted }
        }
    }

    private func askShippingMethod(_ method: PKShippingMethod) async -> PKPaymentRequestShippingMethodUpdate? {
        switch host {
        case .controller(let c):
            guard let d = c.delegate else { return .init(paymentSummaryItems: summaryItems) }
            return await ask(
                "didSelectShippingMethod",
                { await d.paymentAuthorizationController(c, didSelectShippingMethod: method) }
            ) { $0.neverCompleted }
        case .viewController(let c):
            guard let d = c.delegate else { return .init(paymentSummaryItems: summaryItems) }
            return await ask(
                "didSelectShippingMethod",
                { await d.paymentAuthorizationViewController(c, didSelect: method) }
            ) {
                $0.neverCompleted
            }
        }
    }

    private func askCoupon(_ code: String) async -> PKPaymentRequestCouponCodeUpdate? {
        switch host {
        case .controller(let c):
            guard let d = c.delegate else { return .init(paymentSummaryItems: summaryItems) }
            return await ask(
                "didChangeCouponCode",
                { await d.paymentAuthorizationController(c, didChangeCouponCode: code) }
            ) {
                $0.neverCompleted
            }
        case .viewController(let c):
            guard let d = c.delegate else { return .init(paymentSummaryItems: summaryItems) }
            return await ask(
                "didChangeCouponCode",
                { await d.paymentAuthorizationViewController(c, didChangeCouponCode: code) }
            ) { $0.neverCompleted }
        }
    }

    private func askAuthorization(_ payment: PKPayment) async -> PKPaymentAuthorizationResult? {
        switch host {
        case .controller(let c):
            guard let d = c.delegate else { return nil }
            return await ask(
                "didAuthorizePayment",
                { await d.paymentAuthorizationController(c, didAuthorizePayment: payment) }
            ) {
                $0.neverCompleted
            }
        case .viewController(let c):
            guard let d = c.delegate else { return nil }
            return await ask(
                "didAuthorizePayment",
                { await d.paymentAuthorizationViewController(c, didAuthorizePayment: payment) }
            ) { $0.neverCompleted }
        }
    }
}

/// Why a sheet is not presented (logged by the simulator).
struct PresentationRefusal: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
