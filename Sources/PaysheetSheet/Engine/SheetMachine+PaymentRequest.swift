import PaysheetModel

/// The Payment Request API with the Apple Pay method, on the same sheet and sessions as
/// `ApplePaySession` (WebKit's `PaymentRequest.cpp`, `PaymentResponse.cpp` and
/// `ApplePayPaymentHandler.cpp`). A shown request is an engine session marked with its request;
/// the session's events reach the page translated into the request's events and promises.
extension SheetMachine {
    var paymentRequestBinding: PaymentRequestBinding { PaymentRequestBinding(profile: configuration.profile) }

    /// The number of `PaymentRequest`s constructed so far.
    public var paymentRequestCount: Int { paymentRequests.count }

    /// `new PaymentRequest(methodData, details, options)`. On success `returned` is
    /// `{"request": n, "id": …, "shippingOption": …, "shippingType": …}` (n is 1-based).
    public mutating func constructPaymentRequest(
        methodData: JSONValue,
        details: JSONValue,
        options: JSONValue?
    ) -> PageResult {
        do throws(ScriptError) {
            // The Payment Request API refuses the same documents with a SecurityError
            // (`PaymentHandler::canCreateSession`).
            let refusal = frameRefusal.map { ScriptError(.securityError, $0.message) }
            let c = try paymentRequestBinding.construct(
                methodData: methodData,
                details: details,
                options: options,
                refusal: refusal
            )
            paymentRequests.append(
                PaymentRequestRecord(
                    methods: c.methods,
                    details: c.details,
                    options: c.options,
                    shippingOption: c.shippingOption
                )
            )
            var o = JSONObject()
            o["request"] = .number(String(paymentRequests.count))
            o["id"] = .string(c.details.id ?? "")
            o["shippingOption"] = c.shippingOption.map(JSONValue.string) ?? .null
            o["shippingType"] = c.options.requestShipping ? .string(c.options.shippingType.rawValue) : .null
            return PageResult(returned: .object(o))
        } catch {
            return PageResult(threw: error)
        }
    }

    /// Marks request `p`'s merchant validation completed, once and only while it is shown
    /// (`ApplePayPaymentHandler::merchantValidationCompleted`: the state first, then, for a session
    /// given at once, that it is an object).
    private mutating func completingMerchantValidation(_ p: Int, with session: JSONValue?) throws(ScriptError) {
        if paymentRequests[p].merchantValidationCompleted || paymentRequests[p].state != .interactive {
            throw .invalidState()
        }
        if let session, session.objectValue == nil { throw .typeError("Type error") }
        paymentRequests[p].merchantValidationCompleted = true
    }

    /// A call on `PaymentRequest` number `request` (1-based), one of its events, or its response.
    /// For the promise-returning calls, `threw` is the rejection.
    public mutating func call(_ call: PaymentRequestCall, paymentRequest request: Int) -> PageResult {
        guard paymentRequests.indices.contains(request - 1) else {
            return PageResult(threw: .typeError("Can only call PaymentRequest methods on instances of PaymentRequest"))
        }
        var events: [DispatchedEvent] = []
        do throws(ScriptError) {
            let value = try perform(call, request: request - 1, events: &events)
            return PageResult(returned: value, events: events)
        } catch {
            return PageResult(threw: error, events: events)
        }
    }

    private mutating func perform(
        _ call: PaymentRequestCall,
        request p: Int,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) -> JSONValue? {
        switch call {
        case .show(let gesture): try show(p, userGesture: gesture, events: &events)
        case .abort:
            if paymentRequests[p].response == .retrying || paymentRequests[p].state != .interactive {
                throw .invalidState()
            }
            abortPaymentRequest(p, with: .aborted, events: &events)
        case .canMakePayment:
            guard paymentRequests[p].state == .created else { throw .invalidState() }
            if paymentRequests[p].methods.contains(where: { PaymentRequestBinding.isApplePay($0.supportedMethods) }) {
                return canMakePayments().returned
            }
            return .bool(false)
        case .completeMerchantValidation:
            try completingMerchantValidation(p, with: nil)
        case .merchantSessionSettled(let value): merchantSessionSettled(p, value, events: &events)
        case .completeMerchantValidationNow(let value):
            try completingMerchantValidation(p, with: value)
            merchantSessionSettled(p, value, events: &events)
        case .updateWith:
            let r = paymentRequests[p]
            if r.awaitingUpdate == nil || r.updating || r.state != .interactive { throw .invalidState() }
            paymentRequests[p].updating = true
        case .detailsSettled(let value): detailsSettled(p, value, events: &events)
        case .notUpdated:
            guard let kind = paymentRequests[p].awaitingUpdate, !paymentRequests[p].updating else { return nil }
            paymentRequests[p].awaitingUpdate = nil
            do throws(ScriptError) { try detailsUpdated(p, kind: kind, errors: [], events: &events) } catch {
                abortPaymentRequest(p, with: error, events: &events)
            }
        case .complete(let result): try completeResponse(p, result, events: &events)
        case .retry(let errors): try retryResponse(p, errors, events: &events)
        }
        return nil
    }

