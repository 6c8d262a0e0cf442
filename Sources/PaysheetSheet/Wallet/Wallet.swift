import PaysheetModel

/// A card in the simulated user's wallet.
public struct WalletCard: Codable, Sendable, Hashable {
    /// The network, e.g. `visa` (matched case-insensitively against `supportedNetworks`).
    public var network: String
    /// credit, debit, prepaid or store.
    public var type: ApplePayPaymentMethodType
    /// The name the sheet shows, e.g. "Visa 1234".
    public var displayName: String
    /// The card's billing address.
    public var billingContact: ApplePayPaymentContact?
    /// The pass behind the card.
    public var paymentPass: ApplePayPaymentPass?
    /// The country that issued the card (ISO 3166 code); `nil`: its billing address's country.
    public var issuerCountryCode: String?

    /// A card.
    public init(
        network: String,
        type: ApplePayPaymentMethodType,
        displayName: String,
        billingContact: ApplePayPaymentContact? = nil,
        paymentPass: ApplePayPaymentPass? = nil
    ) {
        self.network = network
        self.type = type
        self.displayName = displayName
        self.billingContact = billingContact
        self.paymentPass = paymentPass
    }

    /// The network name as the page sees it (`"Visa"`, `"MasterCard"`, …).
    public var pageNetworkName: String {
        switch network.lowercased() {
        case "mastercard": return "MasterCard"
        case "amex": return "AmEx"
        case "chinaunionpay": return "ChinaUnionPay"
        default: return network.prefix(1).uppercased() + network.dropFirst()
        }
    }
}

/// What the simulated user has: cards, shipping contacts, an email and a phone number.
public struct Wallet: Codable, Sendable, Hashable {
    /// Cards; the first is selected when the sheet opens.
    public var cards: [WalletCard]
    /// Shipping contacts; the first is selected when the sheet opens.
    public var shippingContacts: [ApplePayPaymentContact]
    /// The email the CONTACT module shows.
    public var email: String?
    /// The phone number the CONTACT module shows.
    public var phone: String?

    /// A wallet.
    public init(
        cards: [WalletCard],
        shippingContacts: [ApplePayPaymentContact] = [],
        email: String? = nil,
        phone: String? = nil
    ) {
        self.cards = cards
        self.shippingContacts = shippingContacts
        self.email = email
        self.phone = phone
    }

    enum CodingKeys: String, CodingKey { case cards, shippingContacts, email, phone }

    /// Decodes a wallet; `shippingContacts` may be left out (no contact).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cards = try container.decode([WalletCard].self, forKey: .cards)
        shippingContacts = try container.decodeIfPresent([ApplePayPaymentContact].self, forKey: .shippingContacts) ?? []
        email = try container.decodeIfPresent(String.self, forKey: .email)
        phone = try container.decodeIfPresent(String.self, forKey: .phone)
    }

    /// The default wallet of the scenario format: one Visa credit card with a US billing address,
    /// one US shipping contact with name, phone and email.
    public static let `default` = Wallet(
        cards: [
            WalletCard(
                network: "visa",
                type: .credit,
                displayName: "Visa 1234",
                billingContact: ApplePayPaymentContact(
                    givenName: "Jane",
                    familyName: "Appleseed",
                    addressLines: ["1 Infinite Loop"],
                    locality: "Cupertino",
                    postalCode: "95014-2083",
                    administrativeArea: "CA",
                    country: "United States",
                    countryCode: "US"
                ),
                paymentPass: ApplePayPaymentPass(
                    primaryAccountIdentifier: "PAYSHEET-SANDBOX-0001",
                    primaryAccountNumberSuffix: "1234",
                    deviceAccountIdentifier: "PAYSHEET-DEVICE-0001",
                    deviceAccountNumberSuffix: "4321",
                    activationState: .activated
                )
            )
        ],
        shippingContacts: [
            ApplePayPaymentContact(
                phoneNumber: "+1 408-555-0100",
                emailAddress: "jane@example.com",
                givenName: "Jane",
                familyName: "Appleseed",
                addressLines: ["1 Infinite Loop"],
                locality: "Cupertino",
                postalCode: "95014-2083",
                administrativeArea: "CA",
                country: "United States",
                countryCode: "US"
            )
        ],
        email: "jane@example.com",
        phone: "+1 408-555-0100"
    )
}
