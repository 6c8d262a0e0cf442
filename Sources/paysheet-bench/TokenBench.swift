import Crypto
import Foundation
import PaysheetModel
import PaysheetToken
import PaysheetTokenFormat

// `swift run -c release paysheet-bench tokens`: tokens per second on one core for EC_v1 decrypt
// only, EC_v1 verify + decrypt and RSA_v1 verify + decrypt (each from the token's JSON text, the
// chain cached after the first token), next to OpenSSL's rates for the matching primitives
// measured in the same run with `openssl speed`, as ratios.

struct OpenSSLRates {
    var ecdh = 0.0, ecdsaVerify = 0.0, rsaPrivate = 0.0

    static func measure(seconds: Int) -> OpenSSLRates? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
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
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = Pipe()
        do { try process.run() } catch { return nil }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var rates = OpenSSLRates()
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: ":")
            if line.hasPrefix("+F2:"), fields.count >= 5, fields[2] == "2048" {
                rates.rsaPrivate = Double(fields[3]) ?? 0
            }
            if line.hasPrefix("+F4:"), fields.count >= 5, fields[2] == "256" {
                rates.ecdsaVerify = Double(fields[4]) ?? 0
            }
            if line.hasPrefix("+F5:"), fields.count >= 4, fields[2] == "256" { rates.ecdh = Double(fields[3]) ?? 0 }
        }
        return rates.ecdh > 0 && rates.rsaPrivate > 0 ? rates : nil
    }
}

func tokensPerSecond(
    count: Int,
    minimumSeconds: Double = 2,
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

func runTokenBenchmark() async throws {
    let now = Date()
    let pki = try SandboxPKI.generate(now: now)
    let ecCredentials = try MerchantCredentials.create(
        merchantIdentifier: "merchant.bench.ec",
        keyType: .ec,
        pki: pki,
        now: now
    )
    let rsa = try MerchantCredentials.create(
        merchantIdentifier: "merchant.bench.rsa",
        keyType: .rsa,
        pki: pki,
        now: now
    )
    let issuer = SandboxTokenIssuer(pki: pki)
    func tokens(_ credentials: MerchantCredentials, _ n: Int) throws -> [[UInt8]] {
        try (0..<n).map { _ in
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
    let ecTokens = try tokens(ecCredentials, 256)
    let rsaTokens = try tokens(rsa, 64)
    let decryptor = PaymentTokenDecryptor(
        keys: MerchantKeyring([ecCredentials.merchantKey, rsa.merchantKey]),
        verifier: PaymentTokenVerifier(trust: pki.trustAnchors),
        replayGuard: nil
    )
    var verified: [VerifiedPaymentToken] = []
    for token in ecTokens {
        verified.append(try await decryptor.verifier.verify(PaymentTokenData(json: token), at: now))
    }

    var sink = 0
    let ecDecrypt = try await tokensPerSecond(count: verified.count) { i in
        sink &+= try decryptor.keys.decrypt(verified[i]).transactionAmount
    }
    let ecFull = try await tokensPerSecond(count: ecTokens.count) { i in
        sink &+= try await decryptor.decrypt(json: ecTokens[i], at: now).paymentData.transactionAmount
    }
    let rsaFull = try await tokensPerSecond(count: rsaTokens.count) { i in
        sink &+= try await decryptor.decrypt(json: rsaTokens[i], at: now).paymentData.transactionAmount
    }
    guard sink > 0 else { fatalError("nothing decrypted") }

    func f(_ x: Double) -> String { String(format: "%.0f", x) }
    func r(_ x: Double) -> String { String(format: "%.2f", x) }
    print("Token benchmark (one core, release; tokens from JSON text, chain cached after the first)")
    print("  EC_v1 decrypt only:      \(f(ecDecrypt))/s   (target ≥ 20000/s)")
    print("  EC_v1 verify + decrypt:  \(f(ecFull))/s   (target ≥ 8000/s)")
    print("  RSA_v1 verify + decrypt: \(f(rsaFull))/s")
    guard let ssl = OpenSSLRates.measure(seconds: 2) else {
        print("  openssl speed: not available; no ratios")
        return
    }
    let ecCeiling = 1 / (1 / ssl.ecdh + 1 / ssl.ecdsaVerify)
    print("OpenSSL primitives measured now (openssl speed, one core)")
    print(
        "  ECDH P-256: \(f(ssl.ecdh))/s   ECDSA P-256 verify: \(f(ssl.ecdsaVerify))/s   RSA-2048 private: \(f(ssl.rsaPrivate))/s"
    )
    print("Ratios")
    print("  EC_v1 decrypt only / OpenSSL ECDH:                        \(r(ecDecrypt / ssl.ecdh))")
    print("  EC_v1 verify + decrypt / OpenSSL (ECDH + ECDSA verify):   \(r(ecFull / ecCeiling))")
    print(
        "  RSA_v1 verify + decrypt / OpenSSL RSA-2048 private op:    \(r(rsaFull / ssl.rsaPrivate))   (target ≥ 0.80)"
    )
}

/// `paysheet-bench tokens-stages`: microseconds per stage of EC_v1 verify + decrypt, to see where time goes.
func runTokenStages() async throws {
    let now = Date()
    let pki = try SandboxPKI.generate(now: now)
    let ecCredentials = try MerchantCredentials.create(
        merchantIdentifier: "merchant.bench.ec",
        keyType: .ec,
        pki: pki,
        now: now
    )
    let token = try SandboxTokenIssuer(pki: pki).issue(
        try SandboxPayment.sample(amount: "1.00", currency: "USD", now: now),
        to: TokenRecipient(certificate: ecCredentials.certificate),
        signingTime: now
    )
    let json = Array(token.jsonValue.compactText.utf8)
    let verifier = PaymentTokenVerifier(trust: pki.trustAnchors)
    let keyring = MerchantKeyring([ecCredentials.merchantKey])
    let count = 3000
    func us(_ name: String, _ body: () async throws -> Void) async rethrows {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count { try await body() }
        print(
            String(
                format: "  %-28@ %7.1f µs",
                name as NSString,
                Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(count)
            )
        )
    }
    let parsed = try PaymentTokenData(json: json)
    let verified = try await verifier.verify(parsed, at: now)
    try await us("token JSON → PaymentTokenData") { _ = try PaymentTokenData(json: json) }
    try await us("CMS reader") { _ = try AppleSignedData(berEncoded: parsed.signature) }
    try await us("verify (cached chain)") { _ = try await verifier.verify(parsed, at: now) }
    try await us("decrypt") { _ = try keyring.decrypt(verified) }
    guard case .p256(let priv) = ecCredentials.privateKey else { return }
    let eph = parsed.header.ephemeralPublicKey!
    let pub = try P256.KeyAgreement.PublicKey(derRepresentation: eph)
    try await us("  ephemeral key from SPKI") { _ = try P256.KeyAgreement.PublicKey(derRepresentation: eph) }
    try await us("  ephemeral key from x963") {
        _ = try P256.KeyAgreement.PublicKey(x963Representation: eph.suffix(65))
    }
    try await us("  ECDH") { _ = try priv.sharedSecretFromKeyAgreement(with: pub) }
    let plain = Array(try SandboxPayment.sample(amount: "1.00", currency: "USD").jsonValue.compactText.utf8)
    try await us("  plaintext JSON + typed") { _ = try DecryptedPaymentData(json: JSONParser.parse(plain)) }
}
