import Crypto
import _CryptoExtras
import Foundation
import PaysheetModel
import PaysheetRSA
import PaysheetToken
import PaysheetTokenFormat

// `swift run -c release paysheet-bench tokens [--rounds N]`: tokens per second on one core, each
// line next to OpenSSL's rate for the primitives it cannot do without, measured with `openssl
// speed` on the same core in the same round; ratios per round, then min / median / max. What each
// line times is printed in the header.

/// `openssl speed`'s rates (operations per second on one core) for the primitives a token needs.
struct OpenSSLRates {
    var ecdh = 0.0, ecdsaVerify = 0.0, rsaPrivate = 0.0, rsaPublic = 0.0

    static func measure(seconds: Int) -> OpenSSLRates? {
        var arguments = ["openssl", "speed", "-mr", "-seconds", String(seconds), "ecdhp256", "ecdsap256", "rsa2048"]
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") {
            arguments = ["taskset", "-c", "0"] + arguments
        }
        // `openssl speed` times itself with SIGALRM, which this process's threads block and a
        // child inherits blocked: unblock it in a small Python shim before exec.
        arguments =
            [
                "python3", "-c",
                "import os,signal,sys; signal.pthread_sigmask(signal.SIG_UNBLOCK,[signal.SIGALRM]); os.execvp(sys.argv[1], sys.argv[1:])",
            ]
            + arguments
        guard let output = standardOutput(of: arguments) else { return nil }
        var rates = OpenSSLRates()
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: ":")
            if line.hasPrefix("+F2:"), fields.count >= 5, fields[2] == "2048" {
                rates.rsaPrivate = Double(fields[3]) ?? 0
                rates.rsaPublic = Double(fields[4]) ?? 0
            }
            if line.hasPrefix("+F4:"), fields.count >= 5, fields[2] == "256" {
                rates.ecdsaVerify = Double(fields[4]) ?? 0
            }
            if line.hasPrefix("+F5:"), fields.count >= 4, fields[2] == "256" { rates.ecdh = Double(fields[3]) ?? 0 }
        }
        return rates.ecdh > 0 && rates.rsaPrivate > 0 ? rates : nil
    }

    /// `openssl version`'s first line.
    static func version() -> String {
        guard let output = standardOutput(of: ["openssl", "version"]) else { return "openssl: not found" }
        return output.split(separator: "\n").first.map(String.init) ?? "openssl: no version"
    }

    /// What `arguments` (run through `/usr/bin/env`) print on standard output, or nil if it cannot start.
    static func standardOutput(of arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = Pipe()
        do { try process.run() } catch { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output
    }
}

func tokensPerSecond(
    count: Int,
    minimumSeconds: Double = 1,
    _ body: (Int) async throws -> Void
) async rethrows -> Double {
    var done = 0
    let start = DispatchTime.now().uptimeNanoseconds
    var elapsed = 0.0
    repeat {
        for index in 0..<count { try await body(index) }
        done += count
        elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    } while elapsed < minimumSeconds
    return Double(done) / elapsed
}

/// One round's rates: ours and `openssl speed`'s, measured one after the other on the same core.
struct TokenRound {
    var ecDecrypt = 0.0, ecFull = 0.0
    var rsaFull: [RSABackend: Double] = [:]
    var rsaSign: [RSABackend: Double] = [:]
    var rsaVerify: [RSABackend: Double] = [:]
    var rsaEncrypt: [RSABackend: Double] = [:]
    var openSSL = OpenSSLRates()

    /// EC_v1 verify + decrypt's floor: one ECDH and one ECDSA verify, one after the other.
    var ecCeiling: Double { 1 / (1 / openSSL.ecdh + 1 / openSSL.ecdsaVerify) }
}

/// The sandbox PKI, an EC_v1 and an RSA_v1 merchant, and tokens issued to them, as every token
/// command of the benchmark needs them.
struct TokenBenchFixture {
    let now = Date()
    let pki: SandboxPKI
    let ec: MerchantCredentials
    let rsa: MerchantCredentials
    let issuer: SandboxTokenIssuer

