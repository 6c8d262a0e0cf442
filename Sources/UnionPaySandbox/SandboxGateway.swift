import UnionPay
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import PaysheetModel
import Tracing

/// The sandbox UnionPay gateway: speaks ACP 5.1.0 (signed form posts, synchronous answers,
/// asynchronous notifications, queries), keeps a ledger, declines by test card or amount
/// (``SandboxDeclineRules``) and injects ``SandboxFaults``.
///
/// It is a real server for merchants' tests; it is not China UnionPay and moves no money.
public actor SandboxGateway {
    let signer: ACPSigner
    /// The same key and certificate, signing as 5.0.0 answers are signed (the refusal of a 5.0.0 request).
    let version500Signer: ACPVersion500Signer
    let verifier: ACPVerifier
    let secureKeySigners: [String: ACPSecureKeySigner]
    /// The encryption key merchants encrypt card data to (`encryptCertId`); `nil` accepts clear card data.
    let decryptor: SensitiveDataDecryptor?
    let encryptionCertificatePEM: String?
    let http: HTTPClient
    let logger: Logger
    /// The payment data field this gateway reads (see `UnionPayConfiguration/paymentDataField`).
    public let paymentDataField: String
    var faults: SandboxFaults
    var random: FaultRandom
    var ledger: [String: SandboxLedgerEntry] = [:]
    var byQueryId: [String: String] = [:]
    var order: [String] = []
    var sequence = 0
    var notificationsSent = 0
    /// The notifications waiting to be posted (or being posted), by their number.
    var pendingNotifications: [Int: Task<Void, Never>] = [:]
    var notificationTasks = 0
    /// Seconds added to the clock of file transfers: a test (or a merchant trying reconciliation)
    /// asks for today's file as if the day had ended. `PUT /sandbox/clock`.
    var fileClockOffset: Double = 0
    /// Merchant tokens the network no longer honours, by their last four digits: `deleted` (the
    /// shopper removed the card or ended the agreement in the wallet: `63`) or `expired` (`73`).
    /// `PUT /sandbox/merchant-tokens`.
    var tokenStates: [String: String] = [:]
    /// Charges held in processing by ``SandboxFaults/holdCharges`` (ledger keys), until released.
    var held: [String] = []
    /// Every query, as (orderId|txnTime, received, answered), the latest 10,000.
    var queries: [(key: String, received: Date, answered: Date)] = []

    /// A gateway signing with `pki`'s gateway credentials and trusting the merchant certificates
    /// `merchants`; `secureKeys` (by `merId`) are the keys of merchants who sign with
    /// `signMethod=11`, whose answers and notifications are then signed with the same key.
    /// Notifications are posted with `http`.
    public init(
        pki: UnionPaySandboxPKI,
        merchants: [ACPCredentials],
        http: HTTPClient = .shared,
        faults: SandboxFaults = SandboxFaults(),
        paymentDataField: String = "cardTransData",
        secureKeys: [String: String] = [:],
        encryption: ACPCredentials? = nil,
        logger: Logger = Logger(label: "paysheet.acquirer-sandbox")
    ) throws {
        self.decryptor = try encryption.map { try SensitiveDataDecryptor(credentials: $0) }
        self.encryptionCertificatePEM = try encryption?.certificate.serializeAsPEM().pemString
        self.signer = try pki.gateway.signer(includesCertificate: true)
        self.version500Signer = ACPVersion500Signer(signer)
        self.verifier = ACPVerifier(roots: [pki.root], certificates: merchants.map(\.certificate))
        self.secureKeySigners = try secureKeys.mapValues { try ACPSecureKeySigner(secureKey: $0) }
        self.http = http
        self.faults = faults
        self.random = FaultRandom(seed: faults.seed)
        self.paymentDataField = paymentDataField
        self.logger = logger
    }

    deinit {
        for notification in pendingNotifications.values { notification.cancel() }
    }

    /// Every query received: the transaction, when it came and when it was answered (a query
    /// answered late by the `slowQuery` fault spans its delay). The latest 10,000.
    public func queryLog() -> [(transaction: String, received: Date, answered: Date)] {
        queries.map { ($0.key, $0.received, $0.answered) }
    }

    /// Sets the file transfers' clock offset (seconds).
    public func setFileClockOffset(_ seconds: Double) { fileClockOffset = seconds }

    /// The current faults.
    public func currentFaults() -> SandboxFaults { faults }

    /// Replaces the faults (and reseeds the generator).
    public func setFaults(_ f: SandboxFaults) {
        faults = f
        random = FaultRandom(seed: f.seed)
    }

    /// How many charges ``SandboxFaults/holdCharges`` holds in processing now.
    package func heldChargeCount() -> Int { held.count }

    /// Ends the processing of the charges ``SandboxFaults/holdCharges`` held: their results are
    /// final from `now` and their notifications are sent. Returns how many were released.
    @discardableResult
    package func releaseHeldCharges(now: Date = Date()) -> Int {
        let released = held
        held = []
        for key in released {
            ledger[key]?.finalAt = now
            scheduleNotification(for: key, now: now)
        }
        return released.count
    }

    /// Sets the state of the merchant tokens ending in `suffix` (`deleted`, `expired`, or `active` to clear it).
    public func setTokenState(suffix: String, state: String) {
        if state == "active" { tokenStates.removeValue(forKey: suffix) } else { tokenStates[suffix] = state }
    }

    /// The ledger in arrival order.
    public func entries() -> [SandboxLedgerEntry] { order.compactMap { ledger[$0] } }

    /// Notifications posted so far (duplicates included).
    public func notificationCount() -> Int { notificationsSent }

    /// What the HTTP layer sends back.
    public struct Reply: Sendable {
        /// HTTP status.
        public var status: Int
        /// Form-encoded body.
        public var body: String
        /// Seconds to wait before answering.
        public var delay: Double = 0
    }

    func key(_ orderId: String, _ txnTime: String) -> String { orderId + "|" + txnTime }

    func nextQueryId(_ now: Date) -> String {
        sequence += 1
        let digits = String(sequence)
        return TransactionTime.format(now) + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    /// A synchronous answer to `request`, signed as the request was (RSA with the gateway's
    /// certificate, the 5.0.0 way when the request was 5.0.0, or the merchant's secure key), in
    /// UnionPay's raw `key=value&…` form.
    func answer(_ request: ACPMessage, _ fields: [String: String]) -> String {
        var message = ACPMessage(fields)
        for field in [
            "version", "encoding", "bizType", "txnType", "txnSubType", "accessType", "merId", "orderId", "txnTime",
        ] where message[field] == nil {
            message[field] = request[field]
        }
        if message["respMsg"] == nil, let code = message.responseCode {
            message["respMsg"] = code.unionPayMessage
        }
        messageSigner(request["signMethod"], merId: request["merId"], version: request["version"]).sign(&message)
        return message.rawEncoded
    }

    /// The signer for a merchant that signed with `signMethod` a message of `version`: its secure
    /// key (`11`, whatever the version, as the SDKs' `validate` decides), else the gateway's
    /// certificate, the 5.0.0 way for a 5.0.0 message (which an SDK speaking 5.0.0 validates by
    /// `certId`, SHA1withRSA), the 5.1.0 way otherwise.
    func messageSigner(_ signMethod: String?, merId: String?, version: String? = "5.1.0") -> any ACPMessageSigning {
        if signMethod == "11", let merId, let keySigner = secureKeySigners[merId] { return keySigner }
        if version == "5.0.0" { return version500Signer }
        return signer
    }

    /// Checks `request`'s signature: by `certId` (`01`) or the merchant's secure key (`11`).
    func verify(_ request: ACPMessage, now: Date) throws(ACPError) {
        if request["signMethod"] == "11" {
            guard let merId = request["merId"], let keySigner = secureKeySigners[merId] else {
                throw ACPError(
                    .signature,
                    "merId \(request["merId"] ?? "(none)") has no secure key here (signMethod 11)"
                )
            }
            guard keySigner.verifies(request) else {
                throw ACPError(
                    .signature,
                    "the signature (signMethod 11) does not match the message and the merchant's secure key"
                )
            }
            return
        }
        try verifier.verify(request, now: now)
    }

    /// A refusal of a request, as the answer to send.
    struct Refusal: Error { var reply: Reply }

    /// `body` parsed, of version 5.1.0 and signed by a known merchant; otherwise the signed answer
    /// that says why (`10` format, `11` signature).
    func verifiedRequest(_ body: String, now: Date) -> Result<ACPMessage, Refusal> {
        let request: ACPMessage
        do { request = try ACPMessage(formEncoded: body) } catch {
            return .failure(refusal(ACPMessage(), .formatError, "报文格式错误 (\(error.message))"))
        }
        if request["version"] != "5.1.0" {
            return .failure(
                refusal(
                    request,
                    .formatError,
                    "报文格式错误 (version \(request["version"] ?? "(none)"): this gateway speaks 5.1.0)"
                )
            )
        }
        do { try verify(request, now: now) } catch {
            return .failure(refusal(request, .signatureFailure, "验证签名失败 (\(error.message))"))
        }
        return .success(request)
    }

    /// Handles a post to `backTransReq.do`.
    public func backTransaction(_ body: String, now: Date = Date()) -> Reply {
        if random.chance(faults.serverErrorBefore) {
            return Reply(status: 503, body: "sandbox fault: service unavailable")
        }
        let request: ACPMessage
        switch verifiedRequest(body, now: now) {
        case .failure(let refusal): return refusal.reply
        case .success(let verified): request = verified
        }
        if request["txnType"] == TransactionType.encryptionCertificate.rawValue {
            return encryptionCertificateReply(request)
        }
        let amount: Int
        let type: TransactionType
        switch transactionElements(request) {
        case .failure(let refusal): return refusal.reply
        case .success(let elements): (amount, type) = elements
        }
        let ledgerKey = key(request["orderId"]!, request["txnTime"]!)
        if ledger[ledgerKey] != nil { return refusal(request, .duplicate).reply }

        var entry = SandboxLedgerEntry(
            orderId: request["orderId"]!,
            txnTime: request["txnTime"]!,
            txnType: type,
            amount: amount,
            currencyCode: request["currencyCode"]!,
            queryId: nextQueryId(now),
            originalQueryId: request["origQryId"],
            respCode: .success,
            finalAt: now.addingTimeInterval(faults.processingSeconds),
            maskedAccount: nil,
            notificationURL: request["backUrl"],
            merchantId: request["merId"]!,
            signMethod: request["signMethod"]
        )
        entry.reserved = request["reqReserved"]
        var synchronous = ResponseCode.success
        switch type {
        case .consume:
            let decided =
                request["bizType"] == "000902"
                ? tokenConsume(request, amount: amount, now: now, entry: &entry)
                : cardConsume(request, amount: amount, now: now, entry: &entry)
            switch decided {
            case .failure(let refusal): return refusal.reply
            case .success(let code): synchronous = code
            }
        case .refund, .void:
            if let refusal = reverse(request, type: type, amount: amount, now: now) { return refusal }
        case .query, .fileTransfer, .encryptionCertificate:
            break
        }
        if type == .consume, synchronous.kind != .failure, random.chance(faults.holdCharges) {
            entry.finalAt = .distantFuture  // until released
            held.append(ledgerKey)
        }
        ledger[ledgerKey] = entry
        byQueryId[entry.queryId] = ledgerKey
        order.append(ledgerKey)
        if synchronous.kind != .failure, !held.contains(ledgerKey) { scheduleNotification(for: ledgerKey, now: now) }

        let reply = answer(
            request,
            [
                "respCode": synchronous.rawValue, "queryId": entry.queryId, "txnAmt": String(amount),
                "currencyCode": entry.currencyCode,
            ]
        )
        if random.chance(faults.serverErrorAfter) {
            return Reply(status: 500, body: "sandbox fault: internal error after processing")
        }
        if random.chance(faults.timeout) { return Reply(status: 200, body: reply, delay: faults.timeoutSeconds) }
        return Reply(status: 200, body: reply)
    }

    /// A synchronous refusal of `request` with `code` and, when given, UnionPay's message.
    func refusal(_ request: ACPMessage, _ code: ResponseCode, _ message: String? = nil) -> Refusal {
        var fields = ["respCode": code.rawValue]
        if let message { fields["respMsg"] = message }
        return Refusal(reply: Reply(status: 200, body: answer(request, fields)))
    }

    /// `txnType` 95: this gateway's encryption certificate (type 01, the only one it has).
    func encryptionCertificateReply(_ request: ACPMessage) -> Reply {
        guard let pem = encryptionCertificatePEM, request["certType"] == "01" else {
            return refusal(request, .missingElement, "报文交易要素缺失 (certType 01: this gateway has no other)").reply
        }
        return Reply(
            status: 200,
            body: answer(
                request,
                ["respCode": ResponseCode.success.rawValue, "certType": "01", "encryptPubKeyCert": pem]
            )
        )
    }

    /// The elements every transaction needs, its amount (a positive number of minor units) and
    /// its type (one this endpoint takes).
    func transactionElements(_ request: ACPMessage) -> Result<(amount: Int, type: TransactionType), Refusal> {
        var missing: [String] = []
        for field in [
            "version", "txnType", "txnSubType", "bizType", "merId", "orderId", "txnTime", "txnAmt", "currencyCode",
            "backUrl",
        ] where request[field] == nil {
            missing.append(field)
        }
        guard missing.isEmpty, let amount = try? MinorUnits.parse(request["txnAmt"]!, digits: 0), amount > 0,
            let type = TransactionType(rawValue: request["txnType"]!), type != .query, type != .fileTransfer,
            type != .encryptionCertificate
        else {
            let what = missing.isEmpty ? "txnAmt/txnType" : missing.joined(separator: ",")
            return .failure(refusal(request, .missingElement, "missing or invalid: \(what)"))
        }
        return .success((amount, type))
    }

    /// UnionPay's token payment (`bizType` 000902): a stored token, no cryptogram
    /// (merchant-initiated). The synchronous answer's code; the entry gets the final one.
    func tokenConsume(
        _ request: ACPMessage,
        amount: Int,
        now: Date,
        entry: inout SandboxLedgerEntry
    ) -> Result<ResponseCode, Refusal> {
        guard let data = request["tokenPayData"],
            let values = try? PaymentDataField(braced: data, name: "tokenPayData").values
        else {
            return .failure(
                refusal(request, .missingElement, "报文交易要素缺失 (bizType 000902 needs tokenPayData {token=…&trId=…})")
            )
        }
        guard let token = values["token"], values["trId"]?.isEmpty == false else {
            return .failure(refusal(request, .missingElement, "报文交易要素缺失 (tokenPayData needs token and trId)"))
        }
        entry.maskedAccount = PaymentDataField(["accNo": token]).maskedAccount
        var decision = SandboxDeclineRules.decide(accountNumber: token, expiry: nil, amount: amount, now: now)
        if let end = values["tokenEnd"], end.count == 14, let txnTime = request["txnTime"], end < txnTime {
            decision = .declined(.cardExpired)
        }
        switch tokenStates[String(token.suffix(4))] {
        case "deleted"?: decision = .declined(.cardStatusIncorrect)
        case "expired"?: decision = .declined(.cardExpired)
        default: break
        }
        entry.respCode = decision.final
        if decision.synchronous.kind == .failure { entry.finalAt = now }
        return .success(decision.synchronous)
    }

    /// A card payment: the card data (encrypted to this gateway's encryption certificate, when it
    /// has one) with an account number and a cryptogram or EMV data, `{key=value&…}` as it is or
    /// Base64 (a value that is neither is refused `10`, saying what is wrong with it). The
    /// synchronous answer's code; the entry gets the final one.
    func cardConsume(
        _ request: ACPMessage,
        amount: Int,
        now: Date,
        entry: inout SandboxLedgerEntry
    ) -> Result<ResponseCode, Refusal> {
        var field: PaymentDataField?
        if let raw = request[paymentDataField] {
            // As the SDKs send it: `{…}` (Java) or its Base64 (PHP's composite fields, Paysheet).
            do { field = try PaymentDataField(received: raw, name: paymentDataField) } catch {
                return .failure(refusal(request, .formatError, "报文格式错误 (\(error.message))"))
            }
        }
        if let decryptor, let sent = field {
            guard request["encryptCertId"] == decryptor.certId else {
                let message =
                    request["encryptCertId"] == nil
                    ? "报文格式错误 (card data must be encrypted to the encryption certificate \(decryptor.certId) and encryptCertId sent)"
                    : "报文格式错误 (encryptCertId \(request["encryptCertId"]!) is not the encryption certificate \(decryptor.certId); ask with txnType 95)"
                return .failure(refusal(request, .formatError, message))
            }
            do { field = try sent.decrypted(with: decryptor) } catch {
                return .failure(refusal(request, .formatError, "报文格式错误 (\(error.message))"))
            }
        }
        guard let field, field.values["accNo"] != nil,
            field.values["cryptogram"] != nil || field.values["emvData"] != nil
        else {
            return .failure(
                refusal(request, .missingElement, "\(paymentDataField) must carry accNo and cryptogram or emvData")
            )
        }
        entry.maskedAccount = field.maskedAccount
        let decision = SandboxDeclineRules.decide(
            accountNumber: field.values["accNo"],
            expiry: field.values["expired"],
            amount: amount,
            now: now
        )
        entry.respCode = decision.final
        if decision.synchronous.kind == .failure { entry.finalAt = now }
        return .success(decision.synchronous)
    }

    /// A refund or void of `amount` against the successful consume `origQryId` names: a void is
    /// for the whole, unrefunded amount on the consume's clearing day; refunds add up to at most
    /// the consume. Records the reversal on the consume; `nil`, or the refusal.
    func reverse(_ request: ACPMessage, type: TransactionType, amount: Int, now: Date) -> Reply? {
        guard let originalQueryId = request["origQryId"], let originalKey = byQueryId[originalQueryId],
            var original = ledger[originalKey], original.txnType == .consume, original.status(at: now) == "success"
        else {
            return refusal(request, .originalNotFound).reply
        }
        let remaining = original.amount - original.reversed
        if remaining == 0 { return refusal(request, .alreadyReversed).reply }
        if type == .void {
            guard amount == original.amount, original.reversed == 0 else {
                return refusal(
                    request,
                    .originalMismatch,
                    "a void must be for the full amount of an unrefunded consume"
                ).reply
            }
            guard let charged = TransactionTime.parse(original.txnTime), TransactionTime.sameClearingDay(charged, now)
            else {
                return refusal(
                    request,
                    .originalNotFound,
                    "a void is possible on the consume's clearing day only; refund instead"
                )
                .reply
            }
        } else if amount > remaining {
            return refusal(request, .originalMismatch, "refund of \(amount) exceeds the \(remaining) not yet refunded")
                .reply
        }
        original.reversed += amount
        ledger[originalKey] = original
        return nil
    }

    /// Handles a post to `queryTrans.do`.
    public func query(_ body: String, now: Date = Date()) -> Reply {
        let request: ACPMessage
        switch verifiedRequest(body, now: now) {
        case .failure(let refusal): return refusal.reply
        case .success(let verified): request = verified
        }
        let delay = random.chance(faults.slowQuery) ? faults.slowQuerySeconds : 0
        if let orderId = request["orderId"], let txnTime = request["txnTime"] {
            if queries.count >= 10_000 { queries.removeFirst(1_000) }
            queries.append((key(orderId, txnTime), now, now.addingTimeInterval(delay)))
        }
        if random.chance(faults.queryTimeoutCode) {
            return Reply(status: 200, body: answer(request, ["respCode": ResponseCode.timeout.rawValue]), delay: delay)
        }
        guard let orderId = request["orderId"], let txnTime = request["txnTime"],
            let entry = ledger[key(orderId, txnTime)]
        else {
            return Reply(
                status: 200,
                body: answer(request, ["respCode": ResponseCode.noSuchTransaction.rawValue]),
                delay: delay
            )
        }
        let orig = now < entry.finalAt ? ResponseCode.processing : entry.respCode
        return Reply(status: 200, body: answer(request, result(entry, orig)), delay: delay)
    }

    func result(_ entry: SandboxLedgerEntry, _ orig: ResponseCode) -> [String: String] {
        var fields = [
            "respCode": ResponseCode.success.rawValue, "origRespCode": orig.rawValue,
            "origRespMsg": orig.unionPayMessage,
            "queryId": entry.queryId,
            "txnAmt": String(entry.amount), "currencyCode": entry.currencyCode, "orderId": entry.orderId,
            "txnTime": entry.txnTime,
            "txnType": entry.txnType.rawValue, "merId": entry.merchantId,
        ]
        if orig == .success {
            fields["settleAmt"] = String(entry.amount)
            fields["settleCurrencyCode"] = entry.currencyCode
            fields["settleDate"] = TransactionTime.clearingDay(entry.finalAt)
        }
        if let originalQueryId = entry.originalQueryId { fields["origQryId"] = originalQueryId }
        if let account = entry.maskedAccount { fields["accNo"] = account }
        return fields
    }

    func scheduleNotification(for key: String, now: Date) {
        guard let entry = ledger[key], let url = entry.notificationURL else { return }
        if random.chance(faults.dropNotification) { return }
        let copies = random.chance(faults.duplicateNotification) ? 2 : 1
        let extra = random.chance(faults.delayNotification) ? random.unit() * faults.notificationDelaySeconds : 0
        let wait = max(0, entry.finalAt.timeIntervalSince(now)) + extra
        var fields = result(entry, entry.respCode)
        fields["respCode"] = entry.respCode.rawValue
        fields["respMsg"] = entry.respCode.unionPayMessage
        fields.removeValue(forKey: "origRespCode")
        fields.removeValue(forKey: "origRespMsg")
        var request = ACPMessage([
            "version": "5.1.0", "encoding": "UTF-8", "bizType": "000802",
            "txnSubType": entry.txnType == .consume ? "01" : "00", "accessType": "0",
        ])
        for (k, v) in fields { request[k] = v }
        messageSigner(entry.signMethod, merId: entry.merchantId).sign(&request)
        let body = request.formEncoded  // notifications are posted form-encoded, as UnionPay posts them
        notificationTasks += 1
        let id = notificationTasks
        // Held until posted. The task holds the gateway weakly, and the gateway cancels what is
        // still waiting when it goes away: no notification outlives its server.
        // The transaction's trace context (the request's, under TracingMiddleware), for the
        // notification: the task inherits it, and AsyncHTTPClient sends it when it traces;
        // otherwise it is written here.
        var carrier = HTTPClientRequest(url: url)
        if http.tracer == nil || http.tracer is NoOpTracer {
            InstrumentationSystem.instrument.inject(
                ServiceContext.current ?? .topLevel,
                into: &carrier.headers,
                using: HTTPHeadersInjector()
            )
        }
        let traceHeaders = carrier.headers
        pendingNotifications[id] = Task { [weak self, http, logger, traceHeaders] in
            // Sent after the synchronous answer has left (a few milliseconds), or later.
            if (try? await Task.sleep(for: .milliseconds(Int(wait * 1000) + 5))) != nil {
                for _ in 0..<copies {
                    guard let gateway = self, !Task.isCancelled else { break }
                    await gateway.countNotification()
                    var post = HTTPClientRequest(url: url)
                    post.method = .POST
                    post.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded;charset=UTF-8")
                    for (name, value) in traceHeaders { post.headers.add(name: name, value: value) }
                    post.body = .bytes(ByteBuffer(string: body))
                    do {
                        let response = try await http.execute(post, timeout: .seconds(10))
                        let answer = try await response.body.collect(upTo: 1 << 16)
                        if response.status != .ok {
                            logger.warning(
                                "notification to \(url) answered HTTP \(response.status.code): \(String(buffer: answer).prefix(300))"
                            )
                        }
                    } catch {
                        logger.warning("notification to \(url) failed: \(error)")
                    }
                }
            }
            await self?.notificationDone(id)
        }
    }

    func countNotification() { notificationsSent += 1 }

    func notificationDone(_ id: Int) { pendingNotifications[id] = nil }
}
