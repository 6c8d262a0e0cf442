import PaysheetModel

/// What the sheet shows of a payment that continues after today: a recurring payment (regular and
/// trial billing), an automatic reload (amount and threshold), a deferred payment (its date and
/// free cancellation), and a multi-merchant payment (one line per merchant); the billing
/// agreement and where the shopper manages it. PassKit shows these as the summary's
/// `PKRecurringPaymentSummaryItem`, `PKAutomaticReloadPaymentSummaryItem`,
/// `PKDeferredPaymentSummaryItem` and the request's `PKPaymentTokenContext`s.
enum SheetBilling {
    /// The reason the sheet refuses a request that combines payment kinds Apple's documentation
    /// says cannot be combined ("results in an error and cancels the payment request"). WebKit does
    /// not check it in the page (no exception); the sheet does.
    static func conflict(_ r: ApplePayPaymentRequest) -> String? {
        let multi = !(r.multiTokenContexts ?? []).isEmpty
        if r.recurringPaymentRequest != nil, r.automaticReloadPaymentRequest != nil {
            return "A recurring payment cannot be combined with an automatic reload payment"
        }
        if r.recurringPaymentRequest != nil, multi {
            return "A recurring payment cannot be combined with payments to several merchants"
        }
        if r.deferredPaymentRequest != nil,
            r.recurringPaymentRequest != nil || r.automaticReloadPaymentRequest != nil || multi
        {
            return "A deferred payment cannot be combined with a recurring, automatic reload or multi-merchant payment"
        }
        return nil
    }

    /// The `billing` module of the snapshot, or `nil` for a payment made only today.
    static func module(_ r: ApplePayPaymentRequest, currency: String) -> JSONValue? {
        var members = JSONObject()
        if let rec = r.recurringPaymentRequest {
            members["kind"] = "recurring"
            members["description"] = .string(rec.paymentDescription)
            members["regular"] = line(rec.regularBilling, currency: currency)
            members["trial"] = rec.trialBilling.map { line($0, currency: currency) } ?? .null
            members["agreement"] = SheetMachine.optional(rec.billingAgreement)
            members["managementURL"] = .string(rec.managementURL)
        } else if let rel = r.automaticReloadPaymentRequest {
            members["kind"] = "automaticReload"
            members["description"] = .string(rel.paymentDescription)
            members["reload"] = line(rel.automaticReloadBilling, currency: currency)
            members["agreement"] = SheetMachine.optional(rel.billingAgreement)
            members["managementURL"] = .string(rel.managementURL)
        } else if let def = r.deferredPaymentRequest {
            members["kind"] = "deferred"
            members["description"] = .string(def.paymentDescription)
            members["deferred"] = line(def.deferredBilling, currency: currency)
            members["freeCancellation"] =
                def.freeCancellationDate.map {
                    .string("Free cancellation until \($0) (\(def.freeCancellationDateTimeZone ?? ""))")
                } ?? .null
            members["agreement"] = SheetMachine.optional(def.billingAgreement)
            members["managementURL"] = .string(def.managementURL)
        }
        if let contexts = r.multiTokenContexts, !contexts.isEmpty {
            if members["kind"] == nil { members["kind"] = "multiMerchant" }
            members["merchants"] = .array(
                contexts.map { c in
                    [
                        "merchantName": .string(c.merchantName), "merchantIdentifier": .string(c.merchantIdentifier),
                        "amount": .string(c.amount), "text": .string("\(c.merchantName): \(c.amount) \(currency)"),
                    ]
                }
            )
        }
        return members.members.isEmpty ? nil : .object(members)
    }

    /// One billing line: label, amount, and the sentence the sheet shows under it.
    static func line(_ item: ApplePayLineItem, currency: String) -> JSONValue {
        let amount = "\(item.amount ?? "") \(currency)"
        var words: [String] = []
        switch item.paymentTiming {
        case .recurring?:
            let unit = (item.recurringPaymentIntervalUnit ?? .month).rawValue
            let count = item.recurringPaymentIntervalCount ?? 1
            words.append(count == 1 ? "\(amount) every \(unit)" : "\(amount) every \(count) \(unit)s")
            if let start = item.recurringPaymentStartDate { words.append("starting \(start)") }
            if let end = item.recurringPaymentEndDate { words.append("until \(end)") }
        case .automaticReload?:
            words.append(
                "\(amount) when the balance falls below \(item.automaticReloadPaymentThresholdAmount ?? "") \(currency)"
            )
        case .deferred?:
            words.append("\(amount) on \(item.deferredPaymentDate ?? "a later date")")
        default:
            words.append(amount)
        }
        var members = JSONObject()
        members["label"] = .string(item.label ?? "")
        members["amount"] = .string(item.amount ?? "")
        members["text"] = .string(words.joined(separator: ", "))
        return .object(members)
    }
}
