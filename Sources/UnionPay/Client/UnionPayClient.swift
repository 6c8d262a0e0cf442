import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Tracing

/// A merchant's client of UnionPay's ACP 5.1.0 gateway: builds, signs and posts back-end
/// transactions and queries, and verifies every answer and notification.
public struct UnionPayClient: Sendable {
    /// The answer to one request.
    public enum Answer: Sendable, Equatable {
        /// A verified message from the gateway.
        case message(ACPMessage)
        /// No trustworthy answer (timeout, connection error, HTTP status, bad signature): the
        /// outcome is unknown and must be found by query.
        case noAnswer(String)
        /// The request was not sent (card data that could not be encrypted to the configured
        /// encryption certificate, or a value UnionPay's syntax cannot carry), for the reason
        /// given: nothing reached the gateway, so the transaction failed for good and need not
        /// be queried.
        case notSent(String)
    }

    /// The configuration.
    public let configuration: UnionPayConfiguration
    let http: HTTPClient
    let signer: any ACPMessageSigning
    let verifier: ACPVerifier
    /// UnionPay's encryption certificate for sensitive fields, replaced by ``updateEncryptionCertificate(txnTime:)``.
    public let encryption: EncryptionCertificate

    /// A client posting with `http`, signing with `signer` (`signMethod=01` or `11`), verifying with
    /// `verifier`, encrypting card data to `encryptor` (UnionPay's encryption certificate; `nil`
    /// sends it in clear, as UnionPay's old specification did).
    public init(
        configuration: UnionPayConfiguration,
        http: HTTPClient,
        signer: any ACPMessageSigning,
        verifier: ACPVerifier,
        encryptor: SensitiveDataEncryptor? = nil
    ) {
        self.configuration = configuration
        self.http = http
        self.signer = signer
        self.verifier = verifier
        self.encryption = EncryptionCertificate(encryptor)
    }

    func base(_ txnType: TransactionType, subType: String, orderId: String, txnTime: String) -> ACPMessage {
        ACPMessage([
            "version": "5.1.0", "encoding": "UTF-8", "txnType": txnType.rawValue, "txnSubType": subType,
            "bizType": txnType == .query ? "000000" : configuration.bizType, "accessType": configuration.accessType,
            "channelType": configuration.channelType, "merId": configuration.merchantId, "orderId": orderId,
            "txnTime": txnTime,
        ])
    }

    /// Consume (`txnType=01`) of `amount` minor units of `instrument`.
    ///
    /// - A card: its data in the configured payment data field
    ///   (``UnionPayConfiguration/paymentDataField``, ``PaymentDataField``), encrypted to UnionPay's
    ///   encryption certificate with `encryptCertId` when the client has one, in clear when it has
    ///   none (UnionPay's old specification, sandboxes that do not encrypt).
    /// - A merchant token: a merchant-initiated consume of a token stored under an agreement the
    ///   shopper made; UnionPay's token payment product, `bizType` `000902`, the token in
    ///   `tokenPayData` (`{token=…&trId=…&tokenType=01&tokenEnd=…}`, as UnionPay's SDK demos send
    ///   it) with its expiry, and no cryptogram: the shopper is not present.
    ///
    /// Card data is never sent in clear when an encryption certificate is configured: a consume
    /// whose card data cannot be encrypted, or holds a value UnionPay's `{key=value&…}` syntax
    /// cannot carry, is not sent, and the answer is ``Answer/notSent(_:)``.
    public func consume(
        orderId: String,
        txnTime: String,
        amount: Int,
        currencyCode: String,
        instrument: PaymentInstrument,
        reserved: String? = nil
    ) async -> Answer {
        let message: ACPMessage
        do {
            message = try consumeMessage(
                orderId: orderId,
                txnTime: txnTime,
                amount: amount,
                currencyCode: currencyCode,
                instrument: instrument,
                reserved: reserved
            )
        } catch {
            return .notSent(error.message)
        }
        return await post(ACPPath.backTransaction, message)
    }

