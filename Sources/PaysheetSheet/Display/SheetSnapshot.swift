import PaysheetModel

extension SheetMachine {
    /// Whether the user could authorize now.
    public var canAuthorize: Bool { userBlockReason(for: .authorize) == nil }

    /// The sheet as a person sees it, in the scenario format's snapshot shape
    /// (`docs/scenario-format.md`): `visible`, `status`, `canAuthorize`, `popup`, `modules`, plus
    /// `outstanding`, `secondsLeft`, `result` and `rule` (the row of `docs/payment-sheet.md` §4 last
    /// applied), `language` (``SheetConfiguration/language``) and `statusId` (the status line's
    /// ``SheetString`` id). The sheet's own texts (`status`, `popup`, the module errors' titles and
    /// fixed messages) are in that language; codes and the page's own texts are as they are. `order`
    /// appears once a payment gave the wallet an order (``walletOrder``).
    public func snapshot() -> JSONValue {
        let language = configuration.language
        guard let sheetState = sheet else {
            return [
                "visible": false, "status": .null, "statusId": .null, "language": .string(language.rawValue),
                "canAuthorize": false, "popup": .null, "modules": .null, "outstanding": .null, "secondsLeft": .null,
                "result": .null, "rule": .null,
            ]
        }
        var members = JSONObject()
        members["visible"] = .bool(sheetState.visible)
        members["status"] = Self.optional(sheetState.status?.text(in: language))
        members["statusId"] = Self.optional(sheetState.status?.id?.rawValue)
        members["language"] = .string(language.rawValue)
        members["canAuthorize"] = .bool(canAuthorize)
        members["payLater"] = Self.payLater(sheetState.request)
        members["disbursement"] = Self.disbursement(sheetState.request)
        members["popup"] = Self.optional(
            sheetState.popupLabel.map { SheetString.popupNoDelivery.text(in: language, ["label": $0]) }
        )
        members["modules"] = Self.modules(sheetState, in: language)
        members["outstanding"] = sheetState.visible ? Self.optional(sheetState.outstanding?.event.rawValue) : .null
        if sheetState.visible, let deadline = sheetState.outstanding?.deadline {
            members["secondsLeft"] = .number(JSONValue.javaScriptNumberString(String(max(0, deadline - now))))
        } else {
            members["secondsLeft"] = .null
        }
        members["result"] = Self.optional(sheetState.result?.rawValue)
        members["rule"] = sheetState.lastRule.map { .number(String($0)) } ?? .null
        // Only after a payment that gave the wallet an order (absent otherwise).
        if let order = sheetState.walletOrder { members["order"] = order.json }
        return .object(members)
    }

    /// `text` as a JSON string, or null.
    static func optional(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }

    /// The snapshot's `modules`: each module's error (in `language`) and what it shows; `billing`
    /// only for payments that continue after today.
    static func modules(_ sheetState: SheetState, in language: SheetLanguage) -> JSONValue {
        func err(_ m: SheetModule) -> JSONValue {
            sheetState.errors[m].map {
                let shown = $0.resolved(in: language)
                return ["title": .string(shown.title), "message": .string(shown.message)]
            } ?? .null
        }
        func item(_ line: ApplePayLineItem) -> JSONValue {
            var line = line
            if line.type == nil { line.type = .final }
            return line.jsonValue
        }
        let card: JSONValue =
            sheetState.selectedCard.map {
                [
                    "displayName": .string($0.displayName), "network": .string($0.network),
                    "type": .string($0.type.rawValue),
                ]
            } ?? .null
        let methods = sheetState.methods.map { SheetMachine.pageMethod($0).jsonValue }
        var modules: JSONObject = [
            "card": ["error": err(.card), "selected": card],
            "shipping": [
                "error": err(.shipping),
                "selected": sheetState.requestsShipping ? (sheetState.selectedContact?.jsonValue ?? .null) : .null,
                // The heading the request's shipping type gives the module, and whether the
                // shopper may change the address (a store pickup's is the merchant's).
                "titleId": .string(Self.shippingTitle(sheetState.request.shippingType).rawValue),
                "editable": .bool(sheetState.request.shippingContactEditingMode != .storePickup),
            ],
            "method": [
                "error": err(.method),
                "selected": sheetState.selectedMethod.map { SheetMachine.pageMethod($0).jsonValue } ?? .null,
                "options": .array(methods),
            ],
            "contact": [
                "error": err(.contact), "email": Self.optional(sheetState.email),
                "phone": Self.optional(sheetState.phone),
            ],
            "coupon": ["error": err(.coupon), "code": Self.optional(sheetState.couponCode)],
            "summary": ["lineItems": .array(sheetState.lineItems.map(item)), "total": item(sheetState.total)],
        ]
        if let billing = SheetBilling.module(sheetState.request, currency: sheetState.request.currencyCode) {
            modules["billing"] = billing
        }
        return .object(modules)
    }

    /// The shipping module's heading for `type` (`shippingType`).
    static func shippingTitle(_ type: ApplePayShippingType?) -> SheetString {
        switch type {
        case .delivery: return .moduleDelivery
        case .storePickup: return .modulePickup
        case .servicePickup: return .moduleServicePickup
        case .shipping, nil: return .moduleShipping
        }
    }

    /// Pay Later on the sheet: the request's `applePayLaterAvailability` and the words for it.
    static func payLater(_ request: ApplePayPaymentRequest) -> JSONValue {
        guard let availability = request.applePayLaterAvailability else { return .null }
        let text: SheetString
        switch availability {
        case .available: text = .payLaterAvailable
        case .unavailableItemIneligible: text = .payLaterItemIneligible
        case .unavailableRecurringTransaction: text = .payLaterRecurring
        }
        return ["availability": .string(availability.rawValue), "textId": .string(text.rawValue)]
    }

    /// A disbursement request on the sheet: the recipient's fields asked for and whether the money
    /// goes out instantly (`supportsInstantFundsOut`).
    static func disbursement(_ request: ApplePayPaymentRequest) -> JSONValue {
        guard let disbursement = request.disbursementRequest else { return .null }
        return [
            "requiredRecipientContactFields": .array(
                (disbursement.requiredRecipientContactFields ?? []).map { .string($0.rawValue) }
            ),
            "instantFundsOut": .bool(request.merchantCapabilities.contains(.supportsInstantFundsOut)),
        ]
    }
}