    init() throws {
        pki = try SandboxPKI.generate(now: now)
        ec = try MerchantCredentials.create(merchantIdentifier: "merchant.bench.ec", keyType: .ec, pki: pki, now: now)
        rsa = try MerchantCredentials.create(
            merchantIdentifier: "merchant.bench.rsa",
            keyType: .rsa,
            pki: pki,
            now: now
        )
        issuer = SandboxTokenIssuer(pki: pki)
    }

    /// `count` tokens for `credentials`' merchant, as JSON text.
    func tokens(_ credentials: MerchantCredentials, _ count: Int) throws -> [[UInt8]] {
        try (0..<count).map { _ in
            let payment = try SandboxPayment.sample(amount: "12.34", currency: "USD", now: now)
            return Array(
                try issuer.issue(
                    payment,
                    to: TokenRecipient(certificate: credentials.certificate),
                    signingTime: now
                ).jsonValue.compactText.utf8
            )
        }
    }

    var verifier: PaymentTokenVerifier { PaymentTokenVerifier(trust: pki.trustAnchors) }
}

/// Runs this command again pinned to core 0 (`taskset -c 0`), where `openssl speed` runs too, and
/// exits with its status; returns when already pinned or when `taskset` is missing.
func pinToCoreZero() {
    let environment = ProcessInfo.processInfo.environment
    guard environment["PAYSHEET_BENCH_PINNED"] == nil,
        FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset")
    else { return }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
    process.arguments = ["-c", "0", CommandLine.arguments[0]] + CommandLine.arguments.dropFirst()
    process.environment = environment.merging(["PAYSHEET_BENCH_PINNED": "1"]) { $1 }
    do {
        try process.run()
        process.waitUntilExit()
        exit(process.terminationStatus)
    } catch {
        return
    }
}