    /// The unsigned consume message of ``consume(orderId:txnTime:amount:currencyCode:instrument:reserved:)``,
    /// or why it may not be sent.
    func consumeMessage(
        orderId: String,
        txnTime: String,
        amount: Int,
        currencyCode: String,
        instrument: PaymentInstrument,
        reserved: String?
    ) throws(ACPError) -> ACPMessage {
        var message = base(.consume, subType: "01", orderId: orderId, txnTime: txnTime)
        message["txnAmt"] = String(amount)
        message["currencyCode"] = currencyCode
        message["backUrl"] = configuration.notificationURL
        switch instrument {
        case .card(let card):
            let field = try card.field()
            if let encryptor = encryption.current {
                message[configuration.paymentDataField] = try field.sealed(with: encryptor).encoded
                message["encryptCertId"] = encryptor.certId
            } else {
                message[configuration.paymentDataField] = field.encoded
            }
        case .merchantToken(let token, let expiration):
            let tokenEnd = "20\(expiration)235959"
            try PaymentDataField(["token": token, "tokenEnd": tokenEnd]).checkCarriable()
            message["bizType"] = "000902"
            message["tokenPayData"] =
                "{token=\(token)&trId=\(configuration.tokenRequestorId)&tokenType=01&tokenEnd=\(tokenEnd)}"
        }
        message["reqReserved"] = reserved
        return message
    }

    /// Refund (`04`) or void (`31`) of the consume `originalQueryId`.
    public func reverse(
        _ type: TransactionType,
        orderId: String,
        txnTime: String,
        amount: Int,
        currencyCode: String,
        originalQueryId: String
    ) async -> Answer {
        var message = base(type, subType: "00", orderId: orderId, txnTime: txnTime)
        message["txnAmt"] = String(amount)
        message["currencyCode"] = currencyCode
        message["origQryId"] = originalQueryId
        message["backUrl"] = configuration.notificationURL
        return await post(ACPPath.backTransaction, message)
    }

    /// Status query (`00`) of the transaction `orderId` + `txnTime`.
    public func query(orderId: String, txnTime: String) async -> Answer {
        await post(ACPPath.query, base(.query, subType: "00", orderId: orderId, txnTime: txnTime))
    }

    /// Asks the gateway for its current encryption certificate (`txnType=95`, `certType=01`, as
    /// UnionPay asks merchants to do daily) and uses it from then on when it differs and is the
    /// gateway's (chained through the middle certificate, the gateway's owner field).
    /// Returns the `encryptCertId` in use afterwards.
    @discardableResult
    public func updateEncryptionCertificate(txnTime: String) async throws(ACPError) -> String {
        var message = base(.encryptionCertificate, subType: "00", orderId: "CERT" + txnTime, txnTime: txnTime)
        message["bizType"] = "000000"
        message["certType"] = "01"
        switch await post(ACPPath.backTransaction, message) {
        case .noAnswer(let why), .notSent(let why): throw ACPError(.transport, why)
        case .message(let answer):
            guard answer.responseCode == .success, let pem = answer["encryptPubKeyCert"] else {
                throw ACPError(
                    .malformed,
                    "the encryption certificate update was answered \(answer["respCode"] ?? "(none)"): \(answer["respMsg"] ?? "")"
                )
            }
            let certificate = try verifier.gatewayCertificate(pem)
            let encryptor = try SensitiveDataEncryptor(certificate: certificate)
            encryption.replace(with: encryptor)
            return encryptor.certId
        }
    }

    /// What a reconciliation download found.
    public enum ReconciliationDownload: Sendable, Equatable {
        /// The day's file: its name and transactions.
        case file(name: String, records: [ReconciliationRecord])
        /// `98`: UnionPay has no file for the day (yet).
        case noFile
        /// Anything else: a failure, said in words.
        case failed(String)
    }

    /// Downloads and reads the reconciliation file of the clearing day `settleDate` (`MMDD`):
    /// a file transfer (`txnType=76`, `fileType=00`) to the configured file download URL.
    public func reconciliation(settleDate: String, txnTime: String) async -> ReconciliationDownload {
        let message = ACPMessage([
            "version": "5.1.0", "encoding": "UTF-8", "txnType": TransactionType.fileTransfer.rawValue,
            "txnSubType": "01",
            "bizType": "000000", "accessType": configuration.accessType, "merId": configuration.merchantId,
            "settleDate": settleDate, "txnTime": txnTime, "fileType": "00",
        ])
        // A busy merchant's day is megabytes; other answers are small.
        switch await post(ACPPath.fileTransfer, message, to: configuration.fileDownloadURL, upTo: 96 << 20) {
        case .noAnswer(let why), .notSent(let why): return .failed(why)
        case .message(let answer):
            let code = answer.responseCode
            if code == .fileNotFound { return .noFile }
            guard code == .success else {
                return .failed(
                    "respCode \(code?.rawValue ?? "(none)"): \(answer["respMsg"] ?? code?.unionPayMessage ?? "")"
                )
            }
            guard let content = answer["fileContent"], !content.isEmpty else {
                return .failed("the answer carries no fileContent")
            }
            do {
                return .file(
                    name: answer["fileName"] ?? "",
                    records: try ReconciliationFile.records(fileContent: content)
                )
            } catch {
                return .failed(error.message)
            }
        }
    }