    // MARK: show()

    private mutating func show(_ p: Int, userGesture: Bool, events: inout [DispatchedEvent]) throws(ScriptError) {
        if !userGesture { throw ScriptError(.securityError, "show() must be triggered by user activation.") }
        guard paymentRequests[p].state == .created else { throw .invalidState() }
        if sessions.contains(where: { $0.state != .idle && !$0.state.isFinal }) {
            paymentRequests[p].state = .closed
            throw .aborted
        }
        paymentRequests[p].state = .interactive
        let binding = paymentRequestBinding
        var selected: (version: Int, request: ApplePayPaymentRequest)?
        for m in paymentRequests[p].methods where PaymentRequestBinding.isApplePay(m.supportedMethods) {
            let converted = try binding.applePayRequest(m.data)
            if selected == nil { selected = converted }
        }
        guard let selected else { throw ScriptError(.notSupportedError, "The operation is not supported.") }
        let r = paymentRequests[p]
        let request = try binding.sheetRequest(
            version: selected.version,
            base: selected.request,
            details: r.details,
            options: r.options,
            shippingOption: r.shippingOption
        )
        let number = sessions.append(SessionRecord(version: selected.version, request: request, paymentRequest: p))
        paymentRequests[p].session = number
        try begin(number, events: &events)
    }

    // MARK: Completions from the page

    private mutating func merchantSessionSettled(_ p: Int, _ value: JSONValue?, events: inout [DispatchedEvent]) {
        guard paymentRequests[p].state == .interactive, let s = paymentRequests[p].session else { return }
        guard let value else { return abortPaymentRequest(p, with: .aborted, events: &events) }
        guard showsSheet(s) else {
            return abortPaymentRequest(p, with: .invalidState(), events: &events)
        }
        guard case .object = value else {
            return abortPaymentRequest(p, with: .typeError("Type error"), events: &events)
        }
        do throws(ScriptError) { try completeMerchantValidation(s, value, events: &events) } catch {
            abortPaymentRequest(p, with: error, events: &events)
        }
    }

    private mutating func detailsSettled(_ p: Int, _ value: JSONValue?, events: inout [DispatchedEvent]) {
        guard paymentRequests[p].updating, let kind = paymentRequests[p].awaitingUpdate else { return }
        paymentRequests[p].updating = false
        paymentRequests[p].awaitingUpdate = nil
        guard paymentRequests[p].state == .interactive else { return }
        if paymentRequests[p].cancelPending || value == nil {
            paymentRequests[p].cancelPending = false
            return abortPaymentRequest(p, with: .aborted, events: &events)
        }
        do throws(ScriptError) {
            let options = paymentRequests[p].options
            let (update, selected) = try paymentRequestBinding.update(value!, requestShipping: options.requestShipping)
            if let t = update.total { paymentRequests[p].details.total = t }
            paymentRequests[p].details.displayItems = update.displayItems
            if options.requestShipping {
                paymentRequests[p].details.shippingOptions = update.shippingOptions
                paymentRequests[p].shippingOption = selected
            }
            paymentRequests[p].details.modifiers = update.modifiers
            // An update's invalid `paymentMethodErrors` are ignored (WebKit clears that exception).
            let methodErrors =
                update.paymentMethodErrors.flatMap { try? WebIDLBinding(profile: configuration.profile).errors($0) }
                ?? []
            let errors =
                kind == .shippingContact
                ? pageErrors(
                    p,
                    update,
                    addressErrors: paymentRequests[p].details.shippingOptions.isEmpty,
                    methodErrors: methodErrors
                ) : []
            try detailsUpdated(p, kind: kind, errors: errors, events: &events)
        } catch {
            abortPaymentRequest(p, with: error, events: &events)
        }
    }

