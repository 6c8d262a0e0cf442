import Foundation

/// A payment network (`PKPaymentNetwork`): an extensible set of names.
public struct PKPaymentNetwork: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let amex = PKPaymentNetwork("AmEx")
    public static let bancomat = PKPaymentNetwork("Bancomat")
    public static let bancontact = PKPaymentNetwork("Bancontact")
    public static let barcode = PKPaymentNetwork("Barcode")
    @available(*, deprecated, renamed: "cartesBancaires")
    public static let carteBancaire = PKPaymentNetwork("CarteBancaire")
    @available(*, deprecated, renamed: "cartesBancaires")
    public static let carteBancaires = PKPaymentNetwork("CarteBancaires")
    public static let cartesBancaires = PKPaymentNetwork("CartesBancaires")
    public static let chinaUnionPay = PKPaymentNetwork("ChinaUnionPay")
    public static let dankort = PKPaymentNetwork("Dankort")
    public static let discover = PKPaymentNetwork("Discover")
    public static let eftpos = PKPaymentNetwork("Eftpos")
    public static let electron = PKPaymentNetwork("Electron")
    public static let elo = PKPaymentNetwork("Elo")
    public static let girocard = PKPaymentNetwork("Girocard")
    public static let idCredit = PKPaymentNetwork("iD")
    public static let interac = PKPaymentNetwork("Interac")
    public static let JCB = PKPaymentNetwork("JCB")
    public static let mada = PKPaymentNetwork("mada")
    public static let maestro = PKPaymentNetwork("Maestro")
    public static let masterCard = PKPaymentNetwork("MasterCard")
    public static let meeza = PKPaymentNetwork("Meeza")
    public static let mir = PKPaymentNetwork("Mir")
    public static let nanaco = PKPaymentNetwork("nanaco")
    public static let NAPAS = PKPaymentNetwork("NAPAS")
    public static let pagoBancomat = PKPaymentNetwork("PagoBancomat")
    public static let postFinance = PKPaymentNetwork("PostFinance")
    public static let privateLabel = PKPaymentNetwork("PrivateLabel")
    public static let quicPay = PKPaymentNetwork("QUICPay")
    public static let suica = PKPaymentNetwork("Suica")
    public static let tmoney = PKPaymentNetwork("TMoney")
    public static let visa = PKPaymentNetwork("Visa")
    public static let vPay = PKPaymentNetwork("VPay")
    public static let waon = PKPaymentNetwork("WAON")

    /// The name Apple Pay JS and the sheet engine use (`chinaUnionPay`, `masterCard`, `amex`, …).
    var pageName: String {
        switch self {
        case .amex: return "amex"
        case .JCB: return "jcb"
        case .idCredit: return "id"
        case .quicPay: return "quicPay"
        case .NAPAS: return "napas"
        case .tmoney: return "tmoney"
        case .waon: return "waon"
        case .mada, .nanaco: return rawValue
        default: return rawValue.prefix(1).lowercased() + rawValue.dropFirst()
        }
    }

    /// The network of an engine's network name.
    init(pageName: String) {
        let known: [PKPaymentNetwork] = [
            .amex, .bancomat, .bancontact, .barcode, .cartesBancaires, .chinaUnionPay, .dankort, .discover, .eftpos,
            .electron, .elo, .girocard, .idCredit, .interac, .JCB, .mada, .maestro, .masterCard, .meeza, .mir, .nanaco,
            .NAPAS, .pagoBancomat, .postFinance, .privateLabel, .quicPay, .suica, .tmoney, .visa, .vPay, .waon,
        ]
        self = known.first { $0.pageName.lowercased() == pageName.lowercased() } ?? PKPaymentNetwork(pageName)
    }
}