func runTokenBenchmark(_ arguments: [String]) async throws {
    pinToCoreZero()
    var rounds = 5
    if let index = arguments.firstIndex(of: "--rounds"), index + 1 < arguments.count, let n = Int(arguments[index + 1])
    {
        rounds = max(1, n)
    }
    let fixture = try TokenBenchFixture()
    let now = fixture.now
    let (ecCredentials, rsa) = (fixture.ec, fixture.rsa)
    let ecTokens = try fixture.tokens(ecCredentials, 256)
    let rsaTokens = try fixture.tokens(rsa, 64)
    let verifier = fixture.verifier
    let decryptor = PaymentTokenDecryptor(
        keys: MerchantKeyring([ecCredentials.merchantKey]),
        verifier: verifier,
        replayGuard: nil
    )
    let backends = RSABackendChoice.libCryptoOpened ? RSABackend.allCases : [.boringSSL]
    let rsaDecryptors = Dictionary(
        uniqueKeysWithValues: backends.map { backend in
            (
                backend,
                PaymentTokenDecryptor(
                    keys: MerchantKeyring([rsa.merchantKey.using(backend)]),
                    verifier: verifier,
                    replayGuard: nil
                )
            )
        }
    )
    guard case .rsa(let rsaKey) = rsa.privateKey else { fatalError("not an RSA key") }
    let signingKey = try _RSA.Signing.PrivateKey(derRepresentation: rsaKey.derRepresentation)
    let message = Array(String(repeating: "accessType=0&accNo=…&", count: 30).utf8)  // an ACP signing string's size

    let choice = RSABackendChoice.current
    let pinned = ProcessInfo.processInfo.environment["PAYSHEET_BENCH_PINNED"] != nil
    print(
        "Token benchmark: one core (\(pinned ? "this process and `openssl speed` pinned to core 0" : "not pinned: no taskset")), release build, \(rounds) rounds"
    )
    print("What each line times, per token, from the token's JSON text as a merchant server receives it:")
    print("  EC_v1 decrypt only       parse the JSON; ECDH with header.ephemeralPublicKey; Apple's KDF; AES-256-GCM")
    print("                           open; the decrypted JSON read into typed payment data. No signature check.")
    print("  EC_v1 verify + decrypt   the same, and before it the CMS signature check: signing time, the chain")
    print("                           (checked on the first token, then cached: no certificate signature again),")
    print("                           the signed attributes' digests and one ECDSA P-256 verify.")
    print("  RSA_v1 verify + decrypt  the same check; the AES key unwrapped with RSA-OAEP-SHA256 instead of ECDH.")
    print("  ACP sign / verify        an ACP signing string's SHA-256 signed / verified with RSA-2048 PKCS #1 v1.5;")
    print("  ACP card data encrypt    a card number encrypted to UnionPay's RSA-2048 key, PKCS #1 v1.5 padding.")
    print("Baselines, the same round and core: `openssl speed -seconds 1 ecdhp256 ecdsap256 rsa2048`")
    print("  (\(OpenSSLRates.version())).")
    print("RSA backends: \(backends.map(\.rawValue).joined(separator: ", ")); in use by default: \(choice.explanation)")
    for backend in backends { print("  \(backend.rawValue) CPU path: \(RSACPUPath.describe(backend))") }
    print("  openssl speed CPU path: \(RSACPUPath.describe(.openSSL))")

    var results: [TokenRound] = []
    var sink = 0
    for round in 1...rounds {
        var r = TokenRound()
        r.ecDecrypt = try await tokensPerSecond(count: ecTokens.count) { i in
            let token = try PaymentTokenData(json: ecTokens[i])
            sink &+= try decryptor.keys.decrypt(unverified: token).transactionAmount
        }
        r.ecFull = try await tokensPerSecond(count: ecTokens.count) { i in
            sink &+= try await decryptor.decrypt(json: ecTokens[i], at: now).paymentData.transactionAmount
        }
        for backend in backends {
            let rsaDecryptor = rsaDecryptors[backend]!
            r.rsaFull[backend] = try await tokensPerSecond(count: rsaTokens.count) { i in
                sink &+= try await rsaDecryptor.decrypt(json: rsaTokens[i], at: now).paymentData.transactionAmount
            }
            let operations = RSAPrivateKeyOperations(signingKey, backend: backend)
            let publicKey = RSAPublicKeyOperations(signingKey.publicKey, backend: backend)
            let signature = operations.signSHA256(message)
            r.rsaSign[backend] = await tokensPerSecond(count: 64) { _ in sink &+= Int(operations.signSHA256(message)[0])
            }
            r.rsaVerify[backend] = await tokensPerSecond(count: 256) { _ in
                sink &+= publicKey.verifySHA256(signature: signature, for: message) ? 1 : 0
            }
            let card = Array("6216261000000000018".utf8)
            r.rsaEncrypt[backend] = await tokensPerSecond(count: 256) { _ in
                sink &+= Int(publicKey.encryptPKCS1(card)?.first ?? 0)
            }
        }
        guard let ssl = OpenSSLRates.measure(seconds: 1) else {
            print("openssl speed: not available; no ratios")
            return
        }
        r.openSSL = ssl
        results.append(r)
        func f(_ x: Double?) -> String { x.map { String(format: "%.0f", $0) } ?? "-" }
        let rsaRates = backends.map { "\($0.rawValue) \(f(r.rsaFull[$0]))" }.joined(separator: ", ")
        print(
            "round \(round): EC_v1 decrypt \(f(r.ecDecrypt))/s, verify + decrypt \(f(r.ecFull))/s; RSA_v1 \(rsaRates)/s; openssl ECDH \(f(ssl.ecdh)), ECDSA verify \(f(ssl.ecdsaVerify)), RSA private \(f(ssl.rsaPrivate)), public \(f(ssl.rsaPublic))/s"
        )
    }
    guard sink != 42 else { fatalError("nothing decrypted") }
    printTokenSummary(results, backends: backends)
}