    /// The handler's `detailsUpdated`: the sheet's update for the selection the page answered.
    private mutating func detailsUpdated(
        _ p: Int,
        kind: UpdateValidator.Kind,
        errors: [ApplePayError],
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        guard let s = paymentRequests[p].session else { return }
        let r = paymentRequests[p]
        let (total, lines) = try paymentRequestBinding.totalAndLineItems(r.details, selectedType: r.selectedType)
        var update = ApplePayUpdate(newTotal: total, newLineItems: lines, errors: errors)
        if kind == .shippingContact {
            update.newShippingMethods = try PaymentRequestBinding.shippingMethods(
                r.details.shippingOptions,
                currency: r.details.total!.amount.currency,
                selected: r.shippingOption
            )
        }
        try completeUpdate(s, update, kind: kind, events: &events)
    }

    /// Without a `paymentmethodchange` listener the handler applies the modifiers for the selected
    /// card itself.
    mutating func applyPaymentRequestTotals(_ p: Int, events: inout [DispatchedEvent]) {
        let r = paymentRequests[p]
        do throws(ScriptError) {
            let (total, lines) = try paymentRequestBinding.totalAndLineItems(r.details, selectedType: r.selectedType)
            sheet?.apply(update: ApplePayUpdate(newTotal: total, newLineItems: lines), kind: .paymentMethod)
        } catch {
            abortPaymentRequest(p, with: error, events: &events)
        }
    }

    /// The errors a `PaymentDetailsUpdate` or a `retry()` asks the sheet to show (`computeErrors`):
    /// the address's (only when shipping is requested, and when `addressErrors`), the payer's (only
    /// the requested ones), then the method's `ApplePayError`s.
    private func pageErrors(
        _ p: Int,
        _ d: PaymentDetails,
        addressErrors: Bool,
        methodErrors: [ApplePayError]
    ) -> [ApplePayError] {
        let options = paymentRequests[p].options
        var out: [ApplePayError] = []
        func add(_ message: String?, _ field: ApplePayErrorContactField?) {
            if let message { out.append(ApplePayError(.shippingContactInvalid, contactField: field, message: message)) }
        }
        if options.requestShipping, addressErrors {
            add(d.error, nil)
            let a = d.shippingAddressErrors
            add(a?.addressLine, .addressLines)
            add(a?.city, .locality)
            add(a?.country, .country)
            add(a?.dependentLocality, .subLocality)
            add(a?.phone, .phoneNumber)
            add(a?.postalCode, .postalCode)
            add(a?.recipient, .name)
            add(a?.region, .administrativeArea)
        }
        if options.requestPayerName { add(d.payerErrors?.name, .name) }
        if options.requestPayerEmail { add(d.payerErrors?.email, .emailAddress) }
        if options.requestPayerPhone { add(d.payerErrors?.phone, .phoneNumber) }
        return out + methodErrors
    }

    // MARK: PaymentResponse

    private mutating func completeResponse(
        _ p: Int,
        _ result: JSONValue?,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        let value = result.map { WebIDLBinding(profile: configuration.profile).string($0) } ?? "unknown"
        guard ["fail", "success", "unknown"].contains(value) else { throw .typeError("Type error") }
        guard paymentRequests[p].response == .open else { throw .invalidState() }
        paymentRequests[p].response = .completed
        guard let s = paymentRequests[p].session, sessions[s].state == .authorized else { throw .aborted }
        let status: ApplePayStatus = value == "success" ? .success : .failure
        try completePayment(s, ApplePayPaymentAuthorizationResult(status: status), events: &events)
    }

    private mutating func retryResponse(
        _ p: Int,
        _ value: JSONValue?,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        guard paymentRequests[p].response == .open else { throw .invalidState() }
        let d = try paymentRequestBinding.validationErrors(value)
        // Here an invalid `paymentMethod` is the page's exception.
        let methodErrors =
            try d.paymentMethodErrors.map { m throws(ScriptError) in
                try WebIDLBinding(profile: configuration.profile).errors(m)
            } ?? []
        guard let s = paymentRequests[p].session, sessions[s].state == .authorized else { throw .aborted }
        // `retry` reports the address errors whatever the shipping options.
        var errors = pageErrors(p, d, addressErrors: true, methodErrors: methodErrors)
        if errors.isEmpty { errors = [ApplePayError(.unknown)] }
        paymentRequests[p].state = .interactive
        paymentRequests[p].response = .retrying
        try completePayment(s, ApplePayPaymentAuthorizationResult(status: .failure, errors: errors), events: &events)
    }