/// What the merchant's payment processor supports (`PKMerchantCapability`).
public struct PKMerchantCapability: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// 3-D Secure (required).
    public static let threeDSecure = PKMerchantCapability(rawValue: 1 << 0)
    /// EMV.
    public static let emv = PKMerchantCapability(rawValue: 1 << 1)
    /// Credit cards.
    public static let credit = PKMerchantCapability(rawValue: 1 << 2)
    /// Debit cards.
    public static let debit = PKMerchantCapability(rawValue: 1 << 3)
    /// Instant funds out (disbursements).
    public static let instantFundsOut = PKMerchantCapability(rawValue: 1 << 7)
    /// The names before iOS 17 (seed 004's).
    @available(iOS, deprecated: 17.0, renamed: "threeDSecure")
    public static var capability3DS: PKMerchantCapability { .threeDSecure }
    @available(iOS, deprecated: 17.0, renamed: "emv")
    public static var capabilityEMV: PKMerchantCapability { .emv }
    @available(iOS, deprecated: 17.0, renamed: "credit")
    public static var capabilityCredit: PKMerchantCapability { .credit }
    @available(iOS, deprecated: 17.0, renamed: "debit")
    public static var capabilityDebit: PKMerchantCapability { .debit }
    @available(iOS, deprecated: 17.0, renamed: "instantFundsOut")
    public static var capabilityInstantFundsOut: PKMerchantCapability { .instantFundsOut }

    /// The engine's names (`supports3DS`, …).
    var pageNames: [String] {
        var names: [String] = []
        if contains(.threeDSecure) { names.append("supports3DS") }
        if contains(.emv) { names.append("supportsEMV") }
        if contains(.credit) { names.append("supportsCredit") }
        if contains(.debit) { names.append("supportsDebit") }
        if contains(.instantFundsOut) { names.append("supportsInstantFundsOut") }
        return names
    }
}

/// A contact field the sheet asks for (`PKContactField`).
public struct PKContactField: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let postalAddress = PKContactField("post")
    public static let emailAddress = PKContactField("email")
    public static let phoneNumber = PKContactField("phone")
    public static let name = PKContactField("name")
    public static let phoneticName = PKContactField("phoneticName")

    /// The engine's name.
    var pageName: String {
        switch self {
        case .postalAddress: return "postalAddress"
        case .emailAddress: return "email"
        case .phoneNumber: return "phone"
        case .name: return "name"
        case .phoneticName: return "phoneticName"
        default: return rawValue
        }
    }
}

/// Address fields (`PKAddressField`, deprecated by ``PKContactField``).
public struct PKAddressField: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let postalAddress = PKAddressField(rawValue: 1 << 0)
    public static let phone = PKAddressField(rawValue: 1 << 1)
    public static let email = PKAddressField(rawValue: 1 << 2)
    public static let name = PKAddressField(rawValue: 1 << 3)
    public static let all: PKAddressField = [.postalAddress, .phone, .email, .name]

    /// The same fields as ``PKContactField``s.
    var contactFields: Set<PKContactField> {
        var fields: Set<PKContactField> = []
        if contains(.postalAddress) { fields.insert(.postalAddress) }
        if contains(.phone) { fields.insert(.phoneNumber) }
        if contains(.email) { fields.insert(.emailAddress) }
        if contains(.name) { fields.insert(.name) }
        return fields
    }

    init(_ fields: Set<PKContactField>) {
        var value: PKAddressField = []
        if fields.contains(.postalAddress) { value.insert(.postalAddress) }
        if fields.contains(.phoneNumber) { value.insert(.phone) }
        if fields.contains(.emailAddress) { value.insert(.email) }
        if fields.contains(.name) { value.insert(.name) }
        self = value
    }
}

/// How the goods reach the shopper (`PKShippingType`): the sheet's wording of the address.
public enum PKShippingType: UInt, Sendable {
    case shipping = 0
    case delivery = 1
    case storePickup = 2
    case servicePickup = 3

    var pageName: String {
        switch self {
        case .shipping: return "shipping"
        case .delivery: return "delivery"
        case .storePickup: return "storePickup"
        case .servicePickup: return "servicePickup"
        }
    }
}

/// Whether the shopper may edit the shipping address (`PKShippingContactEditingMode`).
public enum PKShippingContactEditingMode: UInt, Sendable {
    case available = 1
    case storePickup = 2
    @available(*, deprecated, renamed: "available")
    public static var enabled: PKShippingContactEditingMode { .available }
}

/// Whether a summary item's amount is final (`PKPaymentSummaryItemType`).
public enum PKPaymentSummaryItemType: UInt, Sendable {
    case final = 0
    case pending = 1
}
