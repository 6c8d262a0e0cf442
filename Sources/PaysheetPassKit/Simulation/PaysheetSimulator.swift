import Foundation
import PaysheetModel
import PaysheetSheet

/// What the simulated iPhone has and does: Paysheet's own API beside PassKit's, for tests and
/// previews. ``shared`` is what ``PKPaymentAuthorizationController`` and
/// ``PKPaymentAuthorizationViewController`` use.
///
/// ```swift
/// PaysheetSimulator.shared.shopper = [.selectShippingMethod("shunfengkuaidi"), .enterCouponCode("WELCOME10"), .authorize]
/// let controller = PKPaymentAuthorizationController(paymentRequest: request)
/// controller.delegate = checkout
/// await controller.present()
/// let session = try #require(await PaysheetSimulator.shared.finishedSession())
/// #expect(session.outcome == .paid)
/// ```
public final class PaysheetSimulator: @unchecked Sendable {
    // `@unchecked`: its state is only touched under `lock` (`Synchronization.Mutex` needs macOS 15,
    // the package supports macOS 14, and this target depends on nothing that has a checked lock).
    /// The simulator every controller uses.
    public static let shared = PaysheetSimulator()

    private let lock = NSLock()
    private var _wallet = Wallet.default
    private var _shopper: [PaysheetShopperStep] = [.authorize]
    private var _dataFolder: String?
    private var _tokenFormat = PaysheetTokenFormat.ecV1
    private var _completionTimeout: Double = 30
    private var _language = SheetLanguage.english
    private var _sessions: [PaysheetSheetSession] = []
    private var _events: [String] = []
    private var _log: [String] = []
    private var waiters: [CheckedContinuation<PaysheetSheetSession?, Never>] = []

    /// A simulator with the default wallet, a shopper who authorizes, and tokens from
    /// `PAYSHEET_DATA` (else `./.paysheet`).
    public init() {}

    func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// The shopper's cards, contacts, email and phone. A wallet with no card of a request's
    /// networks makes `canMakePayments(usingNetworks:)` false (seed 004's "set up" path).
    public var wallet: Wallet {
        get { locked { _wallet } }
        set { locked { _wallet = newValue } }
    }

    /// What the shopper does once the sheet is up (after the sheet's first card, contact and
    /// method are chosen, as on iOS): by default, authorizes.
    public var shopper: [PaysheetShopperStep] {
        get { locked { _shopper } }
        set { locked { _shopper = newValue } }
    }

    /// The data folder whose sandbox CA signs the tokens and whose certificate of the request's
    /// `merchantIdentifier` they are encrypted to (made when missing): `PAYSHEET_DATA`, else
    /// `./.paysheet`, as `paysheet serve`.
    public var dataFolder: String {
        get {
            locked {
                _dataFolder ?? ProcessInfo.processInfo.environment["PAYSHEET_DATA"]
                    ?? FileManager.default.currentDirectoryPath + "/.paysheet"
            }
        }
        set { locked { _dataFolder = newValue } }
    }

    /// EC_v1 (the default) or RSA_v1 tokens.
    public var tokenFormat: PaysheetTokenFormat {
        get { locked { _tokenFormat } }
        set { locked { _tokenFormat = newValue } }
    }

    /// Seconds of real time a delegate may hold a handler before the sheet gives up on it (iOS's
    /// 30). A handler the delegate drops without calling fails the sheet at once, whatever this is.
    public var completionTimeout: Double {
        get { locked { _completionTimeout } }
        set { locked { _completionTimeout = newValue } }
    }

    /// The simulated iPhone's language: the sheet shows its own words (statuses, module errors) in
    /// it, as iOS shows them in the device's language; what the app gives is shown as given.
    /// English by default; `SheetLanguage(locale: Locale(identifier: "ja_JP"))` or
    /// `SheetLanguage.preferred(Locale.preferredLanguages)` choose it from a locale.
    public var language: SheetLanguage {
        get { locked { _language } }
        set { locked { _language = newValue } }
    }

    /// Every sheet presented so far, oldest first.
    public var sessions: [PaysheetSheetSession] { locked { _sessions } }

    /// What was asked of the simulated device outside a sheet (`PKPassLibrary().openPaymentSetup()`, …).
    public var events: [String] { locked { _events } }

    /// Why a sheet was not presented or a controller not made (the simulator's log).
    public var log: [String] { locked { _log } }

    /// Forgets sessions, events and log; restores the default wallet, shopper and language.
    public func reset() {
        locked {
            _wallet = .default
            _shopper = [.authorize]
            _sessions = []
            _events = []
            _log = []
            _completionTimeout = 30
            _tokenFormat = .ecV1
            _language = .english
        }
    }

    /// Waits until the newest sheet has finished (its delegate was told `…DidFinish`); `nil`
    /// when none was presented.
    public func finishedSession() async -> PaysheetSheetSession? {
        guard let session = sessions.last else { return nil }
        await session.waitUntilFinished()
        return session
    }

    func record(event: String) { locked { _events.append(event) } }
    func note(_ line: String) { locked { _log.append(line) } }
    func add(_ session: PaysheetSheetSession) { locked { _sessions.append(session) } }

    /// Whether the wallet has a card of one of `networks` with `capabilities`.
    func hasCard(of networks: [PKPaymentNetwork]?, capabilities: PKMerchantCapability = []) -> Bool {
        let cards = wallet.cards.filter { card in
            if capabilities.contains(.credit) && !capabilities.contains(.debit)
                && card.type == .debit
            {
                return false
            }
            if capabilities.contains(.debit) && !capabilities.contains(.credit)
                && card.type == .credit
            {
                return false
            }
            return true
        }
        guard let networks else { return !cards.isEmpty }
        let names = Set(networks.map { $0.pageName.lowercased() })
        return cards.contains { names.contains($0.network.lowercased()) }
    }
}

/// The token format the simulated sheet issues.
public enum PaysheetTokenFormat: String, Sendable {
    /// EC_v1: encrypted to the merchant's P-256 payment processing certificate.
    case ecV1 = "EC_v1"
    /// RSA_v1 (mainland China): encrypted to the merchant's RSA-2048 certificate
    /// (`merchants/ID-rsa/` in the data folder).
    case rsaV1 = "RSA_v1"
}

/// One thing the simulated shopper does on the sheet.
public enum PaysheetShopperStep: Sendable, Hashable {
    /// Chooses the wallet's card at this index.
    case selectCard(Int)
    /// Chooses the wallet's shipping contact at this index.
    case selectShippingContact(Int)
    /// Edits the shipping contact.
    case editShippingContact(ApplePayPaymentContact)
    /// Edits the email or phone of the CONTACT module (the sheet fires no event for it).
    case editContact(email: String?, phone: String?)
    /// Chooses a shipping method by identifier.
    case selectShippingMethod(String)
    /// Enters a coupon code.
    case enterCouponCode(String)
    /// Waits (virtual seconds: 31 passes the sheet's deadline).
    case wait(Double)
    /// Authorizes with Face ID.
    case authorize
    /// Cancels.
    case cancel
}
