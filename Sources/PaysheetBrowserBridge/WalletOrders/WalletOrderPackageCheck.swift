import Crypto
import Foundation
import PaysheetModel
import PaysheetSheet
import PaysheetToken
import UnionPay
import X509

/// The simulated wallet's checks of an order package (`.order`), as Wallet makes them before it
/// shows an order: a ZIP archive with `order.json`, `manifest.json` and `signature`; the
/// signature a detached CMS signature over the manifest by an Order Type ID certificate that
/// chains to a trusted root and names the order's type; the manifest's SHA-256 of every other
/// file; `order.json` an order of schema version 1 for the type and identifier the payment named.
/// Pure: the package's bytes in, the verdict out (the first check that failed, in words).
struct WalletOrderPackageCheck: Sendable {
    /// The roots an Order Type ID certificate may chain to (the sandbox's, for the sandbox's sheet).
    let trust: TrustAnchors

    /// The files every package holds.
    static let requiredFiles = ["order.json", "manifest.json", "signature"]

    /// The verdict on `package` for the payment's `details`, at `time` (certificates' validity).
    func verdict(_ package: Data, details: ApplePayPaymentOrderDetails, at time: Date) async -> WalletOrderVerdict {
        let files: [String: Data]
        switch Self.files(of: package) {
        case .success(let read): files = read
        case .failure(let refusal): return refusal.verdict
        }
        if let refusal = await signature(files, details: details, at: time) { return refusal }
        if let refusal = Self.manifest(files) { return refusal }
        if let refusal = Self.order(files["order.json"]!, details: details) { return refusal }
        return .appears
    }

    struct Refusal: Error {
        var verdict: WalletOrderVerdict
    }

    /// The archive's files by name, each required one present.
    static func files(of package: Data) -> Result<[String: Data], Refusal> {
        let archive: ZipArchive
        do throws(ACPError) { archive = try ZipArchive(reading: package, what: "the package") } catch {
            return .failure(
                Refusal(verdict: .refused(.package, "\(error.message) (an order package is a ZIP archive)"))
            )
        }
        var files: [String: Data] = [:]
        for (name, contents) in archive.files {
            guard files.updateValue(contents, forKey: name) == nil else {
                return .failure(Refusal(verdict: .refused(.package, "the package holds \(name) twice")))
            }
        }
        for name in requiredFiles where files[name] == nil {
            return .failure(Refusal(verdict: .refused(.package, "the package has no \(name)")))
        }
        return .success(files)
    }

    /// `signature` signs `manifest.json`, chains to ``trust`` and names the payment's order type.
    func signature(
        _ files: [String: Data],
        details: ApplePayPaymentOrderDetails,
        at time: Date
    ) async -> WalletOrderVerdict? {
        let signer: Certificate
        do throws(OrderPackageError) {
            signer = try await OrderSignatureVerifier(trust: trust).verify(
                Array(files["signature"]!),
                manifest: Array(files["manifest.json"]!),
                at: time
            )
        } catch {
            return .refused(.signature, error.message)
        }
        let named = OrderPackageSigner.orderTypeIdentifier(of: signer)
        guard named == details.orderTypeIdentifier else {
            return .refused(
                .signature,
                "the signing certificate is for order type \(named ?? "(none named)"), not \(details.orderTypeIdentifier)"
            )
        }
        return nil
    }