/// Rates (medians of the rounds) and ratios (min / median / max of the rounds' own ratios).
func printTokenSummary(_ results: [TokenRound], backends: [RSABackend]) {
    func stats(_ values: [Double]) -> (min: Double, median: Double, max: Double) {
        let sorted = values.sorted()
        let n = sorted.count
        let median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        return (sorted.first ?? 0, median, sorted.last ?? 0)
    }
    func padded(_ name: String, _ width: Int) -> String {
        name + String(repeating: " ", count: max(1, width - name.count))
    }
    func rate(_ name: String, _ values: [Double]) {
        let s = stats(values)
        print("  " + padded(name, 44) + String(format: "%7.0f/s   (rounds %.0f–%.0f)", s.median, s.min, s.max))
    }
    func ratio(_ name: String, _ values: [Double], target: Double?) {
        let s = stats(values)
        let verdict = target.map { s.median >= $0 ? "   target ≥ \($0): met" : "   target ≥ \($0): NOT met" } ?? ""
        print("  " + padded(name, 62) + String(format: "%.2f / %.2f / %.2f", s.min, s.median, s.max) + verdict)
    }
    print("Rates (median of the rounds)")
    rate("EC_v1 decrypt only", results.map(\.ecDecrypt))
    rate("EC_v1 verify + decrypt", results.map(\.ecFull))
    for backend in backends {
        rate("RSA_v1 verify + decrypt, \(backend.rawValue)", results.map { $0.rsaFull[backend] ?? 0 })
    }
    for backend in backends {
        rate("ACP RSA-2048 sign, \(backend.rawValue)", results.map { $0.rsaSign[backend] ?? 0 })
        rate("ACP RSA-2048 verify, \(backend.rawValue)", results.map { $0.rsaVerify[backend] ?? 0 })
        rate("ACP card data encrypt (PKCS #1 v1.5), \(backend.rawValue)", results.map { $0.rsaEncrypt[backend] ?? 0 })
    }
    rate("openssl speed ECDH P-256", results.map(\.openSSL.ecdh))
    rate("openssl speed ECDSA P-256 verify", results.map(\.openSSL.ecdsaVerify))
    rate("openssl speed RSA-2048 private", results.map(\.openSSL.rsaPrivate))
    rate("openssl speed RSA-2048 public", results.map(\.openSSL.rsaPublic))
    print("Ratios, min / median / max of the rounds (each round's rate over OpenSSL's in the same round)")
    ratio("EC_v1 decrypt only / ECDH", results.map { $0.ecDecrypt / $0.openSSL.ecdh }, target: 0.9)
    ratio("EC_v1 verify + decrypt / (ECDH + ECDSA verify)", results.map { $0.ecFull / $0.ecCeiling }, target: 0.9)
    for backend in backends {
        ratio(
            "RSA_v1 verify + decrypt, \(backend.rawValue) / RSA-2048 private",
            results.map { ($0.rsaFull[backend] ?? 0) / $0.openSSL.rsaPrivate },
            target: backend == RSABackend.selected ? 0.8 : nil
        )
    }
    for backend in backends {
        ratio(
            "ACP sign, \(backend.rawValue) / RSA-2048 private",
            results.map { ($0.rsaSign[backend] ?? 0) / $0.openSSL.rsaPrivate },
            target: nil
        )
    }
}

/// `paysheet-bench tokens-stages`: microseconds per stage of EC_v1 verify + decrypt, to see where time goes.
func runTokenStages() async throws {
    let fixture = try TokenBenchFixture()
    let now = fixture.now
    let ecCredentials = fixture.ec
    let pki = fixture.pki
    let token = try fixture.issuer.issue(
        try SandboxPayment.sample(amount: "1.00", currency: "USD", now: now),
        to: TokenRecipient(certificate: ecCredentials.certificate),
        signingTime: now
    )
    let json = Array(token.jsonValue.compactText.utf8)
    let verifier = PaymentTokenVerifier(trust: pki.trustAnchors)
    let keyring = MerchantKeyring([ecCredentials.merchantKey])
    let parsed = try PaymentTokenData(json: json)
    let verified = try await verifier.verify(parsed, at: now)
    try await timeStage("token JSON → PaymentTokenData") { _ = try PaymentTokenData(json: json) }
    await timeStage("  JSONSkim.read (\(json.count) bytes)") { _ = JSONSkim.read(json) }
    let signatureText = Base64.encode(parsed.signature)
    await timeStage("  Base64 of the signature (\(signatureText.utf8.count) characters)") {
        _ = Base64.decode(signatureText)
    }
    try await timeStage("CMS reader") { _ = try AppleSignedData(berEncoded: parsed.signature) }
    try await timeStage("verify (cached chain)") { _ = try await verifier.verify(parsed, at: now) }
    try await timeStage("decrypt") { _ = try keyring.decrypt(verified) }
    guard case .p256(let priv) = ecCredentials.privateKey else { return }
    let eph = parsed.header.ephemeralPublicKey!
    let pub = try P256.KeyAgreement.PublicKey(derRepresentation: eph)
    try await timeStage("  ephemeral key from SPKI") { _ = try P256.KeyAgreement.PublicKey(derRepresentation: eph) }
    try await timeStage("  ephemeral key from x963") {
        _ = try P256.KeyAgreement.PublicKey(x963Representation: eph.suffix(65))
    }
    try await timeStage("  ECDH") { _ = try priv.sharedSecretFromKeyAgreement(with: pub) }
    let plain = Array(try SandboxPayment.sample(amount: "1.00", currency: "USD").jsonValue.compactText.utf8)
    try await timeStage("  plaintext JSON + typed") { _ = try DecryptedPaymentData.read(plain) }
    await timeStage("  key by publicKeyHash") { _ = keyring.key(forPublicKeyHash: parsed.header.publicKeyHash) }
    let secret = try priv.sharedSecretFromKeyAgreement(with: pub)
    try await symmetricStages(secret: secret, plaintext: plain)
}

