import PaysheetModel

/// A payment token's `paymentData`, parsed and decoded but neither verified nor decrypted.
///
/// Parsing is strict about what verification and decryption need (every field present, of the
/// right type, valid Base64 or hexadecimal, of the right length) and tolerant of what they don't
/// (unknown members are ignored, as Apple may add fields).
public struct PaymentTokenData: Sendable, Equatable {
    /// `version`.
    public var version: PaymentTokenVersion
    /// `data`: ciphertext followed by the 16-byte GCM tag.
    public var data: [UInt8]
    /// `signature`: the detached CMS SignedData (BER).
    public var signature: [UInt8]
    /// `header`.
    public var header: PaymentTokenHeader

    /// A token from its parts.
    public init(version: PaymentTokenVersion, data: [UInt8], signature: [UInt8], header: PaymentTokenHeader) {
        self.version = version
        self.data = data
        self.signature = signature
        self.header = header
    }

    /// The bytes Apple signs: `ephemeralPublicKey` or `wrappedKey`, then `data`, `transactionId`
    /// and `applicationData`, each decoded from its text form.
    public var signedContent: [UInt8] {
        var out = header.ephemeralPublicKey ?? header.wrappedKey ?? []
        out.reserveCapacity(out.count + data.count + header.transactionIdBytes.count + 32)
        out += data
        out += header.transactionIdBytes
        out += header.applicationData ?? []
        return out
    }

    /// Parses token JSON: the `paymentData` object itself, or an object that holds it
    /// (`{"paymentData": …}` as in `PKPaymentToken`, or `{"token": {"paymentData": …}}` as in an
    /// `ApplePayPayment`).
    public init(json bytes: [UInt8]) throws(PaymentTokenError) {
        // Read in place when the document is plain (every token Apple sends is); else parsed.
        if let token = Self.skimmed(bytes) {
            self = token
            return
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw PaymentTokenError(.malformed, "token is not JSON (\(error.description))")
        }
        try self.init(jsonValue: value)
    }

    /// Parses an already-parsed token JSON value (see ``init(json:)``).
    public init(jsonValue: JSONValue) throws(PaymentTokenError) {
        var value = jsonValue
        var path = "paymentData"
        if let inner = value["token"]?["paymentData"] {
            value = inner
            path = "token.paymentData"
        } else if let inner = value["paymentData"] {
            value = inner
        }
        guard let object = value.objectValue else {
            throw PaymentTokenError(.malformed, "\(path) must be an object, found \(value.kindName)")
        }
        func string(_ key: String, in object: JSONObject, at prefix: String) throws(PaymentTokenError) -> String? {
            guard let member = object[key] else { return nil }
            guard let text = member.stringValue else {
                throw PaymentTokenError(.malformed, "\(prefix).\(key) must be a string, found \(member.kindName)")
            }
            return text
        }
        func required(_ key: String, in object: JSONObject, at prefix: String) throws(PaymentTokenError) -> String {
            guard let text = try string(key, in: object, at: prefix) else {
                throw PaymentTokenError(.malformed, "\(prefix).\(key) is missing")
            }
            return text
        }
        func base64(
            _ key: String,
            in object: JSONObject,
            at prefix: String,
            optional: Bool = false
        ) throws(PaymentTokenError) -> [UInt8]? {
            guard
                let text = optional
                    ? try string(key, in: object, at: prefix) : try required(key, in: object, at: prefix)
            else { return nil }
            guard let bytes = Base64.decode(text), !bytes.isEmpty else {
                throw PaymentTokenError(.malformed, "\(prefix).\(key) is not non-empty Base64")
            }
            return bytes
        }

        let versionText = try required("version", in: object, at: path)
        guard let version = PaymentTokenVersion(rawValue: versionText) else {
            throw PaymentTokenError(
                .unsupportedVersion,
                "\(path).version is \"\(versionText)\"; supported versions are EC_v1 and RSA_v1"
            )
        }
        guard let headerValue = object["header"] else {
            throw PaymentTokenError(.malformed, "\(path).header is missing")
        }
        guard let headerObject = headerValue.objectValue else {
            throw PaymentTokenError(.malformed, "\(path).header must be an object, found \(headerValue.kindName)")
        }
        let headerPath = path + ".header"
        let data = try base64("data", in: object, at: path)!
        guard data.count > 16 else {
            throw PaymentTokenError(
                .malformed,
                "\(path).data is \(data.count) bytes; it must hold ciphertext and a 16-byte tag"
            )
        }
        let signature = try base64("signature", in: object, at: path)!
        let publicKeyHash = try base64("publicKeyHash", in: headerObject, at: headerPath)!
        guard publicKeyHash.count == 32 else {
            throw PaymentTokenError(
                .malformed,
                "\(headerPath).publicKeyHash is \(publicKeyHash.count) bytes; a SHA-256 hash is 32"
            )
        }
        let transactionId = try required("transactionId", in: headerObject, at: headerPath)
        var applicationData: [UInt8]?
        if let text = try string("applicationData", in: headerObject, at: headerPath), !text.isEmpty {
            guard let bytes = Hex.decode(text), bytes.count == 32 else {
                throw PaymentTokenError(
                    .malformed,
                    "\(headerPath).applicationData must be a SHA-256 hash in hexadecimal (64 digits)"
                )
            }
            applicationData = bytes
        }
        var header = PaymentTokenHeader(
            publicKeyHash: publicKeyHash,
            transactionId: transactionId,
            applicationData: applicationData
        )
        guard !header.transactionIdBytes.isEmpty else {  // empty, or not hexadecimal
            throw PaymentTokenError(.malformed, "\(headerPath).transactionId must be non-empty hexadecimal")
        }
        switch version {
        case .ecV1:
            header.ephemeralPublicKey = try base64("ephemeralPublicKey", in: headerObject, at: headerPath)
            if headerObject["wrappedKey"] != nil {
                throw PaymentTokenError(
                    .malformed,
                    "\(headerPath).wrappedKey belongs to RSA_v1 tokens, but version is EC_v1"
                )
            }
        case .rsaV1:
            header.wrappedKey = try base64("wrappedKey", in: headerObject, at: headerPath)
            if headerObject["ephemeralPublicKey"] != nil {
                throw PaymentTokenError(
                    .malformed,
                    "\(headerPath).ephemeralPublicKey belongs to EC_v1 tokens, but version is RSA_v1"
                )
            }
        }
        self.init(version: version, data: data, signature: signature, header: header)
    }

    /// The token as `paymentData` JSON, with Apple's member names.
    public var jsonValue: JSONValue {
        var headerMembers = JSONObject()
        if let applicationData = header.applicationData {
            headerMembers["applicationData"] = .string(Hex.encode(applicationData))
        }
        if let key = header.ephemeralPublicKey { headerMembers["ephemeralPublicKey"] = .string(Base64.encode(key)) }
        if let key = header.wrappedKey { headerMembers["wrappedKey"] = .string(Base64.encode(key)) }
        headerMembers["publicKeyHash"] = .string(Base64.encode(header.publicKeyHash))
        headerMembers["transactionId"] = .string(header.transactionId)
        return .object(
            JSONObject([
                ("data", .string(Base64.encode(data))),
                ("signature", .string(Base64.encode(signature))),
                ("header", .object(headerMembers)),
                ("version", .string(version.rawValue)),
            ])
        )
    }
}
