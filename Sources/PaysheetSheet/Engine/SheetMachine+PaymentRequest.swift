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
            let constructed = try paymentRequestBinding.construct(
                methodData: methodData,
                details: details,
                options: options,
                refusal: refusal
            )
            // Without `requestShipping` current WebKit keeps no shipping options (`nullopt`); older
            // Safaris still checked and showed them.
            var details = constructed.details
            if !constructed.options.requestShipping, configuration.profile.dropsShippingOptionsWithoutShipping {
                details.shippingOptions = []
            }
            paymentRequests.append(
                PaymentRequestRecord(
                    methods: constructed.methods,
                    details: details,
                    options: constructed.options,
                    shippingOption: constructed.shippingOption
                )
            )
            var object = JSONObject()
            object["request"] = .number(String(paymentRequests.count))
            object["id"] = .string(constructed.details.id ?? "")
            object["shippingOption"] = constructed.shippingOption.map(JSONValue.string) ?? .null
            object["shippingType"] =
                constructed.options.requestShipping ? .string(constructed.options.shippingType.rawValue) : .null
            return PageResult(returned: .object(object))
        } catch {
            return PageResult(threw: error)
        }
    }

    /// Marks request `p`'s merchant validation completed, once and only while it is shown
    /// (`ApplePayPaymentHandler::merchantValidationCompleted`: the state first, then, for a session
    /// given at once, that it is an object).
    private mutating func completingMerchantValidation(_ index: Int, with session: JSONValue?) throws(ScriptError) {
        if paymentRequests[index].merchantValidationCompleted || paymentRequests[index].state != .interactive {
            throw .invalidState()
        }
        if let session, session.objectValue == nil { throw .typeError("Type error") }
        paymentRequests[index].merchantValidationCompleted = true
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
        request index: Int,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) -> JSONValue? {
        switch call {
        case .show(let gesture): try show(index, userGesture: gesture, events: &events)
        case .abort:
            if paymentRequests[index].response == .retrying || paymentRequests[index].state != .interactive {
                throw .invalidState()
            }
            abortPaymentRequest(index, with: .aborted, events: &events)
        case .canMakePayment:
            guard paymentRequests[index].state == .created else { throw .invalidState() }
            if paymentRequests[index].methods.contains(where: { PaymentRequestBinding.isApplePay($0.supportedMethods) })
            {
                return canMakePayments().returned
            }
            return .bool(false)
        case .completeMerchantValidation:
            try completingMerchantValidation(index, with: nil)
        case .merchantSessionSettled(let value): merchantSessionSettled(index, value, events: &events)
        case .completeMerchantValidationNow(let value):
            try completingMerchantValidation(index, with: value)
            merchantSessionSettled(index, value, events: &events)
        case .showDetailsPending:
            let record = paymentRequests[index]
            if record.state != .interactive || record.updating { throw .invalidState() }
            paymentRequests[index].updating = true
            paymentRequests[index].showDetails = true
        case .updateWith:
            let record = paymentRequests[index]
            if record.awaitingUpdate == nil || record.updating || record.state != .interactive { throw .invalidState() }
            paymentRequests[index].updating = true
        case .detailsSettled(let value):
            detailsSettled(index, value, events: &events)
            // The request's `shippingOption` as the update left it.
            return ["shippingOption": paymentRequests[index].shippingOption.map(JSONValue.string) ?? .null]
        case .notUpdated:
            guard let kind = paymentRequests[index].awaitingUpdate, !paymentRequests[index].updating else { return nil }
            paymentRequests[index].awaitingUpdate = nil
            do throws(ScriptError) { try detailsUpdated(index, kind: kind, errors: [], events: &events) } catch {
                abortPaymentRequest(index, with: error, events: &events)
            }
            flushDeferredMethodChange(index, events: &events)
        case .complete(let result): try completeResponse(index, result, events: &events)
        case .completeWithDetails(let result, let details):
            try completeResponse(index, result, details: details, events: &events)
        case .retry(let errors): try retryResponse(index, errors, events: &events)
        }
        return nil
    }

    // MARK: show()

    private mutating func show(_ index: Int, userGesture: Bool, events: inout [DispatchedEvent]) throws(ScriptError) {
        if !userGesture { throw ScriptError(.securityError, "show() must be triggered by user activation.") }
        guard paymentRequests[index].state == .created else { throw .invalidState() }
        if sessions.contains(where: \.isBegun) {
            paymentRequests[index].state = .closed
            throw .aborted
        }
        paymentRequests[index].state = .interactive
        let binding = paymentRequestBinding
        var selected: (version: Int, request: ApplePayPaymentRequest)?
        for method in paymentRequests[index].methods where PaymentRequestBinding.isApplePay(method.supportedMethods) {
            let converted = try binding.applePayRequest(method.data)
            if selected == nil { selected = converted }
        }
        guard let selected else { throw ScriptError(.notSupportedError, "The operation is not supported.") }
        let record = paymentRequests[index]
        let request = try binding.sheetRequest(
            version: selected.version,
            base: selected.request,
            details: record.details,
            options: record.options,
            shippingOption: record.shippingOption
        )
        let number = sessions.append(SessionRecord(version: selected.version, request: request, paymentRequest: index))
        paymentRequests[index].session = number
        try begin(number, events: &events)
    }

    // MARK: Completions from the page

    private mutating func merchantSessionSettled(_ index: Int, _ value: JSONValue?, events: inout [DispatchedEvent]) {
        guard paymentRequests[index].state == .interactive, let session = paymentRequests[index].session else { return }
        guard let value else { return abortPaymentRequest(index, with: .aborted, events: &events) }
        guard showsSheet(session) else {
            return abortPaymentRequest(index, with: .invalidState(), events: &events)
        }
        guard case .object = value else {
            return abortPaymentRequest(index, with: .typeError("Type error"), events: &events)
        }
        do throws(ScriptError) { try completeMerchantValidation(session, value, events: &events) } catch {
            abortPaymentRequest(index, with: error, events: &events)
        }
    }

    private mutating func detailsSettled(_ index: Int, _ value: JSONValue?, events: inout [DispatchedEvent]) {
        if paymentRequests[index].showDetails { return showDetailsSettled(index, value, events: &events) }
        guard paymentRequests[index].updating, let kind = paymentRequests[index].awaitingUpdate else { return }
        paymentRequests[index].updating = false
        paymentRequests[index].awaitingUpdate = nil
        guard paymentRequests[index].state == .interactive else { return }
        if paymentRequests[index].cancelPending || value == nil {
            paymentRequests[index].cancelPending = false
            return abortPaymentRequest(index, with: .aborted, events: &events)
        }
        do throws(ScriptError) {
            let update = try merge(value!, into: index)
            // An update's invalid `paymentMethodErrors` are ignored (WebKit clears that exception).
            let methodErrors =
                update.paymentMethodErrors.flatMap { try? WebIDLBinding(profile: configuration.profile).errors($0) }
                ?? []
            // `computeErrors` runs for an address and for a payment method (or coupon code) change.
            let errors =
                kind != .shippingMethod
                ? pageErrors(
                    index,
                    update,
                    addressErrors: paymentRequests[index].details.shippingOptions.isEmpty,
                    methodErrors: methodErrors
                ) : []
            try detailsUpdated(index, kind: kind, errors: errors, events: &events)
        } catch {
            abortPaymentRequest(index, with: error, events: &events)
        }
        flushDeferredMethodChange(index, events: &events)
    }

    /// A settled `PaymentDetailsUpdate` checked and merged into request `index`: only the members
    /// it has replace the request's (`settleDetailsPromise`). Returns the update.
    private mutating func merge(_ value: JSONValue, into index: Int) throws(ScriptError) -> PaymentDetails {
        let options = paymentRequests[index].options
        let (update, selected) = try paymentRequestBinding.update(value, requestShipping: options.requestShipping)
        let given = value.objectValue ?? JSONObject()
        func has(_ key: String) -> Bool { given[key].map { !$0.isNull } ?? false }
        if let total = update.total { paymentRequests[index].details.total = total }
        if has("displayItems") { paymentRequests[index].details.displayItems = update.displayItems }
        if options.requestShipping, has("shippingOptions") {
            paymentRequests[index].details.shippingOptions = update.shippingOptions
            paymentRequests[index].shippingOption = selected
        }
        if has("modifiers") { paymentRequests[index].details.modifiers = update.modifiers }
        return update
    }

    /// `show(detailsPromise)`'s promise settled (`ShowDetailsResolved`): the details merged, nothing
    /// sent to the sheet; the events held meanwhile reach the page now.
    private mutating func showDetailsSettled(_ index: Int, _ value: JSONValue?, events: inout [DispatchedEvent]) {
        paymentRequests[index].showDetails = false
        paymentRequests[index].updating = false
        guard paymentRequests[index].state == .interactive else { return }
        if paymentRequests[index].cancelPending || value == nil {
            paymentRequests[index].cancelPending = false
            return abortPaymentRequest(index, with: .aborted, events: &events)
        }
        do throws(ScriptError) { _ = try merge(value!, into: index) } catch {
            return abortPaymentRequest(index, with: error, events: &events)
        }
        if paymentRequests[index].heldShippingContact, let session = paymentRequests[index].session {
            paymentRequests[index].heldShippingContact = false
            dispatchMockShippingContact(session, events: &events)
        }
        flushDeferredMethodChange(index, events: &events)
    }

    /// A payment method the mock chose while an update was pending reaches the page once it has
    /// settled (`whenDetailsSettled`).
    private mutating func flushDeferredMethodChange(_ index: Int, events: inout [DispatchedEvent]) {
        guard let method = paymentRequests[index].deferredMethodChange else { return }
        paymentRequests[index].deferredMethodChange = nil
        if paymentRequests[index].state == .interactive { events += mockChangePaymentMethod(method) }
    }

    /// The handler's `detailsUpdated`: the sheet's update for the selection the page answered, with
    /// the applicable modifier's totals, lines, shipping methods and payment kinds.
    private mutating func detailsUpdated(
        _ index: Int,
        kind: UpdateValidator.Kind,
        errors: [ApplePayError],
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        guard let session = paymentRequests[index].session else { return }
        let record = paymentRequests[index]
        let modified = try paymentRequestBinding.modified(record.details, selectedType: record.selectedType)
        var update = ApplePayUpdate(newTotal: modified.total, newLineItems: modified.lineItems, errors: errors)
        // WebKit sends the shipping methods with every update
        // (`APPLE_PAY_UPDATE_SHIPPING_METHODS_WHEN_CHANGING_LINE_ITEMS`).
        do {
            update.newShippingMethods =
                try PaymentRequestBinding.shippingMethods(
                    record.details.shippingOptions,
                    currency: record.details.total!.amount.currency,
                    selected: record.shippingOption
                ) + (modified.modifier?.additionalShippingMethods ?? [])
        }
        update.newRecurringPaymentRequest = modified.modifier?.recurringPaymentRequest
        update.newAutomaticReloadPaymentRequest = modified.modifier?.automaticReloadPaymentRequest
        update.newMultiTokenContexts = modified.modifier?.multiTokenContexts
        update.newDeferredPaymentRequest = modified.modifier?.deferredPaymentRequest
        update.newDisbursementRequest = modified.modifier?.disbursementRequest
        try completeUpdate(session, update, kind: kind, events: &events)
    }

    /// Without a `paymentmethodchange` listener the handler applies the modifiers for the selected
    /// card itself.
    mutating func applyPaymentRequestTotals(_ index: Int, events: inout [DispatchedEvent]) {
        let record = paymentRequests[index]
        do throws(ScriptError) {
            let modified = try paymentRequestBinding.modified(record.details, selectedType: record.selectedType)
            sheet?.apply(
                update: ApplePayUpdate(newTotal: modified.total, newLineItems: modified.lineItems),
                kind: .paymentMethod
            )
        } catch {
            abortPaymentRequest(index, with: error, events: &events)
        }
    }

    /// A coupon code entered on the sheet: the page's `paymentmethodchange` with `{couponCode}`
    /// (`didChangeCouponCode`), or, with no listener, the handler's own update.
    mutating func dispatchCouponCode(
        _ code: String,
        request index: Int,
        session: Int,
        events: inout [DispatchedEvent]
    ) {
        sessions[session].step(to: .couponCodeChanged)
        guard configuration.listeners.contains(.paymentmethodselected) else {
            do throws(ScriptError) { try detailsUpdated(index, kind: .couponCode, errors: [], events: &events) } catch {
                abortPaymentRequest(index, with: error, events: &events)
            }
            return
        }
        setOutstanding(.couponcodechanged)
        emit(.couponCodeChanged(code), to: session, events: &events)
    }

    /// The errors a `PaymentDetailsUpdate` or a `retry()` asks the sheet to show (`computeErrors`):
    /// the address's (only when shipping is requested, and when `addressErrors`), the payer's (only
    /// the requested ones), then the method's `ApplePayError`s.
    private func pageErrors(
        _ index: Int,
        _ details: PaymentDetails,
        addressErrors: Bool,
        methodErrors: [ApplePayError]
    ) -> [ApplePayError] {
        let options = paymentRequests[index].options
        var out: [ApplePayError] = []
        func add(_ message: String?, _ field: ApplePayErrorContactField?) {
            if let message { out.append(ApplePayError(.shippingContactInvalid, contactField: field, message: message)) }
        }
        if options.requestShipping, addressErrors {
            add(details.error, nil)
            let address = details.shippingAddressErrors
            add(address?.addressLine, .addressLines)
            add(address?.city, .locality)
            add(address?.country, .country)
            add(address?.dependentLocality, .subLocality)
            add(address?.phone, .phoneNumber)
            add(address?.postalCode, .postalCode)
            add(address?.recipient, .name)
            add(address?.region, .administrativeArea)
        }
        if options.requestPayerName { add(details.payerErrors?.name, .name) }
        if options.requestPayerEmail { add(details.payerErrors?.email, .emailAddress) }
        if options.requestPayerPhone { add(details.payerErrors?.phone, .phoneNumber) }
        return out + methodErrors
    }

    // MARK: PaymentResponse

    /// `PaymentResponse.complete(result, details)`: the arguments are converted first (`details`'
    /// `data` must be an object), then the response's state is checked, then the Apple Pay
    /// handler converts the data to `ApplePayPaymentCompleteDetails`, whose order details go with
    /// the payment's result (an exception there leaves the response open, so the page can complete
    /// again, as WebKit's own pages expect).
    private mutating func completeResponse(
        _ index: Int,
        _ result: JSONValue?,
        details: JSONValue? = nil,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        let value = result.map { WebIDLBinding(profile: configuration.profile).string($0) } ?? "unknown"
        guard ["fail", "success", "unknown"].contains(value) else { throw .typeError("Type error") }
        let data = try details.flatMap { value throws(ScriptError) in try updateValidator.bindCompleteDetails(value) }
        if paymentRequests[index].response == .closed { throw .aborted }
        guard paymentRequests[index].response == .open else { throw .invalidState() }
        // The Apple Pay data is converted before the response completes: a page whose order
        // details are refused can complete again (WebKit's `ApplePayPaymentCompleteDetails` pages).
        let completeDetails = try data.map { value throws(ScriptError) in
            try updateValidator.bindApplePayCompleteDetails(value)
        }
        let status: ApplePayStatus = value == "success" ? .success : .failure
        let outcome = ApplePayPaymentAuthorizationResult(status: status, orderDetails: completeDetails?.orderDetails)
        _ = try updateValidator.checkResult(outcome)
        paymentRequests[index].response = .completed
        guard let session = paymentRequests[index].session, sessions[session].state == .authorized else {
            throw .aborted
        }
        try completePayment(session, outcome, events: &events)
    }

    private mutating func retryResponse(
        _ index: Int,
        _ value: JSONValue?,
        events: inout [DispatchedEvent]
    ) throws(ScriptError) {
        if paymentRequests[index].response == .closed { throw .aborted }
        guard paymentRequests[index].response == .open else { throw .invalidState() }
        let details = try paymentRequestBinding.validationErrors(value)
        // Here an invalid `paymentMethod` is the page's exception.
        let methodErrors =
            try details.paymentMethodErrors.map { m throws(ScriptError) in
                try WebIDLBinding(profile: configuration.profile).errors(m)
            } ?? []
        guard let session = paymentRequests[index].session, sessions[session].state == .authorized else {
            throw .aborted
        }
        // `retry` reports the address errors whatever the shipping options.
        var errors = pageErrors(index, details, addressErrors: true, methodErrors: methodErrors)
        if errors.isEmpty { errors = [ApplePayError(.unknown)] }
        paymentRequests[index].state = .interactive
        paymentRequests[index].response = .retrying
        try completePayment(
            session,
            ApplePayPaymentAuthorizationResult(status: .failure, errors: errors),
            events: &events
        )
    }

    // MARK: Ending

    /// `abortWithException`: the sheet closes, and `show()` (or a pending `retry()`) rejects.
    mutating func abortPaymentRequest(_ index: Int, with error: ScriptError, events: inout [DispatchedEvent]) {
        if let session = paymentRequests[index].session, sessions[session].isBegun { try? abort(session) }
        paymentRequests[index].updating = false
        paymentRequests[index].awaitingUpdate = nil
        paymentRequests[index].state = .closed
        events.append(
            DispatchedEvent(
                session: paymentRequests[index].session ?? 0,
                event: .paymentRequest(request: index + 1, .rejected(error))
            )
        )
    }

    // MARK: Events

    /// The request's event for the engine's `event` (its state updated), or `nil`.
    mutating func paymentRequestEvent(for event: SheetEvent, request index: Int) -> SheetEvent? {
        let pageEvent: PaymentRequestEvent
        switch event {
        case .validateMerchant(let url):
            paymentRequests[index].merchantValidationCompleted = false
            pageEvent = .merchantValidation(validationURL: url)
        case .paymentMethodSelected(let method):
            paymentRequests[index].awaitingUpdate = .paymentMethod
            pageEvent = .paymentMethodChange(method)
        case .shippingContactSelected(let contact):
            paymentRequests[index].awaitingUpdate = .shippingContact
            pageEvent = .shippingAddressChange(Self.paymentAddress(contact))
        case .shippingMethodSelected(let method):
            paymentRequests[index].awaitingUpdate = .shippingMethod
            paymentRequests[index].shippingOption = method.identifier
            pageEvent = .shippingOptionChange(method.identifier)
        case .paymentAuthorized(let payment):
            paymentRequests[index].state = .closed
            paymentRequests[index].response = .open
            pageEvent = .accepted(response(index, payment))
        case .cancel:
            if paymentRequests[index].updating {
                paymentRequests[index].cancelPending = true
                return nil
            }
            paymentRequests[index].state = .closed
            paymentRequests[index].awaitingUpdate = nil
            pageEvent = .rejected(.aborted)
        case .couponCodeChanged(let code):
            paymentRequests[index].awaitingUpdate = .couponCode
            pageEvent = .couponCodeChange(code)
        case .ignored, .paymentRequest:
            return nil
        }
        return .paymentRequest(request: index + 1, pageEvent)
    }

    private func response(_ index: Int, _ payment: ApplePayPayment) -> JSONValue {
        let record = paymentRequests[index]
        let contact = payment.shippingContact ?? ApplePayPaymentContact()
        var object = JSONObject()
        object["requestId"] = .string(record.details.id ?? "")
        object["methodName"] = .string(PaymentRequestBinding.applePayMethod)
        object["details"] = payment.jsonValue
        object["shippingAddress"] = record.options.requestShipping ? Self.paymentAddress(contact) : .null
        object["shippingOption"] =
            record.options.requestShipping ? (record.shippingOption.map(JSONValue.string) ?? .null) : .null
        object["payerName"] = record.options.requestPayerName ? .string(Self.localizedName(contact)) : .null
        object["payerEmail"] = record.options.requestPayerEmail ? .string(contact.emailAddress ?? "") : .null
        object["payerPhone"] = record.options.requestPayerPhone ? .string(contact.phoneNumber ?? "") : .null
        return .object(object)
    }

    /// A contact as the `PaymentAddress` WebKit makes of it.
    static func paymentAddress(_ contact: ApplePayPaymentContact) -> JSONValue {
        [
            "country": .string(contact.countryCode ?? ""),
            "addressLine": .array((contact.addressLines ?? []).map(JSONValue.string)),
            "region": .string(contact.administrativeArea ?? ""),
            "city": .string(contact.locality ?? ""),
            "dependentLocality": .string(contact.subLocality ?? ""),
            "postalCode": .string(contact.postalCode ?? ""),
            "sortingCode": "",
            "organization": "",
            "recipient": .string(localizedName(contact)),
            "phone": .string(contact.phoneNumber ?? ""),
        ]
    }

    static func localizedName(_ contact: ApplePayPaymentContact) -> String {
        [contact.givenName, contact.familyName].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}