    /// `manifest.json` lists the SHA-256 (hexadecimal) of every file but itself and the
    /// signature, each matching, and nothing else.
    static func manifest(_ files: [String: Data]) -> WalletOrderVerdict? {
        guard case .object(let listed)? = try? JSONParser.parse(Array(files["manifest.json"]!)) else {
            return .refused(.manifest, "manifest.json is not a JSON object of file names and SHA-256 hashes")
        }
        for name in files.keys.sorted() where name != "manifest.json" && name != "signature" {
            guard let hash = listed[name]?.stringValue else {
                return .refused(.manifest, "manifest.json does not list \(name)")
            }
            let actual = Hex.encode(SHA256.hash(data: files[name]!))
            guard constantTimeEqual(Array(actual.utf8), Array(hash.lowercased().utf8)) else {
                return .refused(
                    .manifest,
                    "manifest.json's SHA-256 of \(name) does not match the file: it was changed after the package was signed"
                )
            }
        }
        for name in listed.keys.sorted() where files[name] == nil || name == "manifest.json" || name == "signature" {
            return .refused(.manifest, "manifest.json lists \(name), which is not a file it may list in this package")
        }
        return nil
    }

    /// `order.json`: an order of the schema (version 1, `ecommerce`), for the payment's order.
    static func order(_ data: Data, details: ApplePayPaymentOrderDetails) -> WalletOrderVerdict? {
        guard case .object(let order)? = try? JSONParser.parse(Array(data)) else {
            return .refused(.order, "order.json is not a JSON object")
        }
        func text(_ key: String) -> String? { order[key]?.stringValue }
        guard order["schemaVersion"]?.doubleValue == 1 else {
            return .refused(
                .order,
                "order.json's schemaVersion is \(order["schemaVersion"]?.compactText ?? "missing"), not 1"
            )
        }
        guard text("orderType") == "ecommerce" else {
            return .refused(
                .order,
                "order.json's orderType is \(order["orderType"]?.compactText ?? "missing"), not \"ecommerce\""
            )
        }
        guard text("orderTypeIdentifier") == details.orderTypeIdentifier else {
            return .refused(
                .order,
                "order.json's orderTypeIdentifier is \(order["orderTypeIdentifier"]?.compactText ?? "missing"), but the payment's orderDetails name \(details.orderTypeIdentifier)"
            )
        }
        guard text("orderIdentifier") == details.orderIdentifier else {
            return .refused(
                .order,
                "order.json's orderIdentifier is \(order["orderIdentifier"]?.compactText ?? "missing"), but the payment's orderDetails name \(details.orderIdentifier)"
            )
        }
        return orderContents(order)
    }

    /// `order.json`'s dates, status, management URL, merchant, web service and payment.
    static func orderContents(_ order: JSONObject) -> WalletOrderVerdict? {
        func text(_ key: String) -> String? { order[key]?.stringValue }
        for key in ["createdAt", "updatedAt"] {
            guard let value = text(key), Self.rfc3339(value) != nil else {
                return .refused(.order, "order.json's \(key) is not an RFC 3339 date and time")
            }
        }
        guard let status = text("status"), ["open", "completed", "cancelled"].contains(status) else {
            return .refused(.order, "order.json's status is not open, completed or cancelled")
        }
        guard text("orderManagementURL").flatMap(URL.init(string:))?.scheme != nil else {
            return .refused(.order, "order.json has no orderManagementURL")
        }
        guard case .object(let merchant)? = order["merchant"],
            merchant["displayName"]?.stringValue?.isEmpty == false,
            merchant["merchantIdentifier"]?.stringValue?.isEmpty == false, merchant["url"]?.stringValue != nil
        else {
            return .refused(.order, "order.json's merchant lacks its displayName, merchantIdentifier or url")
        }
        if order["webServiceURL"] != nil, (text("authenticationToken")?.count ?? 0) < 16 {
            return .refused(
                .order,
                "order.json names a webServiceURL without an authenticationToken of 16 characters or more"
            )
        }
        if let payment = order["payment"] {
            guard case .object(let total)? = payment["total"], total["amount"] != nil,
                total["currency"]?.stringValue.flatMap(Currency.init) != nil
            else {
                return .refused(.order, "order.json's payment has no total with an amount and an ISO 4217 currency")
            }
        }
        return nil
    }

    /// `text` as an RFC 3339 date and time (with or without fractional seconds).
    static func rfc3339(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return plain.date(from: text) ?? fractional.date(from: text)
    }
}