    // MARK: Ending

    /// `abortWithException`: the sheet closes, and `show()` (or a pending `retry()`) rejects.
    mutating func abortPaymentRequest(_ p: Int, with error: ScriptError, events: inout [DispatchedEvent]) {
        if let s = paymentRequests[p].session, sessions[s].state != .idle, !sessions[s].state.isFinal {
            try? abort(s)
        }
        paymentRequests[p].updating = false
        paymentRequests[p].awaitingUpdate = nil
        paymentRequests[p].state = .closed
        events.append(
            DispatchedEvent(
                session: paymentRequests[p].session ?? 0,
                event: .paymentRequest(request: p + 1, .rejected(error))
            )
        )
    }

    // MARK: Events

    /// The request's event for the engine's `event` (its state updated), or `nil`.
    mutating func paymentRequestEvent(for event: SheetEvent, request p: Int) -> SheetEvent? {
        let e: PaymentRequestEvent
        switch event {
        case .validateMerchant(let url):
            paymentRequests[p].merchantValidationCompleted = false
            e = .merchantValidation(validationURL: url)
        case .paymentMethodSelected(let m):
            paymentRequests[p].awaitingUpdate = .paymentMethod
            e = .paymentMethodChange(m)
        case .shippingContactSelected(let c):
            paymentRequests[p].awaitingUpdate = .shippingContact
            e = .shippingAddressChange(Self.paymentAddress(c))
        case .shippingMethodSelected(let m):
            paymentRequests[p].awaitingUpdate = .shippingMethod
            paymentRequests[p].shippingOption = m.identifier
            e = .shippingOptionChange(m.identifier)
        case .paymentAuthorized(let payment):
            paymentRequests[p].state = .closed
            paymentRequests[p].response = .open
            e = .accepted(response(p, payment))
        case .cancel:
            if paymentRequests[p].updating {
                paymentRequests[p].cancelPending = true
                return nil
            }
            paymentRequests[p].state = .closed
            paymentRequests[p].awaitingUpdate = nil
            e = .rejected(.aborted)
        case .couponCodeChanged, .ignored, .paymentRequest:
            return nil
        }
        return .paymentRequest(request: p + 1, e)
    }

    private func response(_ p: Int, _ payment: ApplePayPayment) -> JSONValue {
        let r = paymentRequests[p]
        let contact = payment.shippingContact ?? ApplePayPaymentContact()
        var o = JSONObject()
        o["requestId"] = .string(r.details.id ?? "")
        o["methodName"] = .string(PaymentRequestBinding.applePayMethod)
        o["details"] = payment.jsonValue
        o["shippingAddress"] = r.options.requestShipping ? Self.paymentAddress(contact) : .null
        o["shippingOption"] = r.options.requestShipping ? (r.shippingOption.map(JSONValue.string) ?? .null) : .null
        o["payerName"] = r.options.requestPayerName ? .string(Self.localizedName(contact)) : .null
        o["payerEmail"] = r.options.requestPayerEmail ? .string(contact.emailAddress ?? "") : .null
        o["payerPhone"] = r.options.requestPayerPhone ? .string(contact.phoneNumber ?? "") : .null
        return .object(o)
    }

    /// A contact as the `PaymentAddress` WebKit makes of it.
    static func paymentAddress(_ c: ApplePayPaymentContact) -> JSONValue {
        [
            "country": .string(c.countryCode ?? ""),
            "addressLine": .array((c.addressLines ?? []).map(JSONValue.string)),
            "region": .string(c.administrativeArea ?? ""),
            "city": .string(c.locality ?? ""),
            "dependentLocality": .string(c.subLocality ?? ""),
            "postalCode": .string(c.postalCode ?? ""),
            "sortingCode": "",
            "organization": "",
            "recipient": .string(localizedName(c)),
            "phone": .string(c.phoneNumber ?? ""),
        ]
    }

    static func localizedName(_ c: ApplePayPaymentContact) -> String {
        [c.givenName, c.familyName].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}
