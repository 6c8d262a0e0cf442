import PaysheetModel

extension SheetMachine {
    /// What the user can choose on the sheet now: the wallet's cards (with whether the request
    /// accepts each), the shipping contacts and the shipping methods, each with its index or
    /// identifier for ``UserAction``, and why the user cannot authorize now (`authorizeBlockedBy`).
    /// `null` before `begin()`.
    ///
    /// A renderer (the browser's simulated sheet) draws its pickers from this and the
    /// ``snapshot()``; it decides nothing itself.
    public func choices() -> JSONValue {
        guard let sheetState = sheet else { return .null }
        let usable = Set(sheetState.usableCards)
        let cards: [JSONValue] = sheetState.cards.indices.map { i in
            let card = sheetState.cards[i]
            return [
                "index": .number(String(i)), "displayName": .string(card.displayName), "network": .string(card.network),
                "type": .string(card.type.rawValue), "usable": .bool(usable.contains(i)),
                "selected": .bool(sheetState.cardIndex == i),
            ]
        }
        let contacts: [JSONValue] =
            sheetState.requestsShipping
            ? sheetState.contacts.indices.map { i in
                [
                    "index": .number(String(i)), "contact": sheetState.contacts[i].jsonValue,
                    "selected": .bool(sheetState.contactIndex == i),
                ]
            } : []
        let methods: [JSONValue] = sheetState.methods.map {
            [
                "identifier": .string($0.identifier), "label": .string($0.label), "detail": .string($0.detail),
                "amount": .string($0.amount), "selected": .bool($0.identifier == sheetState.methodIdentifier),
            ]
        }
        let req = sheetState.request
        return [
            "cards": .array(cards),
            "shippingContacts": .array(contacts),
            "shippingMethods": .array(methods),
            "requestsShipping": .bool(sheetState.requestsShipping),
            "contactEditable": .bool(sheetState.requestsShipping && req.shippingContactEditingMode != .storePickup),
            "supportsCouponCode": .bool(req.supportsCouponCode == true),
            "requestsEmail": .bool(req.requiredShippingContactFields?.contains(.email) == true),
            "requestsPhone": .bool(req.requiredShippingContactFields?.contains(.phone) == true),
            "currencyCode": .string(req.currencyCode),
            "authorizeBlockedBy": Self.optional(userBlockReason(for: .authorize)),
        ]
    }
}
