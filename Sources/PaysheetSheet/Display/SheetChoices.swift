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
        guard let sh = sheet else { return .null }
        let usable = Set(sh.usableCards)
        let cards: [JSONValue] = sh.cards.indices.map { i in
            let c = sh.cards[i]
            return [
                "index": .number(String(i)), "displayName": .string(c.displayName), "network": .string(c.network),
                "type": .string(c.type.rawValue), "usable": .bool(usable.contains(i)),
                "selected": .bool(sh.cardIndex == i),
            ]
        }
        let contacts: [JSONValue] =
            sh.requestsShipping
            ? sh.contacts.indices.map { i in
                [
                    "index": .number(String(i)), "contact": sh.contacts[i].jsonValue,
                    "selected": .bool(sh.contactIndex == i),
                ]
            } : []
        let methods: [JSONValue] = sh.methods.map {
            [
                "identifier": .string($0.identifier), "label": .string($0.label), "detail": .string($0.detail),
                "amount": .string($0.amount), "selected": .bool($0.identifier == sh.methodIdentifier),
            ]
        }
        let req = sh.request
        return [
            "cards": .array(cards),
            "shippingContacts": .array(contacts),
            "shippingMethods": .array(methods),
            "requestsShipping": .bool(sh.requestsShipping),
            "contactEditable": .bool(sh.requestsShipping && req.shippingContactEditingMode != .storePickup),
            "supportsCouponCode": .bool(req.supportsCouponCode == true),
            "requestsEmail": .bool(req.requiredShippingContactFields?.contains(.email) == true),
            "requestsPhone": .bool(req.requiredShippingContactFields?.contains(.phone) == true),
            "currencyCode": .string(req.currencyCode),
            "authorizeBlockedBy": userBlockReason(for: .authorize).map { .string($0) } ?? .null,
        ]
    }
}