/// Microseconds of one stage, `body` run 3,000 times (`tokens-stages`).
func timeStage(_ name: String, _ body: () async throws -> Void) async rethrows {
    let count = 3000
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<count { try await body() }
    let microseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(count)
    // Padded here: `%-28@` pads nothing in Foundation on Linux.
    let label = name.count < 32 ? name + String(repeating: " ", count: 32 - name.count) : name
    print("  " + label + String(format: " %7.1f µs", microseconds))
}

/// `tokens-stages`' lines for the KDF and AES-256-GCM (with a 16-byte nonce, as tokens use it):
/// the token library's own KDF and nonce, and its opening taken apart.
func symmetricStages(secret: SharedSecret, plaintext plain: [UInt8]) async throws {
    let merchantIdentifierHash = Array(SHA256.hash(data: Array("merchant.bench".utf8)))
    await timeStage("  KDF (one SHA-256)") {
        _ = AppleKDF.symmetricKey(sharedSecret: secret, merchantIdentifierHash: merchantIdentifierHash)
    }
    let nonce = MerchantKeyring.zeroNonce
    let aesKey = SymmetricKey(size: .bits256)
    let sealed = try AES.GCM.seal(plain, using: aesKey, nonce: nonce)
    let combined = Array(sealed.ciphertext) + Array(sealed.tag)
    try await timeStage("  AES-256-GCM open") {
        let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: combined.dropLast(16), tag: combined.suffix(16))
        _ = Array(try AES.GCM.open(box, using: aesKey))
    }
    try await timeStage("  AES: SealedBox only") {
        _ = try AES.GCM.SealedBox(nonce: nonce, ciphertext: combined.dropLast(16), tag: combined.suffix(16))
    }
    let prebuilt = try AES.GCM.SealedBox(
        nonce: nonce,
        ciphertext: Data(combined.dropLast(16)),
        tag: Data(combined.suffix(16))
    )
    try await timeStage("  AES: open only") { _ = try AES.GCM.open(prebuilt, using: aesKey) }
}

/// `paysheet-bench tokens-loop decrypt|full [SECONDS]`: one of the EC_v1 lines alone for SECONDS
/// (5), for a profiler (`perf record -g -- paysheet-bench tokens-loop decrypt`).
func runTokenLoop(_ arguments: [String]) async throws {
    let full = arguments.first == "full"
    let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 5
    let fixture = try TokenBenchFixture()
    let now = fixture.now
    let tokens = try fixture.tokens(fixture.ec, 256)
    let decryptor = PaymentTokenDecryptor(
        keys: MerchantKeyring([fixture.ec.merchantKey]),
        verifier: fixture.verifier,
        replayGuard: nil
    )
    var sink = 0
    let rate = try await tokensPerSecond(count: tokens.count, minimumSeconds: seconds) { i in
        if full {
            sink &+= try await decryptor.decrypt(json: tokens[i], at: now).paymentData.transactionAmount
        } else {
            sink &+= try decryptor.keys.decrypt(unverified: PaymentTokenData(json: tokens[i])).transactionAmount
        }
    }
    print(String(format: "%@: %.0f tokens/s", full ? "EC_v1 verify + decrypt" : "EC_v1 decrypt only", rate))
    if sink == 42 { print("") }
}