    /// Parses and verifies a notification body.
    public func notification(_ body: String, now: Date = Date()) throws(ACPError) -> ACPMessage {
        let message = try ACPMessage(formEncoded: body)
        try verifier.verify(message, now: now)
        guard message["merId"] == configuration.merchantId else {
            throw ACPError(
                .malformed,
                "the notification is for merId \(message["merId"] ?? "(none)"), not \(configuration.merchantId)"
            )
        }
        return message
    }

    func post(_ path: String, _ message: ACPMessage, to base: String? = nil, upTo limit: Int = 1 << 20) async -> Answer
    {
        var signed = message
        signer.sign(&signed)
        var request = HTTPClientRequest(
            url: base.map { $0.hasSuffix("/") ? String($0.dropLast()) + path : $0 + path }
                ?? configuration.gatewayURL + path
        )
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded;charset=UTF-8")
        request.body = .bytes(ByteBuffer(string: signed.formEncoded))
        let txnType = message["txnType"] ?? ""
        return await withSpan("unionpay " + Self.spanName(txnType), ofKind: .client) { span in
            // Only what identifies the transaction: never card data, certificates or signatures.
            span.attributes["http.request.method"] = "POST"
            span.attributes["url.path"] = path
            span.attributes["unionpay.txn_type"] = txnType
            span.attributes["unionpay.order_id"] = message["orderId"]
            if let amount = message["txnAmt"] { span.attributes["unionpay.txn_amt"] = amount }
            // The W3C trace context (`traceparent`) for the gateway, under this span: AsyncHTTPClient
            // injects it itself when it traces (a second header would make it invalid); a client
            // made before the tracer was bootstrapped holds the no-op tracer and injects nothing.
            if http.tracer == nil || http.tracer is NoOpTracer {
                InstrumentationSystem.instrument.inject(
                    ServiceContext.current ?? .topLevel,
                    into: &request.headers,
                    using: HTTPHeadersInjector()
                )
            }
            let answer = await send(request, path: path, upTo: limit, span: span)
            switch answer {
            case .message(let m):
                span.attributes["unionpay.resp_code"] = m.responseCode?.rawValue
                if let code = m["origRespCode"] { span.attributes["unionpay.orig_resp_code"] = code }
            case .noAnswer(let why), .notSent(let why):
                span.setStatus(SpanStatus(code: .error, message: why))
            }
            return answer
        }
    }

    /// A span's name for `txnType`: UnionPay's transactions by what they do.
    static func spanName(_ txnType: String) -> String {
        switch TransactionType(rawValue: txnType) {
        case .consume: "consume"
        case .query: "query"
        case .refund: "refund"
        case .void: "void"
        case .fileTransfer: "file transfer"
        case .encryptionCertificate: "encryption certificate"
        case nil: "txnType \(txnType)"
        }
    }

    func send(_ request: HTTPClientRequest, path: String, upTo limit: Int, span: any Span) async -> Answer {
        do {
            let response = try await http.execute(request, timeout: .milliseconds(Int64(configuration.timeout * 1000)))
            span.attributes["http.response.status_code"] = Int(response.status.code)
            let body = try await response.body.collect(upTo: limit)
            guard response.status == .ok else { return .noAnswer("HTTP \(response.status.code) from \(path)") }
            // UnionPay answers raw key=value pairs (not percent-encoded), as its SDKs read them.
            let answer = try ACPMessage(raw: String(buffer: body))
            try verifier.verify(answer)
            return .message(answer)
        } catch let error as ACPError {
            let hint = error.code == .signature ? configuration.untrustedAnswerHint : ""
            return .noAnswer("\(path): \(error.message)\(hint)")
        } catch {
            return .noAnswer("\(path): \(error)")
        }
    }
}

/// Writes a trace context's headers into AsyncHTTPClient's request headers (the sandbox gateway's
/// notifications use it too).
package struct HTTPHeadersInjector: Injector {
    package init() {}

    package func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
