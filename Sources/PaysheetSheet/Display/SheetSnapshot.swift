import PaysheetModel

extension SheetMachine {
    /// Whether the user could authorize now.
    public var canAuthorize: Bool { userBlockReason(for: .authorize) == nil }

    /// The sheet as a person sees it, in the scenario format's snapshot shape
    /// (`docs/scenario-format.md`): `visible`, `status`, `canAuthorize`, `popup`, `modules`, plus
    /// `outstanding`, `secondsLeft`, `result` and `rule` (the row of `docs/payment-sheet.md` §4 last
    /// applied).
    public func snapshot() -> JSONValue {
        guard let sh = sheet else {
            return [
                "visible": false, "status": .null, "canAuthorize": false, "popup": .null, "modules": .null,
                "outstanding": .null, "secondsLeft": .null, "result": .null, "rule": .null,
            ]
        }
        func err(_ m: SheetModule) -> JSONValue {
            sh.errors[m].map { ["title": .string($0.title), "message": .string($0.message)] } ?? .null
        }
        func opt(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        func item(_ i: ApplePayLineItem) -> JSONValue {
            var i = i
            if i.type == nil { i.type = .final }
            return i.jsonValue
        }
        let card: JSONValue =
            sh.selectedCard.map {
                [
                    "displayName": .string($0.displayName), "network": .string($0.network),
                    "type": .string($0.type.rawValue),
                ]
            } ?? .null
        let methods = sh.methods.map { SheetMachine.pageMethod($0).jsonValue }
        var o = JSONObject()
        o["visible"] = .bool(sh.visible)
        o["status"] = opt(sh.status)
        o["canAuthorize"] = .bool(canAuthorize)
        o["popup"] = opt(sh.popup)
        o["modules"] = [
            "card": ["error": err(.card), "selected": card],
            "shipping": [
                "error": err(.shipping),
                "selected": sh.requestsShipping ? (sh.selectedContact?.jsonValue ?? .null) : .null,
            ],
            "method": [
                "error": err(.method),
                "selected": sh.selectedMethod.map { SheetMachine.pageMethod($0).jsonValue } ?? .null,
                "options": .array(methods),
            ],
            "contact": ["error": err(.contact), "email": opt(sh.email), "phone": opt(sh.phone)],
            "coupon": ["error": err(.coupon), "code": opt(sh.couponCode)],
            "summary": ["lineItems": .array(sh.lineItems.map(item)), "total": item(sh.total)],
        ]
        // Only for payments that continue after today (absent otherwise, as the module is on the sheet).
        if let billing = SheetBilling.module(sh.request, currency: sh.request.currencyCode),
            case .object(var modules) = o["modules"]
        {
            modules["billing"] = billing
            o["modules"] = .object(modules)
        }
        o["outstanding"] = sh.visible ? opt(sh.outstanding?.event.rawValue) : .null
        if sh.visible, let d = sh.outstanding?.deadline {
            o["secondsLeft"] = .number(JSONValue.javaScriptNumberString(String(max(0, d - now))))
        } else {
            o["secondsLeft"] = .null
        }
        o["result"] = opt(sh.result?.rawValue)
        o["rule"] = sh.lastRule.map { .number(String($0)) } ?? .null
        return .object(o)
    }
}
