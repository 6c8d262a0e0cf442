import PaysheetModel

extension PaymentTokenData {
    /// The token in `bytes` read in place (``JSONSkim``), or `nil` when the document is not of
    /// the skim's plain shape or is not a token ``init(jsonValue:)`` accepts: then the parser's
    /// path reads it and says what is wrong. Where it answers, it answers what that path does
    /// (`TokenSkimTests`), from the same rules in the same order.
    static func skimmed(_ bytes: [UInt8]) -> PaymentTokenData? {
        guard let skim = JSONSkim.read(bytes), case .object(let top) = skim.root else { return nil }
        // `{"token": {"paymentData": …}}`, `{"paymentData": …}` or the object itself, as `init(jsonValue:)`.
        var found: JSONSkim.Value = skim.root
        if case .object(let token)? = skim.member("token", of: top), let inner = skim.member("paymentData", of: token) {
            found = inner
        } else if let inner = skim.member("paymentData", of: top) {
            found = inner
        }
        guard case .object(let object) = found, case .object(let headerObject)? = skim.member("header", of: object),
            case .string(let versionText)? = skim.member("version", of: object)
        else { return nil }
        let version: PaymentTokenVersion
        if skim.text(versionText, is: "EC_v1") {
            version = .ecV1
        } else if skim.text(versionText, is: "RSA_v1") {
            version = .rsaV1
        } else {
            return nil
        }
        func base64(_ value: JSONSkim.Value?) -> [UInt8]? {
            guard case .string(let range)? = value,
                let bytes = skim.withBytes(range, { Base64.decode(utf8: $0) }), !bytes.isEmpty
            else { return nil }
            return bytes
        }
        guard let data = base64(skim.member("data", of: object)), data.count > 16,
            let signature = base64(skim.member("signature", of: object)),
            let publicKeyHash = base64(skim.member("publicKeyHash", of: headerObject)), publicKeyHash.count == 32,
            case .string(let transactionId)? = skim.member("transactionId", of: headerObject)
        else { return nil }
        var applicationData: [UInt8]?
        if let member = skim.member("applicationData", of: headerObject) {
            guard case .string(let range) = member else { return nil }
            if !range.isEmpty {
                guard let bytes = skim.withBytes(range, { Hex.decode(utf8: $0) }), bytes.count == 32 else { return nil }
                applicationData = bytes
            }
        }
        var header = PaymentTokenHeader(
            publicKeyHash: publicKeyHash,
            transactionId: skim.text(transactionId),
            applicationData: applicationData
        )
        guard !header.transactionIdBytes.isEmpty else { return nil }
        switch version {
        case .ecV1:
            guard let key = base64(skim.member("ephemeralPublicKey", of: headerObject)),
                skim.member("wrappedKey", of: headerObject) == nil
            else { return nil }
            header.ephemeralPublicKey = key
        case .rsaV1:
            guard let key = base64(skim.member("wrappedKey", of: headerObject)),
                skim.member("ephemeralPublicKey", of: headerObject) == nil
            else { return nil }
            header.wrappedKey = key
        }
        return PaymentTokenData(version: version, data: data, signature: signature, header: header)
    }
}
